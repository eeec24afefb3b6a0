"""The small STDP network both simulators build (NEST: nest_stdp_synapse.py; spikex:
tests/python/nest_validation/test_nest_stdp_synapse.py): spike trains from fixed times
(NEST: spike_generator -> parrot_neuron; spikex: spike_source_array one step later, the
parrot's delay) into iaf_psc_alpha neurons through stdp_synapse connections of five
parameter sets (additive, multiplicative, mixed, Guetig, an inhibitory one with negative
Wmax) over several delays. The neurons have their own tau_minus and a constant current,
so they fire and the weights move both ways."""

from __future__ import annotations

import numpy as np

DT = 0.1
T_SIM = 1500.0
PRE = 16
PARROT_DELAY = DT  # NEST's generator -> parrot hop; spikex's sources fire one step later
POST = [  # iaf_psc_alpha parameters that differ between the neurons (the rest NEST's defaults)
    {"I_e": 330.0, "tau_minus": 20.0, "tau_syn_ex": 2.0},
    {"I_e": 360.0, "tau_minus": 30.0, "tau_syn_ex": 2.0},
    {"I_e": 300.0, "tau_minus": 15.0, "tau_syn_ex": 2.0},
    {"I_e": 345.0, "tau_minus": 25.0, "tau_syn_ex": 1.0},
]
# name -> (stdp_synapse parameters, initial weight in pA)
RULES = {
    "additive": (
        {
            "tau_plus": 20.0,
            "lambda": 0.02,
            "alpha": 1.1,
            "mu_plus": 0.0,
            "mu_minus": 0.0,
            "Wmax": 400.0,
        },
        150.0,
    ),
    "multiplicative": (
        {
            "tau_plus": 15.0,
            "lambda": 0.05,
            "alpha": 1.2,
            "mu_plus": 1.0,
            "mu_minus": 1.0,
            "Wmax": 500.0,
        },
        200.0,
    ),
    "mixed": (
        {
            "tau_plus": 25.0,
            "lambda": 0.03,
            "alpha": 0.9,
            "mu_plus": 0.0,
            "mu_minus": 1.0,
            "Wmax": 350.0,
        },
        100.0,
    ),
    "guetig": (
        {
            "tau_plus": 18.0,
            "lambda": 0.04,
            "alpha": 1.05,
            "mu_plus": 0.4,
            "mu_minus": 0.6,
            "Wmax": 450.0,
        },
        180.0,
    ),
    "inhibitory": (
        {
            "tau_plus": 20.0,
            "lambda": 0.05,
            "alpha": 1.0,
            "mu_plus": 0.0,
            "mu_minus": 0.0,
            "Wmax": -300.0,
        },
        -60.0,
    ),
}
DELAYS = [1.0, 1.5, 2.3, 0.1]


def pre_spike_times() -> list[list[float]]:
    """Each source's spike times (ms, on the grid, NEST's generator times): Poisson at
    about 15 Hz from a fixed seed, so both interpreters get the same lists."""
    rng = np.random.default_rng(2026)
    trains = []
    for _ in range(PRE):
        steps = np.unique(rng.integers(10, int(T_SIM / DT) - 40, size=int(15 * T_SIM / 1000)))
        trains.append([round(float(s) * DT, 1) for s in steps])
    return trains


def connections() -> list[tuple[str, int, int, float]]:
    """(rule, source, target, delay ms) in creation order: every rule from its own sources
    (source k takes rule k mod 5) to every neuron, delays cycling."""
    names = list(RULES)
    out = []
    for source in range(PRE):
        for target in range(len(POST)):
            out.append(
                (
                    names[source % len(names)],
                    source,
                    target,
                    DELAYS[(source + target) % len(DELAYS)],
                )
            )
    return out
