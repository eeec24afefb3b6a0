"""Connectors with a NativeRNG are spikex's own rules (spikex.pynn.native_rules): the
connections are those spikex's rule draws, readable before and after a run, with
weights and delays from NativeRNG distributions; what has no rule is refused by name."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyNN")
import spikex as sx
import spikex.pynn as sim
from pyNN.parameters import Sequence


def _populations():
    sim.setup(timestep=0.1, min_delay=0.1, seed=9)
    pre = sim.Population(30, sim.SpikeSourcePoisson(rate=20.0))
    post = sim.Population(20, sim.IF_curr_exp())
    return pre, post


def test_fixed_probability_is_spikexs_pairwise_bernoulli():
    pre, post = _populations()
    native = sim.NativeRNG()
    weight = sim.RandomDistribution("uniform", low=0.1, high=0.3, rng=native)
    projection = sim.Projection(pre, post, sim.FixedProbabilityConnector(0.2, rng=native),
                                sim.StaticSynapse(weight=weight, delay=1.0), receptor_type="excitatory")  # fmt: skip
    pairs = sorted(zip(projection._pre_index.tolist(), projection._post_index.tolist()))
    weights = np.array(projection.get("weight", format="list"))[:, 2]
    assert 60 < len(projection) < 180
    assert np.all((weights >= 0.1) & (weights < 0.3)) and np.unique(weights).size == weights.size
    sim.end()
    # The same rule through spikex's own API (weights in pA) draws the same connections.
    net = sx.Network(dt_ms=0.1, seed=9, distribution="round_robin")
    a = net.create("spike_source_poisson", 30, params={"rate": 20.0})
    b = net.create("iaf_psc_exp", 20)
    net.connect_rule("pairwise_bernoulli", a, b, probability=0.2, weight=sx.uniform(100.0, 300.0), delay_ms=1.0,
                     allow_autapses=True)  # fmt: skip
    c = net.connections()
    assert (
        sorted(zip((c["source"] - a.first_gid).tolist(), (c["target"] - b.first_gid).tolist()))
        == pairs
    )
    assert np.allclose(np.sort(c["weight"]) / 1000.0, np.sort(weights))


def test_fixed_number_pre_draws_exactly_n_inputs_and_survives_a_run_and_set():
    pre, post = _populations()
    projection = sim.Projection(pre, post, sim.FixedNumberPreConnector(4, rng=sim.NativeRNG()),
                                sim.StaticSynapse(weight=0.5, delay=1.5))  # fmt: skip
    post.record("spikes")
    assert np.bincount(projection._post_index, minlength=20).tolist() == [4] * 20
    before = sorted(map(tuple, projection.get("weight", format="list")))
    sim.run(50.0)
    assert sorted(map(tuple, projection.get("weight", format="list"))) == before
    sim.reset()
    projection.set(weight=0.25)  # the drawn connections become explicit arrays
    sim.run(50.0)
    after = sorted(map(tuple, projection.get("weight", format="list")))
    assert [row[:2] for row in after] == [row[:2] for row in before]
    assert {row[2] for row in after} == {0.25}
    sim.end()


def test_what_has_no_native_rule_is_refused_by_name():
    pre, post = _populations()
    native = sim.NativeRNG()
    with pytest.raises(
        NotImplementedError, match="DistanceDependentProbabilityConnector with a NativeRNG has no"
    ):
        sim.Projection(
            pre,
            post,
            sim.DistanceDependentProbabilityConnector("d < 2", rng=native),
            sim.StaticSynapse(),
        )
    with pytest.raises(NotImplementedError, match="consecutive ids"):
        sim.Projection(
            pre[[0, 2, 4]],
            post,
            sim.FixedProbabilityConnector(0.5, rng=native),
            sim.StaticSynapse(),
        )
    numpy_weights = sim.RandomDistribution("uniform", low=0.1, high=0.3, rng=sim.NumpyRNG(seed=1))
    with pytest.raises(NotImplementedError, match="give both a NativeRNG"):
        sim.Projection(
            pre,
            post,
            sim.FixedProbabilityConnector(0.5, rng=native),
            sim.StaticSynapse(weight=numpy_weights),
        )
    gamma = sim.RandomDistribution("gamma", k=2.0, theta=0.1, rng=native)
    with pytest.raises(
        NotImplementedError, match=r"RandomDistribution\('gamma'\) with a NativeRNG"
    ):
        sim.Projection(pre, post, sim.FixedProbabilityConnector(0.5, rng=native), sim.StaticSynapse(weight=gamma),
                       receptor_type="excitatory")  # fmt: skip
    sim.end()


def test_a_connector_given_no_rng_is_drawn_by_spikex_when_it_can_be():
    pre, post = _populations()
    default = sim.Projection(
        pre, post, sim.FixedProbabilityConnector(0.2), sim.StaticSynapse(weight=0.1)
    )
    assert default._rule is not None
    # Weights spikex cannot draw: PyNN's implementation with PyNN's default NumpyRNG.
    numpy_weights = sim.RandomDistribution("uniform", low=0.1, high=0.3, rng=sim.NumpyRNG(seed=1))
    fallback = sim.Projection(
        pre, post, sim.FixedProbabilityConnector(0.2), sim.StaticSynapse(weight=numpy_weights)
    )
    assert fallback._rule is None and len(fallback) > 0
    # Between the same cells as a rule projection: PyNN's implementation too, so that
    # each projection keeps telling its own connections.
    again = sim.Projection(
        pre, post, sim.FixedProbabilityConnector(0.2), sim.StaticSynapse(weight=0.1)
    )
    assert again._rule is None
    sim.run(1.0)
    weights = np.array(default.get("weight", format="list"))[:, 2]
    assert set(weights) == {0.1} and len(default) == weights.size > 0
    assert sorted(np.array(fallback.get("weight", format="list"))[:, 2]) == sorted(
        fallback._weights / 1000.0
    )
    sim.end()


def test_two_native_projections_between_the_same_cells_are_refused_when_asked_for():
    pre, post = _populations()
    first = sim.Projection(
        pre, post, sim.FixedProbabilityConnector(0.2, rng=sim.NativeRNG()), sim.StaticSynapse()
    )
    sim.Projection(
        pre, post, sim.FixedProbabilityConnector(0.3, rng=sim.NativeRNG()), sim.StaticSynapse()
    )
    post.record("spikes")
    sim.run(5.0)  # the network runs
    with pytest.raises(NotImplementedError, match="cannot be told apart"):
        first.get("weight", format="list")
    sim.end()


def test_a_positive_weight_on_an_inhibitory_current_receptor_is_refused_as_pynn_does():
    pre, post = _populations()
    with pytest.raises(Exception, match="[Ww]eights must be negative"):
        sim.Projection(pre, post, sim.FixedProbabilityConnector(0.2), sim.StaticSynapse(weight=0.1),
                       receptor_type="inhibitory")  # fmt: skip
    sim.end()


# Inhibitory conductances: PyNN's weights are positive (PyNN's sign check), spikex's
# conductance models take them negative. A connector drawn by spikex's rule must hand
# PyNN's check PyNN's weight and spikex the negative one, as the explicit path does.
_NATIVE_CONNECTORS = {
    "FixedProbabilityConnector": lambda rng: sim.FixedProbabilityConnector(0.4, rng=rng),
    "FixedNumberPreConnector": lambda rng: sim.FixedNumberPreConnector(3, rng=rng),
    "FixedNumberPostConnector": lambda rng: sim.FixedNumberPostConnector(2, rng=rng),
    "FixedTotalNumberConnector": lambda rng: sim.FixedTotalNumberConnector(15, rng=rng),
}
_WEIGHTS = {"excitatory": 0.004, "inhibitory": 0.02}  # uS


def _conductance_network(connectors):
    """Two spike-train sources onto IF_cond_exp cells, excitatory and inhibitory by
    `connectors` (receptor type -> connector); returns the cells and the projections."""
    sim.setup(timestep=0.1, min_delay=0.1, seed=3)
    times = {
        "excitatory": [[2.0 + 1.5 * i + 0.3 * k for k in range(40)] for i in range(8)],
        "inhibitory": [[20.0 + 2.0 * i + 1.1 * k for k in range(20)] for i in range(8)],
    }
    sources = {
        kind: sim.Population(8, sim.SpikeSourceArray(spike_times=[Sequence(t) for t in trains]))
        for kind, trains in times.items()
    }
    cells = sim.Population(6, sim.IF_cond_exp(i_offset=0.3))
    cells.record(["spikes", "v"])
    projections = {
        kind: sim.Projection(
            sources[kind],
            cells,
            connector,
            sim.StaticSynapse(weight=_WEIGHTS[kind], delay=1.0),
            receptor_type=kind,
        )
        for kind, connector in connectors.items()
    }
    return cells, projections


def _recorded(cells):
    segment = cells.get_data().segments[0]
    spikes = [np.asarray(train.magnitude).tolist() for train in segment.spiketrains]
    return spikes, np.asarray(segment.filter(name="v")[0].magnitude)


@pytest.mark.parametrize(
    ("connector", "rng"),
    # one connector in the fast tests, the others (about 1 s each) with the slow ones
    [
        pytest.param(name, "NativeRNG", marks=() if name == "FixedProbabilityConnector" else pytest.mark.slow)
        for name in _NATIVE_CONNECTORS
    ]
    + [("FixedProbabilityConnector", "none")],
)
def test_inhibitory_conductance_weights_are_positive_in_pynn_and_negative_in_spikex(connector, rng):
    make = _NATIVE_CONNECTORS[connector]
    connectors = {kind: make(sim.NativeRNG() if rng == "NativeRNG" else None) for kind in _WEIGHTS}
    cells, projections = _conductance_network(connectors)
    assert all(p._rule is not None for p in projections.values())  # drawn by spikex's rule
    sim.run(100.0)
    drawn = {kind: p.get(["weight", "delay"], format="list") for kind, p in projections.items()}
    for kind, rows in drawn.items():
        weights = np.array(rows)[:, 2]
        assert len(rows) > 0 and np.allclose(weights, _WEIGHTS[kind])  # positive, as given
    net = sim.simulator.state.network
    c = net.connections()
    inh = np.isin(c["source"], np.asarray(projections["inhibitory"].pre.all_cells, dtype=np.int64))
    assert inh.sum() == len(drawn["inhibitory"]) and len(c["weight"]) == inh.size
    assert np.allclose(c["weight"][inh], -1000.0 * _WEIGHTS["inhibitory"])  # nS, negative
    assert np.allclose(c["weight"][~inh], 1000.0 * _WEIGHTS["excitatory"])
    native_spikes, native_v = _recorded(cells)
    sim.end()

    # The same connections as explicit lists (PyNN's connectors, spikex's explicit path).
    lists = {
        kind: sim.FromListConnector(rows, column_names=["weight", "delay"])
        for kind, rows in drawn.items()
    }
    cells, projections = _conductance_network(lists)
    assert all(p._rule is None for p in projections.values())
    sim.run(100.0)
    c = sim.simulator.state.network.connections()
    assert sorted(c["weight"].tolist()) == sorted(
        [-1000.0 * _WEIGHTS["inhibitory"]] * len(drawn["inhibitory"])
        + [1000.0 * _WEIGHTS["excitatory"]] * len(drawn["excitatory"])
    )
    list_spikes, list_v = _recorded(cells)
    sim.end()
    assert native_spikes == list_spikes and sum(map(len, list_spikes)) > 0
    assert np.array_equal(native_v, list_v)

    if rng == "none":
        return
    # The inhibition acts: without it the cells fire more.
    excitation = sim.FromListConnector(drawn["excitatory"], column_names=["weight", "delay"])
    cells, _ = _conductance_network({"excitatory": excitation})
    sim.run(100.0)
    excitation_only, _ = _recorded(cells)
    sim.end()
    assert sum(map(len, excitation_only)) > sum(map(len, native_spikes))


def test_native_inhibitory_conductance_weight_distributions_are_negated():
    pre, _ = _populations()
    cells = sim.Population(10, sim.IF_cond_exp())
    native = sim.NativeRNG()
    uniform = sim.RandomDistribution("uniform", low=0.01, high=0.03, rng=native)
    projection = sim.Projection(pre, cells, sim.FixedProbabilityConnector(0.5, rng=native),
                                sim.StaticSynapse(weight=uniform, delay=1.0), receptor_type="inhibitory")  # fmt: skip
    weights = np.array(projection.get("weight", format="list"))[:, 2]
    assert len(weights) > 0 and np.all((weights >= 0.01) & (weights < 0.03))
    c = sim.simulator.state.network.connections()
    assert np.all((c["weight"] > -30.0) & (c["weight"] <= -10.0))
    sim.end()
    pre, _ = _populations()
    cells = sim.Population(10, sim.IF_cond_exp())
    exponential = sim.RandomDistribution("exponential", beta=0.01, rng=native)
    with pytest.raises(NotImplementedError, match="inhibitory conductance receptor"):
        sim.Projection(pre, cells, sim.FixedProbabilityConnector(0.5, rng=native),
                       sim.StaticSynapse(weight=exponential), receptor_type="inhibitory")  # fmt: skip
    sim.end()
