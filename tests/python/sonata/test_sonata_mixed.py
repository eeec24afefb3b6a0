"""Several models in one node population, and virtual with point-neuron nodes in one
population (as BMTK builds and reads them): each node keeps its node id and its place in
spikes.h5, and the spikes do not depend on ranks or distribution."""

from __future__ import annotations

import json

import h5py
import numpy as np
import pytest
import spikex as sx
from conftest import run_config
from sonata_circuits import write_circuit
from spikex.io.output import read_sonata_spikes
from spikex.sonata import SonataError

TYPES = (
    "node_type_id model_type model_template dynamics_params pop_name\n"
    "100 point_process nest:iaf_psc_alpha exc.json E\n"
    "101 point_process nest:iaf_psc_exp inh.json I\n"
    "102 virtual NULL NULL bkg\n"
)
EXC = {"C_m": 250.0, "tau_m": 10.0, "E_L": -70.0, "V_th": -55.0, "V_reset": -70.0, "t_ref": 2.0}
INH = {"C_m": 200.0, "tau_m": 8.0, "E_L": -65.0, "V_th": -52.0, "V_reset": -65.0, "tau_syn_ex": 1.0}
# node ids 0..9: two runs of iaf_psc_alpha, two of iaf_psc_exp, virtual nodes between them
TYPE_IDS = [100, 100, 101, 102, 100, 101, 101, 102, 100, 100]
I_E = [360.0, 420.0, 300.0, 0.0, 380.0, 250.0, 330.0, 0.0, 400.0, 370.0]
VIRTUAL_SPIKES = {3: [4.01, 4.05, 12.0, 25.0], 7: [8.0, 30.0]}  # two of node 3 in one step
RECURRENT = {  # cells -> cells: sources include the virtual nodes 3 and 7
    "source_node_id": [3, 3, 7, 0, 2, 5, 8, 9, 4, 6],
    "target_node_id": [0, 2, 1, 5, 4, 8, 6, 0, 9, 1],
    "syn_weight": [900.0, 700.0, 800.0, 150.0, -200.0, 120.0, 160.0, 140.0, 130.0, -90.0],
    "delay": [1.0, 1.5, 1.0, 2.0, 1.2, 1.0, 3.0, 1.0, 1.1, 2.0],
}


def mixed_circuit(directory, recurrent=RECURRENT, tstop=60.0):
    """cells: iaf_psc_alpha, iaf_psc_exp and virtual nodes in one population; inputs ->
    cells (write_circuit's) and cells -> cells (here)."""
    path = write_circuit(
        directory, cells=10, inputs=2, tstop=tstop, cell_types=TYPES, cell_type_ids=TYPE_IDS,
        cell_jsons={"exc.json": EXC, "inh.json": INH}, node_overrides={"I_e": I_E},
        simulation_extra={"inputs": {
            "spikes_in": {"input_type": "spikes", "module": "h5", "input_file": "$BASE_DIR/spikes_in.h5",
                          "node_set": "inputs"},
            "bkg": {"input_type": "spikes", "module": "h5", "input_file": "$BASE_DIR/bkg.h5",
                    "node_set": {"population": "cells", "pop_name": "bkg"}},
        }},
    )  # fmt: skip
    d = path.parent
    ids = np.concatenate([np.full(len(t), n) for n, t in VIRTUAL_SPIKES.items()])
    times = np.concatenate([np.asarray(t) for t in VIRTUAL_SPIKES.values()])
    with h5py.File(d / "bkg.h5", "w") as f:
        f["spikes/cells/node_ids"] = ids.astype(np.uint64)
        f["spikes/cells/timestamps"] = times
    n = len(recurrent["source_node_id"])
    with h5py.File(d / "network" / "edges.h5", "a") as f:
        g = f.create_group("edges/cells_to_cells")
        g["source_node_id"] = np.asarray(recurrent["source_node_id"], dtype=np.uint64)
        g["source_node_id"].attrs["node_population"] = "cells"
        g["target_node_id"] = np.asarray(recurrent["target_node_id"], dtype=np.uint64)
        g["target_node_id"].attrs["node_population"] = "cells"
        g["edge_type_id"] = np.ones(n, dtype=np.uint32)
        g["edge_group_id"] = np.zeros(n, dtype=np.uint16)
        g["edge_group_index"] = np.arange(n, dtype=np.uint32)
        g["0/syn_weight"] = np.asarray(recurrent["syn_weight"], dtype=float)
        g["0/delay"] = np.asarray(recurrent["delay"], dtype=float)
    return path


