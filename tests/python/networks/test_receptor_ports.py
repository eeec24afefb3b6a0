"""Receptor ports (NEST's receptor_type): what the core checks for every model, and that a
connection keeps its port. The multisynapse models' own tests deliver through ports."""

import numpy as np
import pytest

import spikex as sx
from spikex.models import MODELS, is_state_variable


def _pair(model="iaf_psc_alpha"):
    net = sx.Network(dt_ms=0.1, seed=3)
    pre = net.create("spike_source_array", 1, params={"spike_times": [5.0]})
    post = net.create(model, 2)
    return net, pre, post


def test_a_model_without_ports_takes_receptor_0_only():
    net, pre, post = _pair()
    with pytest.raises(ValueError, match=r'receptor = 2: model "iaf_psc_alpha" has no receptor ports'):
        net.connect(pre, post, weight=10.0, receptor=2)
    with pytest.raises(ValueError, match=r"receptor = 1: model"):
        net.connect_rule("all_to_all", pre, post, weight=10.0, receptor=1)
    net.connect(pre, post, weight=10.0, receptor=0)
    assert list(net.connections()["receptor"]) == [0, 0]


@pytest.mark.parametrize("receptor", [-1, 1.5, True, 40000, "1"])
def test_a_receptor_is_a_whole_number(receptor):
    net, pre, post = _pair()
    with pytest.raises(ValueError, match=r"receptor = .*: must be a whole number in \[0, 32767\]"):
        net.connect(pre, post, weight=10.0, receptor=receptor)


def test_a_current_input_takes_no_port():
    net = sx.Network(dt_ms=0.1)
    dc = net.create("dc_generator", 1, params={"amplitude": 100.0})
    cells = net.create("iaf_psc_exp", 1)
    with pytest.raises(ValueError, match="has no receptor ports"):
        net.connect(dc, cells, weight=1.0, receptor=1)


def test_per_port_state_names_are_recognised_by_pattern():
    ported = [name for name, e in MODELS.items() if any(s.get("per_port") for s in e.get("state_specs", []))]
    for name in ported:
        spec = next(s for s in MODELS[name]["state_specs"] if s.get("per_port"))
        assert f"{spec['name']}_<port>" in MODELS[name]["state_variables"]
        assert is_state_variable(name, f"{spec['name']}_1")
        assert not is_state_variable(name, f"{spec['name']}_0")
        plain = any(s["name"] == spec["name"] and not s.get("per_port") for s in MODELS[name]["state_specs"])
        assert is_state_variable(name, spec["name"]) == plain  # iaf_psc_exp_multisynapse also records I_syn, the sum
    assert is_state_variable("iaf_psc_alpha", "V_m")
    assert not is_state_variable("iaf_psc_alpha", "V_m_1")


def test_connections_report_receptor_next_to_synapse():
    net, pre, post = _pair()
    net.connect(pre, post, weight=np.array([1.0, 2.0]))
    conns = net.connections()
    assert conns["receptor"].dtype == np.int64
    assert len(conns["receptor"]) == len(conns["synapse"]) == 2
