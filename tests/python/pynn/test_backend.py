"""spikex.pynn: PyNN scripts on spikex (PyNN's own scenarios run in tests/pynn/)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyNN")
import spikex.pynn as sim


def _network(weight=0.5, seed=3):
    sim.setup(timestep=0.1, min_delay=0.1, seed=seed)
    sources = sim.Population(
        20, sim.SpikeSourcePoisson(rate=50.0, start=10.0, duration=300.0), label="src"
    )
    cells = sim.Population(10, sim.IF_curr_exp(i_offset=0.2, tau_m=10.0), label="cells")
    connector = sim.FixedProbabilityConnector(0.5, rng=sim.NumpyRNG(seed=1))
    projection = sim.Projection(
        sources, cells, connector, sim.StaticSynapse(weight=weight, delay=1.0)
    )
    cells.record(["spikes", "v"])
    return sources, cells, projection


def _trains(population):
    return [np.asarray(train.magnitude) for train in population.get_data().segments[-1].spiketrains]


@pytest.mark.slow
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


def test_structure_changes_after_run_are_refused_by_name():
    _, cells, _ = _network()
    sim.run(10.0)
    with pytest.raises(NotImplementedError, match="creating a Population after run"):
        sim.Population(2, sim.IF_curr_exp())
    sim.end()


def _driven(callbacks: bool):
    """Two cells; cell 0 gets i_offset = 1 nA at 10 ms, set between runs or by a callback,
    and a DCSource steps up at 20 ms."""
    sim.setup(timestep=0.1)
    cells = sim.Population(2, sim.IF_curr_exp(), initial_values={"v": -65.0})
    cells.record("v")
    source = sim.DCSource(amplitude=0.0)
    source.inject_into(cells[1:2])

    def every_10_ms(t):  # PyNN calls it at 0 ms and then when it asks to be called
        if abs(t - 10.0) < 1e-9:
            cells[0:1].set(i_offset=1.0)
        if abs(t - 20.0) < 1e-9:
            source.amplitude = 2.0
        return t + 10.0

    if callbacks:
        sim.run(40.0, callbacks=[every_10_ms])
    else:
        for _ in range(4):
            every_10_ms(sim.get_current_time())
            sim.run(10.0)
    v = cells.get_data().segments[0].analogsignals[0].magnitude.copy()
    sim.end()
    return v


def test_parameter_and_source_changes_after_run_apply_from_then_on():
    v = _driven(callbacks=False)
    assert np.all(v[:101, 0] == -65.0) and v[102, 0] > -65.0  # i_offset from 10 ms on
    assert np.all(v[:202, 1] == -65.0) and v[205, 1] > -65.0  # the source from 20 ms on
    assert np.array_equal(v, _driven(callbacks=True))  # PyNN's callbacks: the same


def test_unsupported_models_are_refused_by_name():
    sim.setup()
    with pytest.raises(NotImplementedError, match="IF_facets_hardware1 is not supported"):
        sim.IF_facets_hardware1()
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


def _stdp(weight_dependence=None, tau_minus=20.0, **rule):
    rule = {"tau_plus": 20.0, "A_plus": 0.05, "A_minus": 0.06, **rule}
    return sim.STDPMechanism(
        timing_dependence=sim.SpikePairRule(tau_minus=tau_minus, **rule),
        weight_dependence=weight_dependence or sim.AdditiveWeightDependence(w_min=0.0, w_max=1.0),
        weight=0.5, delay=1.0,
    )  # fmt: skip


def test_stdp_weights_move_during_a_run_and_reset_restores_them():
    sim.setup(timestep=0.1, min_delay=0.1, seed=2)
    sources = sim.Population(10, sim.SpikeSourcePoisson(rate=40.0))
    cells = sim.Population(4, sim.IF_curr_exp(i_offset=0.6, tau_m=10.0))
    projection = sim.Projection(sources, cells, sim.AllToAllConnector(), _stdp(tau_minus=30.0))
    initial = projection.get("weight", format="array")
    assert np.allclose(initial, 0.5)
    sim.run(500.0)
    learned = projection.get("weight", format="array")
    assert np.abs(learned - initial).max() > 0.05
    assert np.all((learned >= 0.0) & (learned <= 1.0))
    listed = np.array(projection.get("weight", format="list"))
    assert np.array_equal(learned[listed[:, 0].astype(int), listed[:, 1].astype(int)], listed[:, 2])
    sim.reset()
    assert np.allclose(projection.get("weight", format="array"), 0.5)
    sim.run(500.0)
    assert np.array_equal(projection.get("weight", format="array"), learned)  # the same run again
    sim.end()


def test_stdp_tau_minus_is_set_on_the_postsynaptic_cells():
    """The same projection with another tau_minus learns differently: the value reaches
    the neurons' postsynaptic traces."""
    learned = []
    for tau_minus in (10.0, 40.0):
        sim.setup(timestep=0.1, min_delay=0.1, seed=2)
        sources = sim.Population(10, sim.SpikeSourcePoisson(rate=40.0))
        cells = sim.Population(4, sim.IF_curr_exp(i_offset=0.6, tau_m=10.0))
        projection = sim.Projection(
            sources, cells, sim.AllToAllConnector(), _stdp(tau_minus=tau_minus)
        )
        sim.run(300.0)
        learned.append(projection.get("weight", format="array"))
        sim.end()
    assert not np.array_equal(*learned)
    assert learned[0].mean() > learned[1].mean()  # a longer tau_minus depresses more


