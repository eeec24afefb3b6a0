"""The step loop's threads (docs/dev/architecture.md, "threads"): the same spikes for any
thread count on both paths of the loop — parts running a whole sub-interval per round
(nothing plastic, no state recording) and a round per step (state recorded, or STDP) —
and the summary's split of the loop's compute time between the team and one thread alone.
"""

from __future__ import annotations

import pytest

import spikex as sx


def brunel(threads: int, record_state: bool = False, stdp: bool = False) -> sx.Result:
    """A small Brunel-style network (delays 0.5-2 ms: 5-step sub-intervals) with its own
    Poisson drive; optionally V_m recorded or the excitatory synapses plastic."""
    net = sx.Network(dt_ms=0.1, seed=7, threads=threads)
    exc = net.create("iaf_psc_exp", 400, params={"V_m": sx.uniform(-70.0, -50.0)}, name="E")
    inh = net.create("iaf_psc_exp", 100, params={"V_m": sx.uniform(-70.0, -50.0)}, name="I")
    cells = sx.Population(exc.first_gid, 500, "iaf_psc_exp")
    drive = net.create("poisson_generator", 1, params={"rate": 12000.0})
    excitatory = {"synapse": "stdp_synapse", "synapse_params": {"lambda": 0.01}} if stdp else {}
    net.connect_rule("pairwise_bernoulli", exc, cells, probability=0.1, weight=90.0,
                     delay_ms=sx.uniform(0.5, 2.0), **excitatory)  # fmt: skip
    net.connect_rule("pairwise_bernoulli", inh, cells, probability=0.1, weight=-450.0, delay_ms=sx.uniform(0.5, 2.0))
    net.connect_rule("all_to_all", drive, cells, weight=90.0, delay_ms=0.1)
    net.record_spikes(cells)
    if record_state:
        net.record_state(sx.Population(exc.first_gid, 20, "iaf_psc_exp"), "V_m")
    return net.simulate(300.0)


@pytest.mark.parametrize("variant", [{}, {"record_state": True}, {"stdp": True}], ids=["freely", "state", "stdp"])
def test_the_same_spikes_on_one_two_and_three_threads(variant):
    results = [brunel(threads, **variant) for threads in (1, 2, 3)]
    assert results[0].summary["spikes_total"] > 500  # the network is active
    assert {r.summary["spikes_sha256"] for r in results} == {results[0].summary["spikes_sha256"]}
    if variant.get("record_state"):
        values = [r.states[0]["values"] for r in results]
        assert all((v == values[0]).all() for v in values)


def test_the_summary_splits_compute_between_the_team_and_one_thread():
    time_s = brunel(2).summary["time_s"]
    assert time_s["compute_team"] + time_s["compute_alone"] == pytest.approx(time_s["compute"], rel=1e-9)
    assert time_s["compute_team"] > 0 and time_s["compute_alone"] > 0  # the pacer tries both ways first
    one = brunel(1).summary["time_s"]
    assert one["compute_team"] == 0 and one["compute_alone"] == 0
