"""tsodyks_synapse and tsodyks2_synapse against NEST 3.10's synapses of those names on the
network of bench/nest/tsodyks_network.py (NEST side: bench/nest/nest_tsodyks.py): two
irregular trains of about 90 spikes through six parameter sets (depressing, facilitating,
an initial state of its own, inhibitory) into probes and into neurons that fire.

* The weight each spike is delivered with is NEST's (its weight_recorder), bit for bit:
  a probe's V_m is exactly that weight in the step the spike arrives (it forgets at once).
  spikex takes spike intervals as NEST does (times in ms from 1 µs tics) and computes in
  NEST's order, so nothing is left to round differently. (With intervals as whole steps
  times dt, about half the weights differed in their last bit, by at most 3e-16 relative.)
* The probes' V_m is NEST's at every step, to the bit; the neurons' V_m agrees to 1e-12 of
  its range (measured: the last bit, 3e-16) and their spikes are the same, step for step.
  The neurons' last bits are not the synapses': with static synapses in their place the
  same network differs from NEST in the same way (a neuron's inputs of one step are added
  up in another order).
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
from tsodyks_network import (
    DT,
    NEURONS,
    PARROT_DELAY,
    PROBE,
    RULES,
    T_SIM,
    neuron_connections,
    probes,
    spike_times,
)

pytestmark = pytest.mark.slow  # NEST runs in a subprocess
_REASON = run_exact.nest_unavailable_reason()


@pytest.fixture(scope="module")
def nest_run():
    require_nest(_REASON)
    done = run_exact.run_nest_script(REPO / "bench" / "nest" / "nest_tsodyks.py")
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def spikex_run():
    net = sx.Network(dt_ms=DT, seed=1)
    trains = [np.asarray(t) + PARROT_DELAY for t in spike_times()]  # the parrot's hop
    sources = net.create("spike_source_array", len(trains), params={"spike_times": trains})
    cells = net.create("iaf_psc_delta", len(probes()), params=PROBE)
    neurons = net.create(
        "iaf_psc_exp", len(NEURONS),
        params={name: np.array([p.get(name, 10.0) for p in NEURONS]) for name in ("I_e", "tau_syn_ex", "tau_syn_in", "tau_m")},
    )  # fmt: skip
    for k, (rule, source, delay) in enumerate(probes()):
        synapse, params, weight, _ = RULES[rule]
        net.connect(
            sources[source],
            cells[k],
            weight=weight,
            delay_ms=delay,
            synapse=synapse,
            synapse_params=params,
        )
    for rule, source, neuron, delay in neuron_connections():
        synapse, params, _, weight = RULES[rule]
        net.connect(sources[source], neurons[neuron], weight=weight, delay_ms=delay, synapse=synapse,
                    synapse_params=params)  # fmt: skip
    net.record_spikes(sources)
    net.record_spikes(neurons)
    net.record_state(cells, "V_m")
    net.record_state(neurons, "V_m")
    result = net.simulate(T_SIM)
    weights = net.connections()["weight"]
    return result, sources, cells, neurons, weights


def test_defaults_are_nests(nest_run):
    for model in ("tsodyks_synapse", "tsodyks2_synapse"):
        assert SYNAPSE_TYPES[model]["defaults"] == nest_run["defaults"][model], model


def _emission_steps(result, sources, source: int) -> np.ndarray:
    gids, steps = result.spikes[0], result.spike_steps
    return np.sort(steps[gids == sources.first_gid + source])


def test_delivered_weights_equal_nests(nest_run, spikex_run):
    result, sources, _, _, stored = spikex_run
    delivered = nest_run["delivered"]
    probe, times = np.asarray(delivered["probe"]), np.asarray(delivered["times"])
    theirs_all = np.asarray(delivered["weights"])
    v = result.states[0]["values"]  # steps x probes
    for k, (rule, source, delay) in enumerate(probes()):
        emitted = _emission_steps(result, sources, source)
        assert emitted.size == len(spike_times()[source]) >= 50
        arrival = emitted + round(delay / DT)
        mine = v[arrival, k]
        theirs = theirs_all[probe == k][np.argsort(times[probe == k], kind="stable")]
        assert theirs.size == mine.size, rule
        differing = np.flatnonzero(mine != theirs)
        assert differing.size == 0, (
            f"{rule}, source {source}: {differing.size} of {mine.size} weights differ, the first at spike "
            f"{differing[0]}: {mine[differing[0]]!r} != {theirs[differing[0]]!r}"
        )
        assert np.count_nonzero(v[:, k]) == mine.size  # nothing else arrived
        # The factors move: no parameter set leaves the weights as they are.
        assert np.ptp(theirs) > 0.1 * np.max(np.abs(theirs)), rule
    # The stored weights stay as connected.
    expected = [RULES[rule][2] for rule, *_ in probes()] + [
        RULES[rule][3] for rule, *_ in neuron_connections()
    ]
    assert sorted(np.asarray(stored).tolist()) == sorted(expected)


def test_traces_agree_with_nest(nest_run, spikex_run):
    result, _, cells, neurons, _ = spikex_run
    trace = nest_run["trace"]
    times, senders, values = (np.asarray(trace[k]) for k in ("times", "senders", "V_m"))
    for state, first, count in ((result.states[0], trace["first_probe"], cells.size),
                                (result.states[1], trace["first_neuron"], neurons.size)):  # fmt: skip
        for k in range(count):
            mask = senders == first + k
            steps = np.rint(times[mask] / DT).astype(int) - 1  # NEST's (n + 1)·dt is step n
            assert steps.size == round(T_SIM / DT) - 1
            if first == trace["first_probe"]:
                np.testing.assert_array_equal(state["values"][steps, k], values[mask])
            else:
                scale = np.max(np.abs(values[mask]))
                np.testing.assert_allclose(
                    state["values"][steps, k], values[mask], rtol=0, atol=1e-12 * scale
                )


def test_spikes_identical_to_nest(nest_run, spikex_run):
    result, _, _, neurons, _ = spikex_run
    gids, steps = result.spikes[0], result.spike_steps
    fired = (gids >= neurons.first_gid) & (gids < neurons.first_gid + neurons.size)
    mine = sorted(zip((gids[fired] - neurons.first_gid).tolist(), steps[fired].tolist()))
    stamps = (np.rint(np.asarray(nest_run["spikes"]["times"]) / DT) - 1).astype(int)
    theirs = sorted(zip(nest_run["spikes"]["cells"], stamps.tolist()))
    assert len(theirs) > 100
    assert {cell for cell, _ in theirs} == set(range(len(NEURONS)))
    assert mine == theirs
