"""Per-edge synapse parameters: an edge group's ``dynamics_params`` datasets."""

from __future__ import annotations

import json

import numpy as np
import pytest
import spikex as sx
from conftest import run_config
from sonata_circuits import write_circuit
from spikex.sonata import SonataError

TSODYKS = "edge_type_id model_template dynamics_params\n1 tsodyks_synapse tm.json\n2 static_synapse syn.json\n"
TYPE_PARAMS = {"U": 0.5, "tau_rec": 800.0, "tau_fac": 0.0, "tau_psc": 2.0}
SPIKES = {k: [5.0 + k, 12.0 + k, 20.0 + 3 * k, 30.0 + 2 * k] for k in range(6)}


def tsodyks_circuit(directory, groups=None, types=TSODYKS, edge_type_ids=None, tstop=60.0):
    """6 inputs -> 3 cells (input k -> cell k % 3), tsodyks edges with per-edge U,
    tau_rec, weight and delay (NaN: the edge type's)."""
    nan = np.nan
    groups = groups or {
        0: {
            "syn_weight": np.full(6, 1500.0),
            "dynamics_params/U": [0.1, 0.9, nan, 0.1, 0.3, 0.9],
            "dynamics_params/tau_rec": [100.0, 100.0, 100.0, nan, 400.0, 100.0],
            "dynamics_params/weight": [nan, 900.0, nan, nan, 700.0, nan],
            "dynamics_params/delay": [1.0, 2.5, nan, 1.5, nan, 3.0],
        }
    }
    edges = {
        "source_node_id": np.arange(6),
        "target_node_id": np.arange(6) % 3,
        "edge_type_id": np.ones(6, int) if edge_type_ids is None else edge_type_ids,
    }
    path = write_circuit(directory, cells=3, inputs=6, edges=edges, edge_groups=groups,
                         edge_types=types, spikes=SPIKES, tstop=tstop,
                         node_overrides={"I_e": [340.0, 350.0, 360.0]})  # fmt: skip
    (path.parent / "components" / "synapses" / "tm.json").write_text(json.dumps(TYPE_PARAMS))
    return path


def expected_edges():
    """(U, tau_rec, weight, delay) of each edge, as the SONATA rules give them."""
    return [
        (0.1, 100.0, 1500.0, 1.0),
        (0.9, 100.0, 900.0, 2.5),
        (0.5, 100.0, 1500.0, 1.0),  # U and delay from the type / NEST's default delay
        (0.1, 800.0, 1500.0, 1.5),
        (0.3, 400.0, 700.0, 1.0),
        (0.9, 100.0, 1500.0, 3.0),
    ]


def test_each_edge_gets_its_own_parameters(tmp_path):
    net = sx.Network.from_sonata(tsodyks_circuit(tmp_path))
    c = net.connections()
    types = net.synapse_types()
    inputs = net.sonata.populations["inputs"].first_gid
    order = np.argsort(c["source"])
    got = []
    for k in order.tolist():
        params = types[int(c["synapse"][k])]["params"]
        assert types[int(c["synapse"][k])]["name"] == "tsodyks_synapse"
        assert params["tau_fac"] == 0.0 and params["tau_psc"] == 2.0  # the type's
        got.append((params["U"], params["tau_rec"], float(c["weight"][k]), float(c["delay_ms"][k])))
    assert np.asarray(c["source"])[order].tolist() == list(range(inputs, inputs + 6))
    np.testing.assert_allclose(got, expected_edges())
    # the same spikes as the network connected edge by edge through the Python API
    result = net.simulate(60.0)
    ref = sx.Network(dt_ms=0.1)
    cells = ref.create(
        "iaf_psc_alpha",
        3,
        params={
            "C_m": 250.0,
            "tau_m": 10.0,
            "E_L": -70.0,
            "V_th": -55.0,
            "V_reset": -70.0,
            "t_ref": 2.0,
            "I_e": np.array([340.0, 350.0, 360.0]),
        },
    )
    sources = ref.create("spike_source_array", 6, params={"spike_times": list(SPIKES.values())})
    for k, (u, tau_rec, weight, delay) in enumerate(expected_edges()):
        ref.connect(sources.first_gid + k, cells.first_gid + k % 3, weight=weight, delay_ms=delay,
                    synapse="tsodyks_synapse",
                    synapse_params={**TYPE_PARAMS, "U": u, "tau_rec": tau_rec})  # fmt: skip
    ref.record_spikes(cells)
    expected = ref.simulate(60.0)
    assert expected.spikes[1].size > 3
    np.testing.assert_array_equal(result.spikes[1], expected.spikes[1])
    np.testing.assert_array_equal(result.spikes[0] - net.sonata.populations["cells"].first_gid,
                                  expected.spikes[0] - cells.first_gid)  # fmt: skip