def test_stdp_variants_nest_cannot_run_are_refused_by_name():
    sim.setup(timestep=0.1, min_delay=0.1)
    with pytest.raises(NotImplementedError, match="w_min = 0.1: only 0"):
        sim.AdditiveWeightDependence(w_min=0.1, w_max=1.0)
    with pytest.raises(NotImplementedError, match="dendritic_delay_fraction = 0.5"):
        sim.STDPMechanism(timing_dependence=sim.SpikePairRule(), weight_dependence=sim.MultiplicativeWeightDependence(),
                          dendritic_delay_fraction=0.5)  # fmt: skip
    sources = sim.Population(3, sim.SpikeSourcePoisson(rate=10.0))
    cells = sim.Population(3, sim.IF_curr_exp())
    sim.Projection(sources, cells, sim.AllToAllConnector(), _stdp(tau_minus=20.0))
    with pytest.raises(
        ValueError, match="tau_minus = 30.0 ms, but cells .* already have tau_minus = 20.0 ms"
    ):
        sim.Projection(sources, cells[0:1], sim.AllToAllConnector(), _stdp(tau_minus=30.0))
    varying = sim.RandomDistribution("uniform", (10.0, 30.0), rng=sim.NumpyRNG(seed=1))
    with pytest.raises(
        NotImplementedError, match="STDP parameter tau_plus .* differs between connections"
    ):
        sim.Projection(sources, cells, sim.AllToAllConnector(), _stdp(tau_plus=varying))
    sim.end()


def test_stdp_weights_beyond_w_max_are_refused():
    sim.setup(timestep=0.1, min_delay=0.1)
    sources = sim.Population(2, sim.SpikeSourcePoisson(rate=10.0))
    cells = sim.Population(2, sim.IF_curr_exp())
    stdp = sim.STDPMechanism(timing_dependence=sim.SpikePairRule(),
                             weight_dependence=sim.AdditiveWeightDependence(w_max=0.2), weight=0.5)  # fmt: skip
    with pytest.raises(
        sim.errors.InvalidWeightError,
        match=r"between 0 and w_max = 0.2; got weights from 0.5 to 0.5",
    ):
        sim.Projection(sources, cells, sim.AllToAllConnector(), stdp)
    # The same weights drawn by spikex's rule are refused when the network is built.
    native = sim.Projection(
        sources, cells, sim.FixedProbabilityConnector(1.0, rng=sim.NativeRNG()), stdp
    )
    assert native._rule is not None
    with pytest.raises(
        ValueError, match=r"stdp_synapse\" needs weights in \[0, 200\], got weights in \[500, 500\]"
    ):
        sim.run(10.0)
    sim.end()


def test_write_sonata_holds_what_get_data_gives(tmp_path):
    import h5py

    _, cells, _ = _network()
    sim.run(200.0)
    sim.write_sonata(tmp_path / "spikes.h5", tmp_path / "state.h5")
    trains = _trains(cells)
    with h5py.File(tmp_path / "spikes.h5", "r") as f:
        group = f["spikes/cells"]
        nodes, times = group["node_ids"][:], group["timestamps"][:]
        assert f["spikes/src/node_ids"].size == 0  # sources were not recorded
    assert nodes.size == sum(t.size for t in trains) > 0
    for k, train in enumerate(trains):
        assert np.allclose(np.sort(times[nodes == k]), train)
    with h5py.File(tmp_path / "state.h5", "r") as f:
        data = f["report/cells/data"][:]
    v = cells.get_data().segments[0].analogsignals[0].magnitude
    assert np.allclose(data, v[1:])  # the report has the sampled steps, get_data adds t = 0
    sim.end()


