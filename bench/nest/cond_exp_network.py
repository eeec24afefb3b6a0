"""The single-neuron checks of iaf_cond_exp (iaf_cond_alpha, iaf_cond_exp_sfa_rr) and
step_current_generator that both simulators run (NEST: nest_cond_exp.py; spikex:
tests/python/nest_validation/test_nest_iaf_cond_exp.py): independent neurons under a
constant current, a step_current_generator, a dc_generator, and trains of excitatory and
inhibitory input (spike_generator / spike_source_array: the same spikes in both), one with
E_L changed only (NEST starts it at its default V_m).

Also the Vogels-Abbott COBA network of iaf_cond_exp cells at any size (``build_va_coba_nest``,
``build_va_coba_spikex``), which bench/nest/cond_networks_vs_nest.py times on both."""

from __future__ import annotations

import numpy as np

DT = 0.1
T_SIM = 500.0
NEURONS = [
    {"I_e": 500.0},
    {"I_e": 0.0},
    {"I_e": 380.0},
    {"E_L": -65.0, "I_e": 300.0, "tau_syn_ex": 1.0, "t_ref": 5.0},
    {"I_e": 100.0, "g_L": 25.0, "C_m": 180.0},
]
STEP_CURRENT = {
    "amplitude_times": [50.0, 150.0, 300.0, 320.5],
    "amplitude_values": [400.0, 800.0, -100.0, 450.0],
    "start": 20.0,
    "stop": 420.0,
}
DC = {"amplitude": 600.0, "start": 100.0, "stop": 250.0}


def input_trains(seed: int = 5) -> dict[str, list[float]]:
    """Excitatory and inhibitory spike times on the grid (distinct steps: a source spikes at
    most once per step), like Poisson input at about 4 and 2 kHz."""
    rng = np.random.default_rng(seed)
    steps = round(T_SIM / DT)
    exc = np.sort(rng.choice(np.arange(1, steps - 20), size=2000, replace=False))
    inh = np.sort(rng.choice(np.arange(1, steps - 20), size=1000, replace=False))
    return {
        "exc": [round(float(s) * DT, 10) for s in exc],
        "inh": [round(float(s) * DT, 10) for s in inh],
    }


def connections() -> list[tuple[str, int, float, float]]:
    """(source, target neuron, weight nS or current factor, delay ms) in creation order."""
    return [
        ("step", 1, 1.0, 0.1),
        ("dc", 4, 1.0, 0.5),
        ("exc", 2, 1.5, 1.0),
        ("inh", 2, -1.0, 1.5),
        ("exc", 3, 0.8, 0.3),
        ("inh", 4, -2.0, 0.1),
    ]


def recordables(model: str) -> tuple[str, ...]:
    """The variables compared: the family's, and the adaptation conductances of
    iaf_cond_exp_sfa_rr."""
    extra = ("g_sfa", "g_rr") if model == "iaf_cond_exp_sfa_rr" else ()
    return ("V_m", "g_ex", "g_in", *extra)


# The Vogels-Abbott COBA network (Brette et al. 2007, benchmark 1), as PyNN's
# examples/VAbenchmarks.py COBA describes it: n cells (80 % excitatory) of IF_cond_exp,
# that is iaf_cond_exp with a 20,000 um^2 membrane (C_m 200 pF, g_L 10 nS, tau_m 20 ms),
# E_L = V_reset = -60 mV, V_th -50 mV, 5 ms refractory, tau_syn 5 / 10 ms, E_ex 0 / E_in
# -80 mV; V_m uniform in [-60, -50] mV; every pair connected with probability 2 % (autapses
# allowed, as PyNN's FixedProbabilityConnector), 4 nS excitatory and 51 nS inhibitory,
# 0.2 ms delay; a 50 ms kick of 20 Poisson sources at 100 Hz, each reaching a cell with
# probability 1 % at 100 nS. After the kick the activity sustains itself.
VA_COBA_CELL = {
    "C_m": 200.0, "g_L": 10.0, "E_L": -60.0, "V_reset": -60.0, "V_th": -50.0, "t_ref": 5.0,
    "tau_syn_ex": 5.0, "tau_syn_in": 10.0, "E_ex": 0.0, "E_in": -80.0, "I_e": 0.0,
}  # fmt: skip
VA_COBA = {
    "n_cells": 4000, "probability": 0.02, "w_e": 4.0, "w_i": -51.0, "delay": 0.2,
    "v_init": (-60.0, -50.0), "kick_sources": 20, "kick_rate": 100.0, "kick_stop": 50.0,
    "kick_probability": 0.01, "kick_w": 100.0,
}  # fmt: skip


def build_va_coba_nest(seed: int, n_cells: int = VA_COBA["n_cells"]):
    """VA COBA in NEST's kernel (reset first): its cells and a spike recorder on them."""
    import nest

    v = VA_COBA
    nest.ResetKernel()
    nest.verbosity = nest.VerbosityLevel.ERROR
    nest.resolution = DT
    nest.rng_seed = seed
    n_e = round(0.8 * n_cells)
    cells = nest.Create("iaf_cond_exp", n_cells, params=VA_COBA_CELL)
    cells.V_m = nest.random.uniform(*v["v_init"])
    for sources, w in ((cells[:n_e], v["w_e"]), (cells[n_e:], v["w_i"])):
        nest.Connect(sources, cells, {"rule": "pairwise_bernoulli", "p": v["probability"]},
                     {"weight": w, "delay": v["delay"]})  # fmt: skip
    kick = nest.Create("poisson_generator", v["kick_sources"],
                       params={"rate": v["kick_rate"], "stop": v["kick_stop"]})  # fmt: skip
    nest.Connect(kick, cells, {"rule": "pairwise_bernoulli", "p": v["kick_probability"]},
                 {"weight": v["kick_w"], "delay": v["delay"]})  # fmt: skip
    recorder = nest.Create("spike_recorder")
    nest.Connect(cells, recorder)
    return cells, recorder


def build_va_coba_spikex(seed: int, n_cells: int = VA_COBA["n_cells"]):
    """The same network described to spikex (not yet built): the Network and its cells,
    their spikes recorded."""
    import spikex as sx

    v = VA_COBA
    net = sx.Network(dt_ms=DT, seed=seed)
    n_e = round(0.8 * n_cells)
    cells = net.create("iaf_cond_exp", n_cells,
                       params={**VA_COBA_CELL, "V_m": sx.uniform(*v["v_init"])})  # fmt: skip
    for sources, w in ((cells[0:n_e], v["w_e"]), (cells[n_e:n_cells], v["w_i"])):
        net.connect_rule("pairwise_bernoulli", sources, cells, probability=v["probability"],
                         weight=w, delay_ms=v["delay"])  # fmt: skip
    kick = net.create("poisson_generator", v["kick_sources"],
                      params={"rate": v["kick_rate"], "stop": v["kick_stop"]})  # fmt: skip
    net.connect_rule("pairwise_bernoulli", kick, cells, probability=v["kick_probability"],
                     weight=v["kick_w"], delay_ms=v["delay"])  # fmt: skip
    net.record_spikes(cells)
    return net, cells