def test_a_key_the_edges_synapse_lacks_is_named(tmp_path):
    groups = {0: {"syn_weight": np.full(6, 100.0), "dynamics_params/U": np.full(6, 0.2)}}
    path = tsodyks_circuit(tmp_path, groups=groups, edge_type_ids=[1, 1, 2, 1, 1, 1])
    with pytest.raises(SonataError) as error:
        sx.Network.from_sonata(path).build()
    text = str(error.value)
    assert "\n" not in text and "edges.h5: /edges/inputs_to_cells: dynamics_params/U" in text
    assert "'U' is not a parameter of static_synapse (edge type 2)" in text


def test_a_value_the_synapse_refuses_is_named(tmp_path):
    groups = {
        0: {"syn_weight": np.full(6, 100.0), "dynamics_params/U": [0.2, 0.2, 1.5, 0.2, 0.2, 0.2]}
    }
    with pytest.raises(
        SonataError,
        match=r"inputs_to_cells: per-edge synapse parameters \(tsodyks_synapse: .*U = 1.5",
    ):
        sx.Network.from_sonata(tsodyks_circuit(tmp_path, groups=groups)).build()


def test_a_text_dataset_is_refused(tmp_path):
    groups = {0: {"syn_weight": np.full(6, 100.0), "dynamics_params/U": np.array([b"a"] * 6)}}
    with pytest.raises(
        SonataError, match="0/dynamics_params/U: must be a dataset of one number per edge"
    ):
        sx.Network.from_sonata(tsodyks_circuit(tmp_path, groups=groups)).build()


def test_too_many_distinct_settings_are_refused_by_key(tmp_path):
    n = 40
    edges = {"source_node_id": np.zeros(n, int), "target_node_id": np.arange(n) % 3,
             "edge_type_id": np.ones(n, int)}  # fmt: skip
    groups = {0: {"syn_weight": np.full(n, 10.0), "dynamics_params/U": np.linspace(0.1, 0.9, n),
                  "dynamics_params/tau_rec": np.full(n, 100.0)}}  # fmt: skip
    path = write_circuit(
        tmp_path, cells=3, inputs=1, edges=edges, edge_groups=groups, edge_types=TSODYKS
    )
    (path.parent / "components" / "synapses" / "tm.json").write_text(json.dumps(TYPE_PARAMS))
    with pytest.raises(
        SonataError, match="dynamics_params/U: 40 distinct per-edge synapse settings"
    ):
        sx.Network.from_sonata(path).build()


@pytest.mark.mpi
@pytest.mark.slow
def test_per_edge_parameters_give_the_same_spikes_on_2_ranks(tmp_path):
    path = tsodyks_circuit(tmp_path, tstop=100.0)
    one = run_config(path, tmp_path / "one")
    two = run_config(path, tmp_path / "two", ranks=2, sets=("distribution.scheme=consecutive",))
    assert one["spikes_total"] > 3 and two["spikes_sha256"] == one["spikes_sha256"]
    assert two["connections"] == one["connections"] == 6
