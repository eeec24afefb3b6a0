"""Synapse types from the registry: every type has its docs page, the Python list is the
C++ registry's, weights outside a type's range are refused naming it, and plastic
weights as a run left them come back from connections() with their type."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import REPO

import spikex as sx
from spikex.models import SYNAPSE_TYPES, SYNAPSES


def test_every_synapse_type_has_its_page_and_defaults():
    assert set(SYNAPSES) == {"static", "stdp_pl_synapse_hom", "stdp_synapse"}
    assert SYNAPSES["stdp_synapse"] == {
        "tau_plus": 20.0,
        "lambda": 0.01,
        "alpha": 1.0,
        "mu_plus": 1.0,
        "mu_minus": 1.0,
        "Wmax": 100.0,
    }  # fmt: skip  (NEST 3.10's defaults)
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