def by_hand(dt_ms=0.1):
    """The same network built cell by cell through the Python API, without SONATA: every
    node its own population, in node-id order (gid = node id), inputs after them."""
    net = sx.Network(dt_ms=dt_ms)
    models = {100: ("iaf_psc_alpha", EXC), 101: ("iaf_psc_exp", INH)}
    for node, type_id in enumerate(TYPE_IDS):
        if type_id == 102:
            times = sorted(VIRTUAL_SPIKES[node])
            if node == 3:  # 4.01 and 4.05 fall in one step: the second goes to a repeat cell
                times = times[:1] + times[2:]
            net.create("spike_source_array", 1, params={"spike_times": [times]})
            continue
        model, params = models[type_id]
        net.create(model, 1, params={**params, "I_e": I_E[node]})
    repeat = net.create(
        "spike_source_array", 1, params={"spike_times": [[4.05]]}
    )  # node 3's second
    inputs = net.create("spike_source_array", 2, params={"spike_times": [[5.0, 20.0], [6.0, 21.0]]})
    net.connect(inputs.gids, [0, 1], weight=100.0, delay_ms=1.0)
    src, tgt = np.asarray(RECURRENT["source_node_id"]), np.asarray(RECURRENT["target_node_id"])
    weight, delay = np.asarray(RECURRENT["syn_weight"]), np.asarray(RECURRENT["delay"])
    net.connect(src, tgt, weight=weight, delay_ms=delay)
    from_3 = src == 3
    net.connect(np.full(from_3.sum(), repeat.first_gid), tgt[from_3], weight=weight[from_3],
                delay_ms=delay[from_3])  # fmt: skip
    return net


def test_each_model_run_is_a_population_and_nodes_keep_their_ids(tmp_path):
    net = sx.Network.from_sonata(mixed_circuit(tmp_path))
    cells = net.sonata.populations["cells"]
    assert (cells.first_gid, cells.size) == (0, 10)
    runs = [(p.name, p.first_gid, p.size, p.model) for p in net.populations[:7]]
    assert runs == [
        ("cells.iaf_psc_alpha", 0, 2, "iaf_psc_alpha"),
        ("cells.iaf_psc_exp", 2, 1, "iaf_psc_exp"),
        ("cells.virtual", 3, 1, "spike_source_array"),
        ("cells.iaf_psc_alpha.2", 4, 1, "iaf_psc_alpha"),
        ("cells.iaf_psc_exp.2", 5, 2, "iaf_psc_exp"),
        ("cells.virtual.2", 7, 1, "spike_source_array"),
        ("cells.iaf_psc_alpha.3", 8, 2, "iaf_psc_alpha"),
    ]
    # each run has its own type's parameters, per node
    population = next(p for p in net.sonata.node_populations if p.name == "cells")
    params = [
        (r.start, r.model, r.params.get("C_m"), r.params["I_e"])
        for r in population.runs
        if not r.virtual
    ]
    assert [(s, m, c) for s, m, c, _ in params] == [
        (0, "iaf_psc_alpha", 250.0), (2, "iaf_psc_exp", 200.0), (4, "iaf_psc_alpha", 250.0),
        (5, "iaf_psc_exp", 200.0), (8, "iaf_psc_alpha", 250.0),
    ]  # fmt: skip
    np.testing.assert_array_equal(params[4][3], [400.0, 370.0])
    np.testing.assert_array_equal(params[3][3], [250.0, 330.0])


