"""The short-term plasticity network both simulators build (NEST: nest_tsodyks.py; spikex:
tests/python/nest_validation/test_nest_tsodyks.py): two irregular spike trains of about 90
spikes (NEST: spike_generator -> parrot_neuron; spikex: spike_source_array one step later,
the parrot's delay) through tsodyks_synapse and tsodyks2_synapse of six parameter sets
(depressing, facilitating, one with an initial state of its own; an inhibitory one) into

* probes: iaf_psc_delta that forget at once (tau_m = 1e-4 ms: exp(-dt / tau_m) is 0, E_L = 0,
  no threshold), one per (parameter set, source): V_m is exactly the weight a spike was
  delivered with in the step it arrives and 0 otherwise (NEST also records the weights
  with a weight_recorder);
* neurons: iaf_psc_exp near threshold (tau_syn = tau_psc = 2 ms, as NEST asks of
  tsodyks_synapse) that both trains drive through every parameter set: their spikes depend
  on every factor."""

from __future__ import annotations

import numpy as np

DT = 0.1
T_SIM = 1500.0
PARROT_DELAY = DT  # NEST's generator -> parrot hop; spikex's sources fire one step later
SOURCES = 2
TAU_SYN = 2.0
# name -> (synapse type, parameters, weight onto a probe (mV), weight onto a neuron (pA))
RULES = {
    "tsodyks_depressing": (
        "tsodyks_synapse",
        {
            "U": 0.5,
            "tau_psc": TAU_SYN,
            "tau_rec": 400.0,
            "tau_fac": 0.0,
            "x": 1.0,
            "y": 0.0,
            "u": 0.0,
        },
        2.0,
        700.0,
    ),
    "tsodyks_facilitating": (
        "tsodyks_synapse",
        {
            "U": 0.05,
            "tau_psc": TAU_SYN,
            "tau_rec": 50.0,
            "tau_fac": 800.0,
            "x": 1.0,
            "y": 0.0,
            "u": 0.0,
        },
        3.0,
        1500.0,
    ),
    "tsodyks_initial_state": (
        "tsodyks_synapse",
        {
            "U": 0.3,
            "tau_psc": TAU_SYN,
            "tau_rec": 150.0,
            "tau_fac": 60.0,
            "x": 0.7,
            "y": 0.1,
            "u": 0.2,
        },
        1.5,
        500.0,
    ),
    "tsodyks2_depressing": (
        "tsodyks2_synapse",
        {"U": 0.6, "u": 0.6, "x": 1.0, "tau_rec": 300.0, "tau_fac": 0.0},
        2.5,
        600.0,
    ),
    "tsodyks2_facilitating": (
        "tsodyks2_synapse",
        {"U": 0.04, "u": 0.04, "x": 1.0, "tau_rec": 40.0, "tau_fac": 600.0},
        4.0,
        1800.0,
    ),
    "tsodyks2_inhibitory": (
        "tsodyks2_synapse",
        {"U": 0.5, "u": 0.2, "x": 0.8, "tau_rec": 200.0, "tau_fac": 100.0},
        -2.0,
        -400.0,
    ),
}
PROBE = {"E_L": 0.0, "V_m": 0.0, "V_reset": -1.0, "V_th": 1e12, "tau_m": 1e-4, "t_ref": 0.0}
NEURONS = [  # iaf_psc_exp parameters that differ between the neurons (the rest NEST's defaults)
    {"I_e": 340.0, "tau_syn_ex": TAU_SYN, "tau_syn_in": TAU_SYN},
    {"I_e": 360.0, "tau_syn_ex": TAU_SYN, "tau_syn_in": TAU_SYN},
    {"I_e": 300.0, "tau_syn_ex": TAU_SYN, "tau_syn_in": TAU_SYN, "tau_m": 15.0},
]
DELAYS = [1.0, 1.7, 0.1, 2.3]


def spike_times() -> list[list[float]]:
    """Each source's spike times (ms, on the grid, NEST's generator times): about 60 Hz
    from a fixed seed, unevenly (bursts of short intervals, some of one step, and pauses
    of up to a few hundred ms), so both interpreters get the same lists."""
    rng = np.random.default_rng(2027)
    trains = []
    last = int(T_SIM / DT) - 40
    for _ in range(SOURCES):
        steps = np.unique(
            np.concatenate(
                [
                    rng.integers(10, last // 2, size=70),  # dense first half
                    rng.integers(last // 2, last, size=20),  # sparse second half
                    100 + np.arange(8),  # a burst of one-step intervals
                ]
            )
        )
        trains.append([round(float(s) * DT, 1) for s in steps])
    return trains


def probes() -> list[tuple[str, int, float]]:
    """(rule, source, delay ms) of each probe, in creation order."""
    return [
        (rule, source, DELAYS[(k + source) % len(DELAYS)])
        for k, rule in enumerate(RULES)
        for source in range(SOURCES)
    ]


def neuron_connections() -> list[tuple[str, int, int, float]]:
    """(rule, source, neuron, delay ms) in creation order: every rule from every source to
    every neuron, delays cycling."""
    out = []
    for k, rule in enumerate(RULES):
        for source in range(SOURCES):
            for neuron in range(len(NEURONS)):
                out.append((rule, source, neuron, DELAYS[(k + source + neuron) % len(DELAYS)]))
    return out