def test_high_rate_poisson_sources_warn_about_merged_events():
    sim.setup(timestep=0.1)
    fast = sim.Population(3, sim.SpikeSourcePoisson(rate=2000.0), label="fast")
    sim.Population(3, sim.SpikeSourcePoisson(rate=50.0), label="slow")
    fast.record("spikes")
    with pytest.warns(
        UserWarning, match=r"'fast' at 2000 Hz: .* about 9.4 % of the events"
    ) as caught:
        sim.run(100.0)
    assert not any("'slow'" in str(w.message) for w in caught)
    # The loss is real: fewer spikes than the rate's 200 per cell, by about a tenth.
    count = sum(len(t) for t in fast.get_data().segments[0].spiketrains) / 3
    assert 150 < count < 195
    sim.end()


@pytest.mark.parametrize("record_sources", [False, True])
def test_one_to_one_poisson_background_passes_every_event(record_sources):
    """A SpikeSourcePoisson population whose cells each feed one target (and is not
    recorded) is drawn as spikex's poisson_generator: every event reaches the target, so
    the mean depolarisation is rate x w x tau_m. Recorded, it stays one train per cell,
    whose merged events at 5 kHz (0.5 per step) lose 21 %, with a warning."""
    sim.setup(timestep=0.1, seed=4)
    noise = sim.Population(20, sim.SpikeSourcePoisson(rate=5000.0))
    cells = sim.Population(20, sim.IF_curr_delta(v_thresh=100.0, v_rest=-65.0, tau_m=20.0))
    sim.Projection(noise, cells, sim.OneToOneConnector(), sim.StaticSynapse(weight=0.01, delay=0.1))
    cells.record("v")
    if record_sources:
        noise.record("spikes")
        with pytest.warns(UserWarning, match="about 21.3 % of the events"):
            sim.run(500.0)
    else:
        sim.run(500.0)
    v = cells.get_data().segments[0].analogsignals[0].magnitude
    depolarisation = v[2000:].mean() + 65.0  # after 5 tau_m
    expected = 5000.0 * 0.01 * 20.0 / 1000.0  # 1 mV
    if record_sources:
        assert 0.75 < depolarisation < 0.83  # 1 - (1 - e^-0.5) / 0.5 = 21 % lost
    else:
        assert abs(depolarisation - expected) < 0.02
    sim.end()


def test_pynn_nests_rng_seed_is_the_seed():
    def trains(**seed):
        sim.setup(timestep=0.1, **seed)
        noise = sim.Population(5, sim.SpikeSourcePoisson(rate=100.0))
        noise.record("spikes")
        sim.run(100.0)
        result = _trains(noise)
        sim.end()
        return result

    same = [np.array_equal(a, b) for a, b in zip(trains(seed=7), trains(rng_seed=7))]
    other = [np.array_equal(a, b) for a, b in zip(trains(seed=7), trains(rng_seed=8))]
    assert all(same) and not any(other)
    with pytest.raises(sim.errors.InvalidParameterValueError, match="give one seed"):
        sim.setup(seed=1, rng_seed=2)


def test_delays_are_reported_as_simulated_whole_steps():
    """0.25 ms at dt = 0.1 ms is simulated as 3 steps (NEST's rounding: halves up) and
    reported as 0.3 ms, for connector-drawn, set() and spikex-drawn (rule) projections."""
    sim.setup(timestep=0.1, min_delay=0.1, seed=2)
    source = sim.Population(3, sim.SpikeSourceArray(spike_times=[5.0]), label="src")
    cells = sim.Population(3, sim.IF_curr_delta(), label="cells")
    same = sim.Population(3, sim.IF_curr_delta(), label="same")
    listed = sim.Projection(source, cells, sim.OneToOneConnector(),
                            sim.StaticSynapse(weight=1.0, delay=0.25))  # fmt: skip
    exact = sim.Projection(source, same, sim.OneToOneConnector(),
                           sim.StaticSynapse(weight=1.0, delay=0.3))  # fmt: skip
    drawn = sim.Projection(source, cells, sim.AllToAllConnector(),
                           sim.StaticSynapse(weight=0.5, delay=0.35))  # fmt: skip
    assert np.allclose(np.array(listed.get("delay", format="list"))[:, 2], 0.3)
    assert np.allclose(np.array(drawn.get("delay", format="list"))[:, 2], 0.4)
    listed.set(delay=0.14)
    assert np.allclose(np.array(listed.get("delay", format="list"))[:, 2], 0.1)
    listed.set(delay=0.25)
    drawn.set(weight=0.0)
    cells.record("v")
    same.record("v")
    sim.run(10.0)
    # What 0.25 ms does is what 0.3 ms does.
    v = cells.get_data().segments[0].analogsignals[0].magnitude
    v_exact = same.get_data().segments[0].analogsignals[0].magnitude
    assert np.ptp(v) > 0.9
    assert np.array_equal(v, v_exact)
    assert np.allclose(np.unique(sim.simulator.state.network.connections()["delay_ms"]), [0.3, 0.4])
    assert np.allclose(np.array(listed.get("delay", format="list"))[:, 2], 0.3)
    sim.end()