def test_spikes_as_the_network_built_cell_by_cell(tmp_path):
    net = sx.Network.from_sonata(mixed_circuit(tmp_path))
    result = net.simulate(60.0)
    reference = by_hand()
    reference.record_spikes(np.flatnonzero(np.asarray(TYPE_IDS) != 102))
    expected = reference.simulate(60.0)
    assert expected.spikes[0].size > 10
    np.testing.assert_array_equal(result.spikes[0], expected.spikes[0])
    np.testing.assert_array_equal(result.spikes[1], expected.spikes[1])
    ids = result.spikes[0] - net.sonata.populations["cells"].first_gid
    assert not np.isin(ids, [3, 7]).any()  # virtual nodes are not recorded
    # the virtual nodes' inputs reach their targets: without them node 1 (800 pA from
    # node 7 at 8 and 30 ms) spikes otherwise
    path = tmp_path / "simulation_config.json"
    config = json.loads(path.read_text())
    del config["inputs"]["bkg"]
    path.write_text(json.dumps(config))
    quiet = sx.Network.from_sonata(path).simulate(60.0)
    assert not np.array_equal(quiet.spikes[1][quiet.spikes[0] == 1], result.spikes[1][ids == 1])
    populations = result.summary["populations"]
    assert populations["cells"]["cells"] == 10 and populations["cells"]["recorded_cells"] == 8
    assert populations["cells"]["model"] == "iaf_psc_alpha+iaf_psc_exp"  # its point-neuron models
    assert set(populations) == {"cells", "cells.repeats", "inputs"}  # no per-model runs


def test_spikes_h5_holds_the_population_under_its_name(tmp_path):
    path = mixed_circuit(tmp_path)
    summary = run_config(path, tmp_path / "out")
    with h5py.File(tmp_path / "out" / "spikes.h5") as f:
        assert sorted(f["spikes"]) == ["cells", "cells.repeats", "inputs"]
    node_ids, times = read_sonata_spikes(tmp_path / "out" / "spikes.h5", "cells")
    result = sx.Network.from_sonata(path).simulate(60.0)
    np.testing.assert_array_equal(node_ids, result.spikes[0])  # first_gid 0
    np.testing.assert_array_equal(times, result.spikes[1])
    assert summary["spikes_sha256"] == result.summary["spikes_sha256"]
    assert json.dumps(summary["populations"]["cells"]) == json.dumps(
        result.summary["populations"]["cells"]
    )


def test_edge_ending_on_a_virtual_node_is_named(tmp_path):
    recurrent = {k: list(v) for k, v in RECURRENT.items()}
    recurrent["target_node_id"][4] = 7
    net = sx.Network.from_sonata(mixed_circuit(tmp_path, recurrent=recurrent))
    with pytest.raises(
        SonataError, match="cells_to_cells: edge 4: target_node_id = 7 is a virtual node"
    ):
        net.build()


def test_a_parameter_of_one_models_type_is_checked_against_that_model(tmp_path):
    path = mixed_circuit(tmp_path)
    (path.parent / "components" / "cells" / "inh.json").write_text(
        json.dumps({**INH, "tau_syn": 2.0})
    )
    with pytest.raises(SonataError, match="'tau_syn' is not a parameter of iaf_psc_exp") as error:
        sx.Network.from_sonata(path)
    assert "inh.json" in str(error.value)


@pytest.mark.mpi
@pytest.mark.slow
def test_the_same_spikes_on_1_and_2_ranks_and_two_distributions(tmp_path):
    path = mixed_circuit(tmp_path, tstop=100.0)
    one = run_config(path, tmp_path / "one")
    for scheme in ("round_robin", "consecutive"):
        two = run_config(
            path,
            tmp_path / scheme,
            ranks=2,
            sets=(f"distribution.scheme={scheme}", "simulation.threads=2"),
        )
        assert two["ranks"] == 2 and two["connections"] == one["connections"]
        assert two["spikes_sha256"] == one["spikes_sha256"] and one["spikes_total"] > 10
