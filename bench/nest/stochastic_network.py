"""The stochastic-synapse network both simulators build (NEST: nest_stochastic_synapses.py;
spikex: tests/python/nest_validation/test_nest_stochastic_synapses.py): one spike train
(PyNN's multiquantal_synapses.py example's: 9 spikes 10 ms apart, a pause, 10 more; NEST:
spike_generator -> parrot_neuron, spikex: spike_source_array one step later, the parrot's
delay) through bernoulli_synapse and quantal_stp_synapse of four parameter sets, each onto
PROBES integrators (iaf_psc_delta without leak or threshold: V_m adds up what arrives).
Each connection is one trial: per spike, the number of connections it crosses (bernoulli)
and the mean and spread of the weight delivered per connection (quantal) over PROBES
trials, with weight 1 (the weight is the number of sites released)."""

from __future__ import annotations

import numpy as np

DT = 0.1
T_SIM = 400.0
DELAY = 1.0
PARROT_DELAY = DT  # NEST's generator -> parrot hop; spikex's source fires one step later
PROBES = 2000  # connections (trials) per parameter set
PROBE = {"E_L": 0.0, "V_m": 0.0, "V_reset": -1.0, "V_th": 1e12, "tau_m": 1e300, "t_ref": 0.0}
# name -> (synapse type, parameters)
SETS = {
    "bernoulli": ("bernoulli_synapse", {"p_transmit": 0.3}),
    "quantal_depressing": (
        "quantal_stp_synapse",
        {"U": 0.8, "u": 0.8, "tau_rec": 100.0, "tau_fac": 0.0, "n": 5, "a": 5},
    ),
    "quantal_facilitating": (
        "quantal_stp_synapse",
        {"U": 0.04, "u": 0.04, "tau_rec": 50.0, "tau_fac": 200.0, "n": 5, "a": 5},
    ),
    # NEST's defaults but U = u = 0.5 and a faster recovery: one site, available at first.
    "quantal_single": ("quantal_stp_synapse", {"U": 0.5, "u": 0.5, "tau_rec": 30.0, "n": 1}),
}


def spike_times() -> list[float]:
    """The generator's spike times (ms)."""
    return [
        float(t) for t in np.hstack((np.arange(10.0, 100.0, 10.0), np.arange(250.0, 350.0, 10.0)))
    ]


def mean_field(params: dict) -> list[float]:
    """The expected weight per connection at each spike: with u deterministic a depleted
    site recovers with probability 1 - exp(-h / tau_rec) and an available one releases with
    probability u, so the mean number released is n u x, with x = E[a] / n following
    tsodyks2_synapse's recurrence from x = a / n (nothing moves at the first spike).
    bernoulli_synapse: p_transmit."""
    if "p_transmit" in params:
        return [params["p_transmit"]] * len(spike_times())
    n, a = params.get("n", 1), params.get("a", 1)
    U, u, tau_rec, tau_fac = params["U"], params["u"], params["tau_rec"], params.get("tau_fac", 0.0)
    out, x, last = [], a / n, None
    for t in spike_times():
        if last is not None:
            h = t - last
            x = 1.0 - (1.0 - x * (1.0 - u)) * np.exp(-h / tau_rec)
            u = U + u * (1.0 - U) * (np.exp(-h / tau_fac) if tau_fac > 0 else 0.0)
        out.append(n * u * x)
        last = t
    return out
