"""bernoulli_synapse and quantal_stp_synapse against NEST 3.10's synapses of those names, in
statistics (NEST draws from its threads' generators, spikex from keys of its own: the same
laws, other draws), on the network of bench/nest/stochastic_network.py (NEST side:
bench/nest/nest_stochastic_synapses.py): one train of 19 spikes through four parameter sets,
each onto 2000 connections, each connection a trial.

* bernoulli_synapse (p_transmit = 0.3): over all 38,000 (connection, spike) trials each
  simulator's transmission fraction lies within 4 binomial standard errors of p_transmit
  and the two within 4 of each other; every spike's count within 4.5 of 2000 p.
* quantal_stp_synapse (depressing n = 5, facilitating n = 5, one site): at every spike the
  mean weight per connection agrees with NEST's within 4.5 standard errors of the
  difference, and both with the model's mean-field value n u x (stochastic_network.
  mean_field); the spreads (variances over connections) agree within 20 %.
* Both types' defaults are NEST's (GetDefaults).

Without NEST the test skips (fails under CI)."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
from conftest import REPO, require_nest

sys.path.insert(0, str(REPO / "bench" / "nest"))
import run_exact
import spikex as sx
from spikex.models import SYNAPSE_TYPES
from stochastic_network import (
    DELAY,
    DT,
    PARROT_DELAY,
    PROBE,
    PROBES,
    SETS,
    T_SIM,
    mean_field,
    spike_times,
)

pytestmark = pytest.mark.slow  # NEST runs in a subprocess
_REASON = run_exact.nest_unavailable_reason()


@pytest.fixture(scope="module")
def nest_run():
    require_nest(_REASON)
    done = run_exact.run_nest_script(REPO / "bench" / "nest" / "nest_stochastic_synapses.py")
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def spikex_run() -> dict[str, np.ndarray]:
    """Per parameter set: the weight each connection delivered at each spike (spikes x
    connections), from the integrators' V_m sampled every ms between the arrivals."""
    net = sx.Network(dt_ms=DT, seed=2)
    source = net.create(
        "spike_source_array", 1, params={"spike_times": [np.asarray(spike_times()) + PARROT_DELAY]}
    )
    probes = {}
    for name, (synapse, params) in SETS.items():
        probes[name] = net.create("iaf_psc_delta", PROBES, params=PROBE)
        net.connect_rule("all_to_all", source, probes[name], weight=1.0, delay_ms=DELAY, synapse=synapse,
                         synapse_params=params)  # fmt: skip
        net.record_state(probes[name], "V_m", interval_ms=1.0, start_ms=0.5)
    result = net.simulate(T_SIM)
    arrivals = np.asarray(spike_times()) + PARROT_DELAY + DELAY
    out = {}
    for k, name in enumerate(SETS):
        state = result.states[k]
        times = np.asarray(state["times_ms"])
        after = np.searchsorted(times, arrivals)  # the first sample after each arrival
        v = state["values"]  # samples x connections
        out[name] = v[after] - v[after - 1]
    return out


def test_defaults_are_nests(nest_run):
    for model in ("bernoulli_synapse", "quantal_stp_synapse"):
        assert SYNAPSE_TYPES[model]["defaults"] == nest_run["defaults"][model], model


def test_bernoulli_transmission_fraction_agrees_with_nest(nest_run, spikex_run):
    p = SETS["bernoulli"][1]["p_transmit"]
    mine = spikex_run["bernoulli"]
    assert set(np.unique(mine).tolist()) == {0.0, 1.0}  # the weight or nothing
    counts = {
        "spikex": mine.sum(axis=1),
        "NEST": np.asarray(nest_run["sets"]["bernoulli"]["crossed"]),
    }
    trials = mine.size
    error = np.sqrt(p * (1 - p) / trials)
    fractions = {who: c.sum() / trials for who, c in counts.items()}
    for who, c in counts.items():
        assert abs(fractions[who] - p) < 4 * error, (who, fractions[who])
        z = (c - PROBES * p) / np.sqrt(PROBES * p * (1 - p))
        assert np.max(np.abs(z)) < 4.5, (who, z)
    assert abs(fractions["spikex"] - fractions["NEST"]) < 4 * np.sqrt(2) * error, fractions


@pytest.mark.parametrize("name", [name for name in SETS if name.startswith("quantal")])
def test_quantal_mean_weight_per_spike_agrees_with_nest(nest_run, spikex_run, name):
    params = SETS[name][1]
    mine = spikex_run[name]
    n = params.get("n", 1)
    assert np.all(mine == np.round(mine)) and mine.min() >= 0 and mine.max() <= n  # whole sites
    theirs = nest_run["sets"][name]
    mean_mine = mine.mean(axis=1)
    var_mine = mine.var(axis=1, ddof=1)
    mean_theirs = np.asarray(theirs["sum"]) / PROBES
    var_theirs = (np.asarray(theirs["squares"]) - PROBES * mean_theirs**2) / (PROBES - 1)
    error_mine, error_theirs = np.sqrt(var_mine / PROBES), np.sqrt(var_theirs / PROBES)
    expected = np.asarray(mean_field(params))
    # A spike whose outcome has no spread (every site releases) must agree exactly.
    both = np.sqrt(error_mine**2 + error_theirs**2)
    assert np.all(np.abs(mean_mine - mean_theirs) <= 4.5 * both + 1e-12), (mean_mine, mean_theirs)
    assert np.all(np.abs(mean_mine - expected) <= 4.5 * error_mine + 1e-12), (mean_mine, expected)
    assert np.all(np.abs(mean_theirs - expected) <= 4.5 * error_theirs + 1e-12), (
        mean_theirs,
        expected,
    )
    spread = var_theirs > 0
    assert np.all(np.abs(var_mine[spread] - var_theirs[spread]) < 0.2 * var_theirs[spread])
    # The train depresses or facilitates: the means move by more than their errors.
    assert np.ptp(mean_mine) > 10 * np.max(error_mine), name
