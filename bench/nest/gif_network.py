"""The gif_cond_exp checks both simulators run (NEST: nest_gif_cond_exp.py; spikex:
tests/python/nest_validation/test_nest_gif_cond_exp.py).

The escape noise's random numbers differ (NEST draws from its own generator, spikex from
each cell's counter-based stream), so the check has two parts:

* Deterministic (``NEURONS``, 500 ms at 0.1 ms): single neurons whose spikes do not depend
  on the random numbers: the noise switched off (``lambda_0 = 0``), a sharp threshold
  (``Delta_V = 1e-6`` mV: the probability of a spike in a step is 0 or 1 unless V lands
  within ~2e-5 mV of V_T) and forced spikes (an escape rate so high that the probability
  is 1 whenever the cell is not refractory). Inputs: a constant current, a
  step_current_generator, a dc_generator and excitatory and inhibitory conductance trains
  (those of cond_exp_network.py). The spikes, V_m, g_ex, g_in, I_stc and E_sfa are
  compared step by step.
* Statistical (``STATISTICS``): independent neurons with adaptation kernels under a
  constant current (nearly regular, and driven by the escape noise) and under Poisson
  input (poisson_generator), several seeds; per-neuron rate and ISI CV after a warm-up,
  compared with their standard errors.
"""

from __future__ import annotations

import numpy as np

from cond_exp_network import DC, STEP_CURRENT, input_trains

DT = 0.1
T_SIM = 500.0
KERNELS = {"tau_stc": [10.0, 100.0], "q_stc": [20.0, 5.0], "tau_sfa": [20.0, 200.0], "q_sfa": [5.0, 2.0]}
SHARP = {"Delta_V": 1e-6}
NEURONS = [
    {"lambda_0": 0.0, "I_e": 150.0, **KERNELS},  # noise off, a step current: only V integrated
    {"lambda_0": 0.0, "I_e": 50.0, "tau_syn_ex": 1.0, **KERNELS},  # noise off, conductance input
    {**SHARP, "I_e": 200.0, "V_T_star": -50.0, **KERNELS},  # sharp threshold, a current
    {**SHARP, "V_T_star": -52.0, "t_ref": 2.0, "tau_stc": [5.0, 60.0], "q_stc": [-10.0, 30.0],
     "tau_sfa": [30.0], "q_sfa": [8.0]},  # sharp threshold, conductance input and a dc window
    {"lambda_0": 1e9, "V_T_star": -200.0, "t_ref": 3.0, "I_e": 100.0, "tau_stc": [15.0], "q_stc": [60.0],
     "tau_sfa": [40.0], "q_sfa": [1.0]},  # forced: a spike whenever not refractory
]  # fmt: skip
VARIABLES = ("V_m", "g_ex", "g_in", "I_stc", "E_sfa")


def connections() -> list[tuple[str, int, float, float]]:
    """(source, target neuron, weight nS or current factor, delay ms) in creation order."""
    return [
        ("step", 0, 1.0, 0.1),
        ("exc", 1, 1.5, 1.0),
        ("inh", 1, -1.0, 1.5),
        ("exc", 3, 0.8, 0.3),
        ("inh", 3, -2.0, 0.1),
        ("dc", 3, 1.0, 0.5),
        ("exc", 4, 1.0, 0.2),
    ]


def sources() -> dict[str, tuple[str, dict]]:
    """The input devices: name -> (model, parameters) in both simulators' names (the trains:
    NEST's spike_generator is spikex's spike_source_array)."""
    trains = input_trains()
    return {
        "step": ("step_current_generator", STEP_CURRENT),
        "dc": ("dc_generator", DC),
        "exc": ("spike_source_array", {"spike_times": trains["exc"]}),
        "inh": ("spike_source_array", {"spike_times": trains["inh"]}),
    }


# Statistics: N neurons per condition, independent; spikes in (WARMUP, T] counted.
STATISTICS = {
    "seeds": (11, 12, 13),
    "n": 100,
    "t_ms": 3500.0,
    "warmup_ms": 500.0,
    "conditions": {
        "dc": {"params": {"I_e": 170.0, **KERNELS}},  # nearly regular (Delta_V = 0.5 mV)
        "dc_escape": {"params": {"I_e": 150.0, "Delta_V": 3.0, "lambda_0": 10.0, **KERNELS}},  # escape-noise driven
        "poisson": {
            "params": {"I_e": 60.0, **KERNELS},
            # poisson_generator rate (Hz) and weight (nS, negative: inhibitory), delay 1 ms
            "inputs": [(9000.0, 2.0), (4000.0, -2.5)],
        },
    },
}


def spike_statistics(times, senders, first: int, n: int, warmup: float, t_end: float) -> dict[str, list[float]]:
    """Per neuron (senders first .. first + n - 1): the rate (Hz) of the spikes in
    (warmup, t_end] and the CV of their inter-spike intervals (nan below 3 spikes)."""
    times, senders = np.asarray(times, dtype=float), np.asarray(senders, dtype=int)
    keep = (times > warmup + 1e-9) & (times <= t_end + 1e-9)
    times, senders = times[keep], senders[keep]
    rates, cvs = [], []
    for k in range(n):
        t = np.sort(times[senders == first + k])
        rates.append(t.size / ((t_end - warmup) / 1000.0))
        isi = np.diff(t)
        cvs.append(float(np.std(isi) / np.mean(isi)) if isi.size >= 2 else float("nan"))
    return {"rate": rates, "cv": cvs}
