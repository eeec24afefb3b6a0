"""spikex.pynn's SimpleStochasticSynapse, MultiQuantalSynapse and
StochasticTsodyksMarkramSynapse: pyNN.nest's translations into bernoulli_synapse,
quantal_stp_synapse and stochastic_stp_synapse, Projection.initialize of the initial a and
u, and parameters per connection (one spikex synapse type per distinct value; PyNN 0.13's
Projection.initialize takes no per-connection values on any backend). Their statistics
against pyNN.nest: tests/python/nest_validation/test_pynn_stochastic.py."""

from __future__ import annotations

import pytest

pytest.importorskip("pyNN")
import spikex.pynn as sim
from pyNN.random import RandomDistribution


def _pair():
    sim.setup(timestep=0.1, min_delay=0.1)
    source = sim.Population(1, sim.SpikeSourceArray(spike_times=[5.0, 15.0]))
    cells = sim.Population(4, sim.IF_cond_exp())
    return source, cells


def test_translations_and_initial_values():
    source, cells = _pair()
    stochastic = sim.Projection(
        source, cells, sim.AllToAllConnector(), sim.SimpleStochasticSynapse(p=0.25, weight=0.01)
    )
    quantal = sim.Projection(source, cells, sim.AllToAllConnector(),
                             sim.MultiQuantalSynapse(U=0.3, n=4, tau_rec=70.0, tau_facil=20.0, weight=0.01))  # fmt: skip
    assert (stochastic._synapse, stochastic._synapse_params) == (
        "bernoulli_synapse",
        {"p_transmit": 0.25},
    )
    assert quantal._synapse == "quantal_stp_synapse"
    assert quantal._synapse_params == {"U": 0.3, "n": 4.0, "tau_rec": 70.0, "tau_fac": 20.0}
    bbp = sim.Projection(source, cells, sim.AllToAllConnector(),
                         sim.StochasticTsodyksMarkramSynapse(U=0.2, tau_rec=50.0, weight=0.01))  # fmt: skip
    assert bbp._synapse == "stochastic_stp_synapse"
    assert bbp._synapse_params == {
        "U": 0.2,
        "tau_rec": 50.0,
        "tau_fac": 0.0,
    }  # PyNN's tau_facil = 0
    quantal.initialize(a=4, u=0.3)
    assert quantal._synapse_params["a"] == 4.0 and quantal._synapse_params["u"] == 0.3
    with pytest.raises(sim.errors.NonExistentParameterError):
        quantal.initialize(x=0.5)
    sim.run(20.0)  # the network builds and runs with them
    sim.end()


def test_values_per_connection_become_one_synapse_type_each():
    # p per connection (PyNN's own scenario test_simple_stochastic_synapse does so): the
    # network gets one bernoulli_synapse type per distinct value; get() gives them back.
    sim.setup(timestep=0.1, min_delay=0.1)
    source = sim.Population(
        1, sim.SpikeSourceArray(spike_times=[5.0 + 2.0 * k for k in range(100)])
    )
    cells = sim.Population(4, sim.IF_cond_exp())
    cells.record("gsyn_exc")
    p = [[0.0, 0.5, 0.5, 1.0]]
    synapse = sim.SimpleStochasticSynapse(p=p, weight=0.01)
    projection = sim.Projection(source, cells, sim.AllToAllConnector(), synapse)
    assert projection.get("p", format="array").tolist() == p
    sim.run(210.0)
    types = sim.simulator.state.network.synapse_types()
    values = sorted(t["params"]["p_transmit"] for t in types if t["name"] == "bernoulli_synapse")
    assert values == [0.0, 0.5, 1.0]
    g = cells.get_data().segments[0].filter(name="gsyn_exc")[0].magnitude
    assert g[:, 0].max() == 0.0 and g[:, 3].max() > 0.0
    assert not (g[:, 1] == g[:, 2]).all()  # the two p = 0.5 connections draw independently
    sim.end()


def test_values_per_connection_with_a_native_rng_are_refused_by_name():
    source, cells = _pair()
    varying = sim.MultiQuantalSynapse(n=3, U=RandomDistribution("uniform", (0.1, 0.9)), weight=0.01)
    connector = sim.FixedProbabilityConnector(0.5, rng=sim.NativeRNG(seed=2))
    message = r"MultiQuantalSynapse parameters per connection \(U\) with a NativeRNG"
    with pytest.raises(NotImplementedError, match=message):
        sim.Projection(source, cells, connector, varying)
    sim.end()
