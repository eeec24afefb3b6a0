"""PyNN's SpikeSourceGamma and SpikeSourcePoissonRefractory on spikex.pynn: pyNN.nest's
translations (gamma_shape = alpha, rate = beta / alpha; dead_time = tau_refrac) read back
in PyNN's units, start and duration as the window, the laws (PyNN's own scenarios:
tests/pynn/, test_cell_types::test_SpikeSourceGamma and test_SpikeSourcePoissonRefractory)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyNN")
import spikex.pynn as sim


def _trains(population):
    return [np.asarray(t.magnitude) for t in population.get_data().segments[-1].spiketrains]


def test_spike_source_gamma_translates_as_pynn_nest_and_keeps_its_window():
    sim.setup(timestep=0.1, min_delay=0.1)
    sources = sim.Population(
        2, sim.SpikeSourceGamma(alpha=[2, 5], beta=[200.0, 250.0], start=100.0, duration=2000.0)
    )
    sources.record("spikes")
    assert sources.get("beta") == pytest.approx([200.0, 250.0])
    assert sources.get("alpha") == pytest.approx([2, 5])
    assert sources._native["gamma_shape"] == pytest.approx([2, 5])
    assert sources._native["rate"] == pytest.approx([100.0, 50.0])
    sim.run(2500.0)
    trains = _trains(sources)
    sim.end()
    for train, rate, shape in zip(trains, (100.0, 50.0), (2, 5)):
        assert train.min() > 100.0 and train.max() <= 2100.0
        assert train.size == pytest.approx(2.0 * rate, abs=5 * np.sqrt(2.0 * rate / shape))
        isi = np.diff(train)
        assert np.std(isi) / np.mean(isi) == pytest.approx(1 / np.sqrt(shape), abs=0.15)


def test_spike_source_poisson_refractory_keeps_its_dead_time():
    sim.setup(timestep=0.1, min_delay=0.1)
    sources = sim.Population(
        3, sim.SpikeSourcePoissonRefractory(rate=[50.0, 80.0, 100.0], tau_refrac=[0.0, 4.0, 8.0])
    )
    sources.record("spikes")
    assert sources.get("tau_refrac") == pytest.approx([0.0, 4.0, 8.0])
    sim.run(3000.0)
    trains = _trains(sources)
    sim.end()
    for train, rate, dead in zip(trains, (50.0, 80.0, 100.0), (0.0, 4.0, 8.0)):
        assert np.diff(train).min() >= dead + 0.1 - 1e-9  # D + 1 steps
        assert train.size == pytest.approx(3.0 * rate, abs=5 * np.sqrt(3.0 * rate))
