"""The single-neuron protocols of aeif_cond_exp and aeif_cond_alpha that both simulators
run (NEST: nest_aeif.py; spikex: tests/python/nest_validation/test_nest_aeif.py), 2 s
each: constant currents (below, near and above rheobase, strong), a
step_current_generator, a dc_generator, excitatory and inhibitory Poisson-like spike
trains (spike_generator / spike_source_array: the same spikes in both), Delta_T = 0, a
refractory period, and Naud et al. (2008)'s regular-bursting parameters."""

from __future__ import annotations

import numpy as np

DT = 0.1
T_SIM = 2000.0
MODELS = ("aeif_cond_exp", "aeif_cond_alpha")
VARIABLES = ("V_m", "w", "g_ex", "g_in")
# With NEST's defaults a constant current makes the cell fire repetitively from about
# 627 pA (one spike, then adaptation silences it, from about 578 pA).
NEURONS = [
    {"I_e": 400.0},  # 0: below rheobase
    {"I_e": 630.0},  # 1: just above the repetitive-firing onset (long, sensitive intervals)
    {"I_e": 800.0},  # 2
    {"I_e": 1500.0},  # 3: strong
    {"I_e": 0.0},  # 4: step current
    {"I_e": 0.0},  # 5: excitatory and inhibitory spike trains
    {"I_e": 700.0, "Delta_T": 0.0},  # 6: no exponential term, threshold V_th
    {"I_e": 1000.0, "t_ref": 2.0, "b": 40.0, "a": 2.0},  # 7: refractory
    # 8: regular bursting (Naud et al. 2008, Table 1), spike trains on top
    {
        "C_m": 200.0,
        "g_L": 10.0,
        "E_L": -58.0,
        "V_th": -50.0,
        "Delta_T": 2.0,
        "a": 2.0,
        "tau_w": 120.0,
        "b": 100.0,
        "V_reset": -46.0,
        "I_e": 210.0,
    },
    {"I_e": 300.0, "E_L": -65.0, "V_m": -60.0, "w": 20.0},  # 9: dc_generator, other start
]
STEP_CURRENT = {
    "amplitude_times": [100.0, 600.0, 900.0, 1300.5],
    "amplitude_values": [700.0, 1200.0, -200.0, 900.0],
    "start": 50.0,
    "stop": 1800.0,
}
DC = {"amplitude": 500.0, "start": 400.0, "stop": 1400.0}


def input_trains(seed: int = 11) -> dict[str, list[float]]:
    """Excitatory and inhibitory spike times on the grid (distinct steps: a source spikes at
    most once per step), like Poisson input at about 2 and 1 kHz."""
    rng = np.random.default_rng(seed)
    steps = round(T_SIM / DT)
    exc = np.sort(rng.choice(np.arange(1, steps - 20), size=4000, replace=False))
    inh = np.sort(rng.choice(np.arange(1, steps - 20), size=2000, replace=False))
    return {
        "exc": [round(float(s) * DT, 10) for s in exc],
        "inh": [round(float(s) * DT, 10) for s in inh],
    }


def connections(model: str) -> list[tuple[str, int, float, float]]:
    """(source, target neuron, weight nS or current factor, delay ms) in creation order. The
    conductance weights of aeif_cond_exp are e times aeif_cond_alpha's: an input then has
    the same integral, tau_syn · weight · e, in both."""
    scale = float(np.e) if model == "aeif_cond_exp" else 1.0
    return [
        ("step", 4, 1.0, 0.1),
        ("dc", 9, 1.0, 0.5),
        ("exc", 5, 40.0 * scale, 1.0),
        ("inh", 5, -15.0 * scale, 1.5),
        ("exc", 8, 4.0 * scale, 0.3),
        ("inh", 8, -2.0 * scale, 0.1),
    ]
