"""The single-neuron checks of iaf_cond_exp (iaf_cond_alpha, iaf_cond_exp_sfa_rr) and
step_current_generator that both simulators run (NEST: nest_cond_exp.py; spikex:
tests/python/nest_validation/test_nest_iaf_cond_exp.py): independent neurons under a
constant current, a step_current_generator, a dc_generator, and trains of excitatory and
inhibitory input (spike_generator / spike_source_array: the same spikes in both), one with
E_L changed only (NEST starts it at its default V_m)."""

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
    return {"exc": [round(float(s) * DT, 10) for s in exc], "inh": [round(float(s) * DT, 10) for s in inh]}


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
