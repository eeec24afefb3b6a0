"""spikex.pynn: PyNN scripts on spikex (PyNN's own scenarios run in tests/pynn/)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyNN")
import spikex.pynn as sim  # noqa: E402


def _network(weight=0.5, seed=3):
    sim.setup(timestep=0.1, min_delay=0.1, seed=seed)
    sources = sim.Population(20, sim.SpikeSourcePoisson(rate=50.0, start=10.0, duration=300.0), label="src")
    cells = sim.Population(10, sim.IF_curr_exp(i_offset=0.2, tau_m=10.0), label="cells")
    connector = sim.FixedProbabilityConnector(0.5, rng=sim.NumpyRNG(seed=1))
    projection = sim.Projection(sources, cells, connector, sim.StaticSynapse(weight=weight, delay=1.0))
    cells.record(["spikes", "v"])
    return sources, cells, projection


def _trains(population):
    return [np.asarray(train.magnitude) for train in population.get_data().segments[-1].spiketrains]


def test_reset_runs_the_same_network_again():
    _, cells, _ = _network()
    sim.run(200.0)
    first = _trains(cells)
    assert sum(t.size for t in first) > 0
    sim.reset()
    sim.run(200.0)
    again = _trains(cells)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    sim.end()


def test_spikes_on_nests_grid_and_v_sampled_from_time_zero():
    _, cells, _ = _network()
    sim.run(100.0)
    segment = cells.get_data().segments[0]
    for train in segment.spiketrains:
        steps = np.asarray(train.magnitude) / 0.1
        assert np.allclose(steps, np.round(steps)) and np.all(steps >= 1)
    v = segment.analogsignals[0]
    assert v.shape == (1001, 10)  # t = 0, 0.1, ..., 100 ms
    assert np.allclose(v.magnitude[0], -65.0)  # PyNN's default initial v
    sim.end()


def test_weights_and_delays_round_trip_in_pynn_units():
    _, cells, projection = _network(weight=0.25)
    weights = np.array(projection.get("weight", format="list"))
    assert weights.shape[1] == 3 and np.allclose(weights[:, 2], 0.25)
    projection.set(weight=0.75)
    assert np.allclose(np.array(projection.get("weight", format="list"))[:, 2], 0.75)
    assert np.allclose(np.array(projection.get("delay", format="list"))[:, 2], 1.0)
    sim.end()


def test_stronger_weights_make_more_spikes():
    _, weak, _ = _network(weight=0.1)
    sim.run(300.0)
    n_weak = sum(t.size for t in _trains(weak))
    _, strong, _ = _network(weight=2.0)
    sim.run(300.0)
    assert sum(t.size for t in _trains(strong)) > n_weak
    sim.end()


def test_changes_after_run_are_refused_by_name():
    _, cells, _ = _network()
    sim.run(10.0)
    with pytest.raises(NotImplementedError, match="changing parameters after run"):
        cells.set(tau_m=12.0)
    sim.end()


def test_unsupported_models_are_refused_by_name():
    sim.setup()
    with pytest.raises(NotImplementedError, match="IF_cond_exp is not supported"):
        sim.IF_cond_exp()
    sim.end()


def test_dc_source_drives_the_cells():
    sim.setup(timestep=0.1)
    cells = sim.Population(2, sim.IF_curr_alpha())
    cells.record("v")
    sim.DCSource(amplitude=0.5, start=20.0, stop=80.0).inject_into(cells[0:1])
    sim.run(100.0)
    v = cells.get_data().segments[0].analogsignals[0].magnitude
    assert np.allclose(v[:, 1], -65.0)  # no current, at rest (v_rest = -65 mV)
    assert np.allclose(v[:201, 0], -65.0)  # before start (t <= 20 ms)
    assert v[500, 0] > -60.0  # 0.5 nA into 1 nF with tau_m 20 ms: +10 mV at rest
    sim.end()
