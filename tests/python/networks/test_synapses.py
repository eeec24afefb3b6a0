"""Synapse types from the registry: every type has its docs page, the Python list is the
C++ registry's, weights outside a type's range are refused naming it, and plastic
weights as a run left them come back from connections() with their type; short-term
synapses scale what they deliver and keep their weights."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import REPO

import spikex as sx
from spikex.models import SYNAPSE_TYPES, SYNAPSES


def test_every_synapse_type_has_its_page_and_defaults():
    assert set(SYNAPSES) == {
        "static",
        "stdp_pl_synapse_hom",
        "stdp_synapse",
        "tsodyks_synapse",
        "tsodyks2_synapse",
        "bernoulli_synapse",
        "quantal_stp_synapse",
        "stochastic_stp_synapse",
    }
    assert SYNAPSES["stdp_synapse"] == {
        "tau_plus": 20.0,
        "lambda": 0.01,
        "alpha": 1.0,
        "mu_plus": 1.0,
        "mu_minus": 1.0,
        "Wmax": 100.0,
    }  # fmt: skip  (NEST 3.10's defaults)
    assert SYNAPSES["tsodyks_synapse"] == {
        "U": 0.5, "tau_psc": 3.0, "tau_fac": 0.0, "tau_rec": 800.0, "x": 1.0, "y": 0.0, "u": 0.0,
    }  # fmt: skip
    assert SYNAPSES["tsodyks2_synapse"] == {
        "U": 0.5,
        "u": 0.5,
        "x": 1.0,
        "tau_rec": 800.0,
        "tau_fac": 0.0,
    }
    for name, entry in SYNAPSE_TYPES.items():
        assert entry["plastic"] == (name != "static")
        if entry["plastic"]:
            page = REPO / "docs" / "models" / entry["docs_page"]
            assert page.exists(), page
            assert f"`{name}`" in page.read_text().splitlines()[0]


def _pair():
    net = sx.Network(dt_ms=0.1, seed=1)
    source = net.create(
        "spike_source_array", 1, params={"spike_times": [np.arange(5.0, 200.0, 10.0)]}
    )
    cell = net.create("iaf_psc_exp", 1, params={"I_e": 390.0})
    return net, source, cell


@pytest.mark.parametrize(
    ("weight", "w_max", "message"),
    [
        (150.0, 100.0, r"needs weights in \[0, 100\], got weights in \[150, 150\]"),
        (-5.0, 100.0, r"needs weights in \[0, 100\], got weights in \[-5, -5\]"),
        (5.0, -50.0, r"needs weights in \[-50, 0\], got weights in \[5, 5\]"),
    ],
)
def test_weights_outside_the_range_of_the_type_are_refused(weight, w_max, message):
    net, source, cell = _pair()
    with pytest.raises(ValueError, match=message):
        net.connect(
            source, cell, weight=weight, synapse="stdp_synapse", synapse_params={"Wmax": w_max}
        )
    with pytest.raises(ValueError, match=r"stdp_synapse parameter Wmax = 0: must not be 0"):
        net.connect(source, cell, weight=0.0, synapse="stdp_synapse", synapse_params={"Wmax": 0.0})
    with pytest.raises(ValueError, match=r"synapse_params\['mu'\] is unknown for \"stdp_synapse\""):
        net.connect(source, cell, weight=1.0, synapse="stdp_synapse", synapse_params={"mu": 0.4})


def test_plastic_weights_come_back_after_the_run_with_their_type():
    net, source, cell = _pair()
    net.connect(source, cell, weight=1.0, delay_ms=1.0)
    params = {"lambda": 0.05, "mu_plus": 0.0, "mu_minus": 0.0, "Wmax": 50.0}
    net.connect(
        source, cell, weight=20.0, delay_ms=1.0, synapse="stdp_synapse", synapse_params=params
    )
    net.record_spikes(cell)
    result = net.simulate(200.0)
    assert result.summary["spikes_total"] > 3
    c = net.connections()
    types = net.synapse_types()
    assert types[0] == {"name": "static", "params": {}}
    assert types[1]["name"] == "stdp_synapse" and types[1]["params"]["Wmax"] == 50.0
    static, plastic = (c["weight"][c["synapse"] == k] for k in (0, 1))
    assert static.tolist() == [1.0]
    assert plastic.size == 1 and plastic[0] != 20.0 and 0.0 <= plastic[0] <= 50.0


@pytest.mark.parametrize("synapse", ["tsodyks_synapse", "tsodyks2_synapse"])
def test_short_term_parameters_are_one_number_each(synapse):
    net, source, cell = _pair()
    with pytest.raises(
        ValueError, match=r"synapse_params\['U'\] = a distribution: must be one number"
    ):
        net.connect(
            source, cell, weight=1.0, synapse=synapse, synapse_params={"U": sx.uniform(0.1, 0.5)}
        )
    with pytest.raises(ValueError, match=r"synapse_params\['tau_rec'\] = array\(\["):
        net.connect(
            source,
            cell,
            weight=1.0,
            synapse=synapse,
            synapse_params={"tau_rec": np.array([1.0, 2.0])},
        )
    with pytest.raises(ValueError, match=rf"{synapse} parameter U = 1.5: must be in \[0, 1\]"):
        net.connect(source, cell, weight=1.0, synapse=synapse, synapse_params={"U": 1.5})
    with pytest.raises(ValueError, match=rf"{synapse} parameter tau_rec = 0: must be > 0 ms"):
        net.connect(source, cell, weight=1.0, synapse=synapse, synapse_params={"tau_rec": 0.0})
    net.connect(source, cell, weight=-5.0, synapse=synapse, synapse_params={"U": 0.2})  # any sign


def _firing(synapse: str, params: dict | None) -> tuple[int, float]:
    """Spikes of a neuron driven by a 100 Hz train through one synapse, and its weight after."""
    net, source, cell = _pair()
    net.connect(source, cell, weight=300.0, delay_ms=1.0, synapse=synapse, synapse_params=params)
    net.record_spikes(cell)
    result = net.simulate(200.0)
    return int(result.summary["spikes_total"]), float(net.connections()["weight"][0])


def test_short_term_synapses_scale_their_spikes_and_keep_their_weights():
    static, _ = _firing("static", None)
    depressed, w1 = _firing("tsodyks_synapse", {"U": 0.5, "tau_psc": 2.0, "tau_rec": 500.0})
    facilitated, w2 = _firing(
        "tsodyks2_synapse", {"U": 0.02, "u": 0.02, "tau_rec": 20.0, "tau_fac": 1000.0}
    )
    assert w1 == w2 == 300.0
    # Depression: the train's weights shrink to a fraction of 300 pA; facilitation: they
    # start at 2 % and grow, so the neuron starts firing late.
    assert static > depressed and static > facilitated > 0


@pytest.mark.parametrize(
    ("synapse", "params", "message"),
    [
        ("bernoulli_synapse", {"p_transmit": 1.2}, r"bernoulli_synapse parameter p_transmit = 1.2: must be in \[0, 1\]"),
        ("bernoulli_synapse", {"p_transmit": -0.5}, r"bernoulli_synapse parameter p_transmit = -0.5: must be in \[0, 1\]"),
        ("quantal_stp_synapse", {"n": 0}, r"quantal_stp_synapse parameter n = 0: must be an integer in \[1, 33554432\]"),
        ("quantal_stp_synapse", {"n": 1.5}, r"quantal_stp_synapse parameter n = 1.5: must be an integer in"),
        ("quantal_stp_synapse", {"U": -0.1}, r"quantal_stp_synapse parameter U = -0.1: must be in \[0, 1\]"),
        ("quantal_stp_synapse", {"u": 2.0}, r"quantal_stp_synapse parameter u = 2: must be in \[0, 1\]"),
        ("quantal_stp_synapse", {"tau_rec": 0.0}, r"quantal_stp_synapse parameter tau_rec = 0: must be > 0 ms"),
        ("quantal_stp_synapse", {"tau_fac": -1.0}, r"quantal_stp_synapse parameter tau_fac = -1: must be >= 0 ms"),
        ("quantal_stp_synapse", {"n": 2, "a": 3}, r"quantal_stp_synapse parameter a = 3: must be <= n = 2"),
    ],
)  # fmt: skip
def test_stochastic_synapse_parameters_are_checked(synapse, params, message):
    net, source, cell = _pair()
    with pytest.raises(ValueError, match=message):
        net.connect(source, cell, weight=1.0, synapse=synapse, synapse_params=params)
        net.simulate(1.0)


def test_stochastic_synapses_transmit_some_spikes_and_keep_their_weights():
    """20 spikes through p_transmit = 0.5 onto 40 integrators (V_m sums what arrives): about
    half cross; quantal release with n = 3 delivers whole multiples of the weight."""
    net = sx.Network(dt_ms=0.1, seed=4)
    times = [np.arange(5.0, 200.0, 10.0)]
    source = net.create("spike_source_array", 1, params={"spike_times": times})
    integrator = {"E_L": 0.0, "V_m": 0.0, "V_th": 1e12, "tau_m": 1e300}
    probes = net.create("iaf_psc_delta", 80, params=integrator)
    net.connect(source, probes[0:40], weight=1.0, synapse="bernoulli_synapse",
                synapse_params={"p_transmit": 0.5})  # fmt: skip
    net.connect(source, probes[40:80], weight=1.0, synapse="quantal_stp_synapse",
                synapse_params={"n": 3, "a": 3, "U": 0.4, "u": 0.4, "tau_rec": 30.0})  # fmt: skip
    net.record_state(probes, "V_m", interval_ms=1.0, start_ms=199.0)
    v = net.simulate(200.0).states[0]["values"][-1]
    crossed = v[:40]
    assert 0 < crossed.min() and crossed.max() < 20
    assert 340 < crossed.sum() < 460  # 400 +- 4 standard errors
    assert np.all(v[40:] == np.round(v[40:])) and v[40:].min() > 0
    assert np.all(net.connections()["weight"] == 1.0)
