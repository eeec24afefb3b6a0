"""The single-neuron protocols of hh_cond_exp_traub and hh_psc_alpha that both simulators
run (NEST: nest_hh.py; spikex: tests/python/nest_validation/test_nest_hh.py): for each
model, independent neurons over 2 s under constant currents of several amplitudes, a
step_current_generator, a dc_generator, and trains of excitatory and inhibitory input
(spike_generator / spike_source_array: the same spike times in both), one without
refractory period (every falling step above threshold is a spike: NEST's rule shows), one
with a t_ref of a fraction of steps (rounded up), one started from given V_m and gating
variables (PyNN's HH_cond_exp start: m = n = 0, h = 1)."""

from __future__ import annotations

import numpy as np

DT = 0.1
T_SIM = 2000.0
MODELS = ("hh_cond_exp_traub", "hh_psc_alpha")

# Per model: the neurons' parameters (NEST's names).
NEURONS = {
    "hh_cond_exp_traub": [
        {},  # no input: with NEST's defaults (E_L = -60 mV) it fires on its own, ~14 Hz
        {"I_e": 100.0},
        {"I_e": 300.0},
        {"I_e": 1000.0},
        {"E_L": -70.0},  # quiet at rest; the step current
        {"E_L": -70.0},  # quiet at rest; the conductance trains
        {"E_L": -70.0, "t_ref": 0.0, "I_e": 600.0},  # no refractory period
        {
            "E_L": -70.0,
            "V_m": -75.0,
            "Act_m": 0.0,
            "Inact_h": 1.0,
            "Act_n": 0.0,
            "tau_syn_ex": 2.0,
        },  # + dc
        {"t_ref": 0.25, "I_e": 1500.0},  # t_ref of 2.5 steps: 3 (NEST rounds up)
    ],
    "hh_psc_alpha": [
        {},  # no input: rest
        {"I_e": 650.0},
        {"I_e": 1000.0},
        {"I_e": 2000.0},
        {},  # the step current
        {"I_e": 300.0},  # the current trains
        {"t_ref": 0.0, "I_e": 1500.0},  # no refractory period
        {"V_m": -70.0, "Act_m": 0.0, "Inact_h": 1.0, "Act_n": 0.0, "tau_syn_ex": 1.0},  # + dc
        {"t_ref": 0.35, "I_e": 1500.0},  # t_ref of 3.5 steps: 4 (NEST rounds up)
    ],
}
RECORDABLES = {
    "hh_cond_exp_traub": ("V_m", "Act_m", "Inact_h", "Act_n", "g_ex", "g_in"),
    "hh_psc_alpha": ("V_m", "Act_m", "Inact_h", "Act_n", "I_syn_ex", "I_syn_in"),
}
STEP_CURRENT = {
    "amplitude_times": [100.0, 400.0, 700.0, 1000.5, 1300.0, 1600.0],
    "amplitude_values": [150.0, 400.0, -100.0, 800.0, 1200.0, 50.0],
    "start": 50.0,
    "stop": 1900.0,
}
DC = {"amplitude": 700.0, "start": 300.0, "stop": 1400.0}


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
    """(source, target neuron, weight (nS for hh_cond_exp_traub, pA for hh_psc_alpha) or
    current factor, delay ms) in creation order."""
    exc, inh = (4.0, -8.0) if model == "hh_cond_exp_traub" else (120.0, -60.0)
    return [
        ("step", 4, 1.0, 0.1),
        ("exc", 5, exc, 1.0),
        ("inh", 5, inh, 1.5),
        ("dc", 7, 1.0, 0.5),
        ("exc", 7, exc / 2, 0.3),
        ("inh", 2, inh / 4, 0.1),
    ]
