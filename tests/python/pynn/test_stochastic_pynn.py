"""spikex.pynn's SimpleStochasticSynapse, MultiQuantalSynapse and
StochasticTsodyksMarkramSynapse: pyNN.nest's translations into bernoulli_synapse,
quantal_stp_synapse and stochastic_stp_synapse, Projection.initialize of the initial a and
u, and one value per projection (per-connection values refused by name; PyNN 0.13's
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
    assert bbp._synapse_params == {"U": 0.2, "tau_rec": 50.0, "tau_fac": 0.0}  # PyNN's tau_facil = 0
    quantal.initialize(a=4, u=0.3)
    assert quantal._synapse_params["a"] == 4.0 and quantal._synapse_params["u"] == 0.3
    with pytest.raises(sim.errors.NonExistentParameterError):
        quantal.initialize(x=0.5)
    sim.run(20.0)  # the network builds and runs with them
    sim.end()


def test_values_per_connection_are_refused_by_name():
    source, cells = _pair()
    varying = sim.SimpleStochasticSynapse(p=RandomDistribution("uniform", (0.1, 0.9)), weight=0.01)
    with pytest.raises(
        NotImplementedError, match="SimpleStochasticSynapse parameter p_transmit differs"
    ):
        sim.Projection(source, cells, sim.AllToAllConnector(), varying)
    varying = sim.MultiQuantalSynapse(n=3, U=RandomDistribution("uniform", (0.1, 0.9)), weight=0.01)
    with pytest.raises(NotImplementedError, match="MultiQuantalSynapse parameter U differs"):
        sim.Projection(source, cells, sim.AllToAllConnector(), varying)
    sim.end()
