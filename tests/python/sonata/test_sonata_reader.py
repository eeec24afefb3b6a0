"""The SONATA reader (spikex.sonata): configs, node and edge types, parameters, edges,
inputs, node sets, and one-line errors naming the file, key and value."""

from __future__ import annotations

import json

import h5py
import numpy as np
import pytest
import spikex as sx
from sonata_circuits import EXAMPLE, copy_example, require_example, write_circuit
from spikex.sonata import (
    SonataError,
    edge_populations,
    edge_windows,
    load_config,
    read_edges,
    read_node_populations,
)
from spikex.sonata.inputs import nest_grid_times


def _one_line(error) -> str:
    text = str(error.value)
    assert "\n" not in text
    return text


# ---- configs and manifest ---------------------------------------------------------------


def test_manifest_variables_resolve_relative_to_the_config(tmp_path):
    path = write_circuit(tmp_path)
    config = load_config(path)
    assert config.circuit_path == tmp_path / "circuit_config.json"
    assert config.nodes[0]["nodes_file"] == str(tmp_path / "network" / "cells.h5")
    assert config.components["point_neuron_models_dir"] == str(tmp_path / "components" / "cells")
    assert config.inputs["spikes_in"]["input_file"] == str(tmp_path / "spikes_in.h5")
    assert config.run_value("tstop") == 50.0 and config.run_value("dt") == 0.1


def test_undefined_manifest_variable_is_named(tmp_path):
    write_circuit(tmp_path)
    circuit = json.loads((tmp_path / "circuit_config.json").read_text())
    circuit["networks"]["edges"][0]["edges_file"] = "$NETWORK/edges.h5"
    (tmp_path / "circuit_config.json").write_text(json.dumps(circuit))
    with pytest.raises(SonataError) as error:
        load_config(tmp_path / "simulation_config.json")
    text = _one_line(error)
    assert (
        "circuit_config.json" in text
        and "$NETWORK" in text
        and "networks.edges[0].edges_file" in text
    )


def test_missing_config_file_is_named(tmp_path):
    with pytest.raises(SonataError) as error:
        load_config(tmp_path / "nothere.json")
    assert "nothere.json" in _one_line(error) and "not found" in str(error.value)


# ---- nodes --------------------------------------------------------------------------------


def test_example_nodes_take_each_node_types_json():
    config = load_config(require_example())
    internal, external = read_node_populations(config)
    assert (internal.name, internal.size, internal.model, internal.virtual) == (
        "internal",
        300,
        "iaf_psc_alpha",
        False,
    )
    assert (external.name, external.size, external.virtual) == ("external", 100, True)
    types = {}
    for line in (EXAMPLE / "network" / "internal_node_types.csv").read_text().splitlines()[1:]:
        fields = line.split()
        types[int(fields[0])] = json.loads(
            (EXAMPLE / "components" / "cell_models" / fields[4]).read_text()
        )
    with h5py.File(EXAMPLE / "network" / "internal_nodes.h5") as f:
        type_ids = f["nodes/internal/node_type_id"][:]
    for name in ("C_m", "tau_m", "E_L", "V_th", "V_reset", "t_ref"):
        expected = [types[int(t)][name] for t in type_ids]
        np.testing.assert_array_equal(np.broadcast_to(internal.params[name], (300,)), expected)


def test_per_node_dynamics_params_override_the_node_type(tmp_path):
    write_circuit(tmp_path, cells=3, node_overrides={"V_th": [np.nan, -50.0, np.nan]})
    cells = read_node_populations(load_config(tmp_path / "simulation_config.json"))[0]
    np.testing.assert_array_equal(cells.params["V_th"], [-55.0, -50.0, -55.0])


def test_unknown_model_is_refused_by_name(tmp_path):
    path = copy_example(tmp_path)
    types = path.parent / "network" / "internal_node_types.csv"
    types.write_text(types.read_text().replace("nest:iaf_psc_alpha", "nest:pp_psc_delta"))
    with pytest.raises(SonataError) as error:
        sx.Network.from_sonata(path)
    text = _one_line(error)
    assert "pp_psc_delta" in text and "internal_node_types.csv" in text


def test_unknown_parameter_is_refused_naming_the_json(tmp_path):
    write_circuit(tmp_path, cell_params={"tau_syn": 3.0})
    with pytest.raises(SonataError) as error:
        read_node_populations(load_config(tmp_path / "simulation_config.json"))
    assert "cell.json" in _one_line(error) and "'tau_syn'" in str(error.value)


def test_missing_nodes_file_is_named(tmp_path):
    write_circuit(tmp_path)
    (tmp_path / "network" / "cells.h5").unlink()
    with pytest.raises(SonataError) as error:
        sx.Network.from_sonata(tmp_path / "simulation_config.json")
    assert "cells.h5" in _one_line(error) and "not found" in str(error.value)


def test_types_csv_without_its_id_column_is_named(tmp_path):
    write_circuit(tmp_path, edge_types="model_template dynamics_params\nstatic_synapse syn.json\n")
    with pytest.raises(SonataError) as error:
        sx.Network.from_sonata(tmp_path / "simulation_config.json")
    assert "edge_types.csv" in _one_line(error) and "edge_type_id" in str(error.value)


def test_another_model_spikex_has_builds_its_population(tmp_path):
    path = copy_example(tmp_path)
    types = path.parent / "network" / "internal_node_types.csv"
    types.write_text(types.read_text().replace("nest:iaf_psc_alpha", "nest:iaf_psc_exp"))
    net = sx.Network.from_sonata(path)
    assert net.sonata.populations["internal"].model == "iaf_psc_exp"


# ---- edges ----------------------------------------------------------------------------------


def test_weight_is_syn_weight_times_nsyns_and_delays_fall_back(tmp_path):
    edges = {"source_node_id": [0, 1, 0], "target_node_id": [0, 1, 2], "edge_type_id": [1, 1, 2]}
    groups = {
        0: {"syn_weight": [10.0, 20.0, 30.0], "nsyns": [1, 3, 2], "delay": [np.nan, 2.5, np.nan]}
    }
    types = "edge_type_id model_template dynamics_params delay\n1 static_synapse syn.json 1.5\n2 static_synapse syn.json NULL\n"
    write_circuit(tmp_path, cells=3, edges=edges, edge_groups=groups, edge_types=types)
    population = edge_populations(load_config(tmp_path / "simulation_config.json"))[0]
    table = read_edges(population)
    np.testing.assert_array_equal(table.weight, [10.0, 60.0, 60.0])
    np.testing.assert_array_equal(table.delay_ms, [1.5, 2.5, 1.0])  # type's, edge's, NEST's default


def test_several_edge_groups(tmp_path):
    edges = {
        "source_node_id": [0, 1, 1, 0], "target_node_id": [0, 1, 2, 3], "edge_type_id": [1, 1, 1, 1],
        "edge_group_id": [0, 7, 0, 7], "edge_group_index": [0, 0, 1, 1],
    }  # fmt: skip
    groups = {0: {"syn_weight": [1.0, 2.0]}, 7: {"syn_weight": [3.0, 4.0], "delay": [2.0, 3.0]}}
    write_circuit(tmp_path, edges=edges, edge_groups=groups)
    table = read_edges(edge_populations(load_config(tmp_path / "simulation_config.json"))[0])
    np.testing.assert_array_equal(table.weight, [1.0, 3.0, 2.0, 4.0])
    np.testing.assert_array_equal(table.delay_ms, [1.0, 2.0, 1.0, 3.0])


@pytest.mark.parametrize("chunk", [1 << 20, 7])
@pytest.mark.parametrize("index", [True, False])
@pytest.mark.parametrize("population", [0, 1])
def test_edges_of_given_targets_are_those_of_the_whole_table(
    tmp_path, monkeypatch, population, index, chunk
):
    import spikex.sonata.edges as edges_module

    path = copy_example(tmp_path)
    if not index:  # the same files without indices/target_to_source: one pass in chunks
        for name in ("internal_internal_edges.h5", "external_internal_edges.h5"):
            with h5py.File(path.parent / "network" / name, "a") as f:
                del f[f"edges/{next(iter(f['edges']))}/indices"]
    config = load_config(path)
    edges = edge_populations(config)[population]
    whole = read_edges(edges)
    monkeypatch.setattr(edges_module, "CHUNK_ROWS", chunk)
    targets = np.array([3, 4, 5, 17, 299, 150])
    part = read_edges(edges, target_node_ids=targets)
    keep = np.isin(whole.target, targets)
    assert keep.sum() > 100
    for column in ("source", "target", "weight", "delay_ms", "edge_type_id"):
        np.testing.assert_array_equal(getattr(part, column), getattr(whole, column)[keep])


@pytest.mark.parametrize("targets", [None, "some"])
@pytest.mark.parametrize("index", [True, False])
def test_edge_windows_are_the_table_in_pieces_of_the_files_rows(
    tmp_path, monkeypatch, index, targets
):
    # A build reads and connects one window at a time; the windows are the file's rows,
    # so every rank has the same windows whatever it selects.
    import spikex.sonata.edges as edges_module

    path = copy_example(tmp_path)
    if not index:
        with h5py.File(path.parent / "network" / "internal_internal_edges.h5", "a") as f:
            del f[f"edges/{next(iter(f['edges']))}/indices"]
    edges = edge_populations(load_config(path))[0]
    selected = None if targets is None else np.array([3, 4, 5, 17, 299, 150, 151])
    whole = read_edges(edges, target_node_ids=selected, target_size=300)
    monkeypatch.setattr(edges_module, "WINDOW_ROWS", 1000)
    monkeypatch.setattr(edges_module, "CHUNK_ROWS", 333)
    windows = list(edge_windows(edges, target_node_ids=selected, target_size=300))
    assert len(windows) == -(-edges.size // 1000) > 3
    assert all(w.target.size <= 1000 for w in windows)
    for column in ("source", "target", "weight", "delay_ms", "edge_type_id"):
        np.testing.assert_array_equal(
            np.concatenate([getattr(w, column) for w in windows]), getattr(whole, column)
        )
    rows = np.concatenate([
        w.first_edge_id + np.arange(w.target.size) if w.edge_id is None else w.edge_id
        for w in windows
    ])  # fmt: skip
    expected = np.arange(edges.size) if whole.edge_id is None else whole.edge_id
    np.testing.assert_array_equal(rows, expected)


def test_small_windows_give_the_same_network_and_spikes(tmp_path, monkeypatch):
    import spikex.sonata.edges as edges_module

    path = copy_example(tmp_path)

    def run():
        net = sx.Network.from_sonata(path)
        result = net.simulate(200.0)
        return net.connections(), result.spikes_sha256

    whole_connections, whole_sha = run()
    monkeypatch.setattr(edges_module, "WINDOW_ROWS", 777)
    connections, sha = run()
    assert sha == whole_sha
    for key, column in whole_connections.items():
        np.testing.assert_array_equal(connections[key], column)


def test_edges_of_given_targets_without_an_index(tmp_path):
    edges = {
        "source_node_id": [0, 1, 0, 1],
        "target_node_id": [3, 0, 2, 3],
        "edge_type_id": [1, 1, 1, 1],
    }
    write_circuit(tmp_path, edges=edges, edge_groups={0: {"syn_weight": [1.0, 2.0, 3.0, 4.0]}})
    part = read_edges(
        edge_populations(load_config(tmp_path / "simulation_config.json"))[0], target_node_ids=[3]
    )
    np.testing.assert_array_equal(part.weight, [1.0, 4.0])


def test_edge_naming_a_node_outside_its_population(tmp_path):
    # edges are read when the network is built (each rank those ending on its cells)
    edges = {"source_node_id": [0, 5], "target_node_id": [0, 1], "edge_type_id": [1, 1]}
    write_circuit(tmp_path, edges=edges)
    with pytest.raises(SonataError) as error:
        sx.Network.from_sonata(tmp_path / "simulation_config.json").build()
    text = _one_line(error)
    assert "edges.h5" in text and "source_node_id = 5" in text and "'inputs'" in text


@pytest.mark.parametrize("index", [True, False])
def test_edge_ending_outside_its_population(tmp_path, index):
    path = copy_example(tmp_path)
    with h5py.File(path.parent / "network" / "internal_internal_edges.h5", "a") as f:
        group = f["edges/internal_to_internal"]
        targets = group["target_node_id"][:]
        targets[10] = 300  # the population has node ids 0..299
        group["target_node_id"][:] = targets
        if index:
            ranges = group["indices/target_to_source/node_id_to_range"][:]
            del group["indices/target_to_source/node_id_to_range"]
            group["indices/target_to_source/node_id_to_range"] = np.vstack([ranges, [[0, 1]]])
        else:
            del group["indices"]
    with pytest.raises(SonataError) as error:
        sx.Network.from_sonata(path).build()
    assert "target_node_id = 300" in _one_line(error) and "'internal'" in str(error.value)


def test_delay_below_dt_is_refused(tmp_path):
    write_circuit(tmp_path, edge_groups={0: {"syn_weight": [1.0, 1.0], "delay": [0.05, 1.0]}})
    with pytest.raises(SonataError) as error:
        sx.Network.from_sonata(tmp_path / "simulation_config.json").build()
    assert "delay = 0.05" in _one_line(error) and "edges.h5" in str(error.value)


def test_unknown_synapse_model_is_named(tmp_path):
    write_circuit(
        tmp_path,
        edge_types="edge_type_id model_template dynamics_params\n1 gap_junction syn.json\n",
    )
    with pytest.raises(SonataError) as error:
        sx.Network.from_sonata(tmp_path / "simulation_config.json")
    assert "gap_junction" in _one_line(error) and "edge_types.csv" in str(error.value)


# ---- inputs -----------------------------------------------------------------------------------


def test_nest_reads_spike_times_to_the_tic():
    # NEST rounds a time to its tic (1 us) first: within half a tic of a grid point it is on it
    times = nest_grid_times(np.array([2.8603488, 0.38432237, 5.0, 2.86049, 2.86051]), 0.01)
    np.testing.assert_allclose(times, [2.86, 0.38432237, 5.0, 2.86, 2.86051], rtol=0, atol=1e-12)


def test_older_spike_file_layout_feeds_the_node_sets_population(tmp_path):
    path = write_circuit(tmp_path, spikes={})
    with h5py.File(tmp_path / "spikes_in.h5", "w") as f:
        f["spikes/gids"] = np.array([1, 0, 1], dtype=np.uint64)
        f["spikes/timestamps"] = np.array([3.0, 4.0, 1.0])
    net = sx.Network.from_sonata(path)
    inputs = net.sonata.populations["inputs"]
    net.record_spikes(inputs)
    result = net.simulate(10.0)
    spikes = sorted(
        zip((result.spikes[0] - inputs.first_gid).tolist(), np.round(result.spikes[1], 6).tolist())
    )
    dt = net.dt_ms  # a time on the grid is emitted in the step that ends there
    assert spikes == [(0, round(4.0 - dt, 6)), (1, round(1.0 - dt, 6)), (1, round(3.0 - dt, 6))]


def test_current_clamp_drives_its_node_set(tmp_path):
    path = write_circuit(tmp_path, spikes={})
    config = json.loads(path.read_text())
    config["inputs"] = {"clamp": {"input_type": "current_clamp", "module": "IClamp", "amp": 1000.0,
                                  "delay": 10.0, "duration": 20.0, "node_set": {"population": "cells", "node_id": [2]}}}  # fmt: skip
    path.write_text(json.dumps(config))
    net = sx.Network.from_sonata(path)
    result = net.simulate(50.0)
    names, nodes = net.sonata.node_ids(result.spikes[0])
    assert set(names) == {"cells"} and set(nodes.tolist()) == {2}
    assert result.spikes[1].min() > 10.0 and result.spikes[1].max() < 31.0


def test_node_set_name_that_is_nowhere_is_named(tmp_path):
    path = write_circuit(tmp_path)
    config = json.loads(path.read_text())
    config["inputs"]["spikes_in"]["node_set"] = "thalamus"
    path.write_text(json.dumps(config))
    with pytest.raises(SonataError) as error:
        sx.Network.from_sonata(path)
    assert "'thalamus'" in _one_line(error) and "inputs.spikes_in" in str(error.value)


# ---- the network ------------------------------------------------------------------------------


def test_network_holds_the_edges_and_can_grow(tmp_path):
    edges = {"source_node_id": [0, 1, 1], "target_node_id": [3, 0, 3], "edge_type_id": [1, 1, 1]}
    path = write_circuit(
        tmp_path,
        edges=edges,
        edge_groups={0: {"syn_weight": [5.0, 6.0, 7.0], "delay": [1.0, 2.0, 3.0]}},
    )
    net = sx.Network.from_sonata(path)
    cells, inputs = net.sonata.populations["cells"], net.sonata.populations["inputs"]
    assert [p.name for p in net.populations] == ["cells", "inputs"]
    extra = net.create("iaf_psc_alpha", 2, name="extra")
    net.connect(extra.first_gid, net.sonata.gids("cells", [1]), weight=1.0, delay_ms=1.0)
    c = net.connections()
    rows = sorted(
        zip(
            c["source"].tolist(), c["target"].tolist(), c["weight"].tolist(), c["delay_ms"].tolist()
        )
    )
    expected = sorted([
        (inputs.first_gid + 0, cells.first_gid + 3, 5.0, 1.0),
        (inputs.first_gid + 1, cells.first_gid + 0, 6.0, 2.0),
        (inputs.first_gid + 1, cells.first_gid + 3, 7.0, 3.0),
        (extra.first_gid, cells.first_gid + 1, 1.0, 1.0),
    ])  # fmt: skip
    assert rows == expected
    assert net.dt_ms == 0.1 and net.sonata.tstop_ms == 50.0


def test_two_spikes_of_a_node_in_one_step_are_both_delivered(tmp_path):
    # NEST's spike generators deliver each: the second goes through a repeat cell
    currents = {}
    for name, spikes in (("double", [5.01, 5.04]), ("single", [5.01])):
        path = write_circuit(tmp_path / name, cells=1, inputs=1, spikes={0: spikes})
        net = sx.Network.from_sonata(path)
        index = net.record_state(net.sonata.gids("cells", [0]), "I_syn_ex")
        currents[name] = net.simulate(12.0).states[index]["values"][:, 0]
        if name == "double":
            cells, nodes = net.sonata.repeats["inputs"]
            assert cells.size == 1 and nodes.tolist() == [0]
    assert currents["single"].max() > 50.0
    np.testing.assert_allclose(currents["double"], 2.0 * currents["single"], rtol=1e-12, atol=0)


@pytest.mark.parametrize(("rounding", "step"), [("nest", 29), ("bmtk", 30)])
def test_input_rounding_as_nest_or_bmtk(tmp_path, rounding, step):
    path = write_circuit(tmp_path, cells=1, inputs=1, spikes={0: [3.0000003]})
    net = sx.Network.from_sonata(path, input_rounding=rounding)
    net.record_spikes(net.sonata.populations["inputs"])
    assert net.simulate(5.0).spike_steps.tolist() == [step]


def test_bmtk_config_naming_network_and_simulation(tmp_path):
    write_circuit(tmp_path)
    simulation = json.loads((tmp_path / "simulation_config.json").read_text())
    simulation.pop("network")
    (tmp_path / "simulation_config.json").write_text(json.dumps(simulation))
    (tmp_path / "config.json").write_text(
        json.dumps(
            {
                "network": str(tmp_path / "circuit_config.json"),
                "simulation": str(tmp_path / "simulation_config.json"),
            }
        )
    )
    config = load_config(tmp_path / "config.json")
    assert config.run_value("dt") == 0.1 and "spikes_in" in config.inputs and len(config.nodes) == 2


def test_node_set_all_is_every_cell_that_is_not_virtual(tmp_path):
    path = write_circuit(tmp_path, spikes={})
    config = json.loads(path.read_text())
    config["inputs"] = {
        "clamp": {
            "input_type": "current_clamp",
            "amp": 1000.0,
            "delay": 10.0,
            "duration": 20.0,
            "node_set": "all",
        }
    }
    path.write_text(json.dumps(config))
    net = sx.Network.from_sonata(path)
    names, nodes = net.sonata.node_ids(net.simulate(40.0).spikes[0])
    assert set(names) == {"cells"} and set(nodes.tolist()) == {0, 1, 2, 3}


def test_membrane_report_records_its_node_set(tmp_path):
    path = write_circuit(tmp_path)
    (tmp_path / "node_sets.json").write_text(
        json.dumps({"recorded": {"population": "cells", "node_id": [1, 3]}})
    )
    config = json.loads(path.read_text())
    config["node_sets_file"] = "$BASE_DIR/node_sets.json"
    config["reports"] = {
        "v": {"cells": "recorded", "variable_name": "V_m", "module": "membrane_report", "dt": 0.5}
    }
    path.write_text(json.dumps(config))
    net = sx.Network.from_sonata(path)
    state = net.simulate(10.0).states[net.sonata.reports["v"]]
    assert state["gids"].tolist() == net.sonata.gids("cells", [1, 3]).tolist()
    assert state["values"].shape == (20, 2)


def test_report_of_a_variable_the_model_lacks_is_named(tmp_path):
    path = write_circuit(tmp_path)
    config = json.loads(path.read_text())
    config["reports"] = {"w": {"cells": "cells", "variable_name": "w", "module": "membrane_report"}}
    path.write_text(json.dumps(config))
    with pytest.raises(SonataError) as error:
        sx.Network.from_sonata(path)
    assert "reports.w" in _one_line(error) and "'w'" in str(error.value)


@pytest.mark.parametrize("header", ["timestamps population node_ids", ""])
def test_bmtk_spike_csv_input_as_the_h5_one(tmp_path, header):
    spikes = {0: [2.0, 7.5], 1: [3.25]}
    reference = sx.Network.from_sonata(write_circuit(tmp_path / "h5", spikes=spikes))
    reference.record_spikes(reference.sonata.populations["inputs"])
    path = write_circuit(tmp_path / "csv", spikes=spikes)
    rows = [(t, "inputs", node) for node, times in spikes.items() for t in times]
    lines = [header] if header else []
    lines += [f"{t} {pop} {node}" if header else f"{t} {node}" for t, pop, node in rows]
    (tmp_path / "csv" / "spikes.csv").write_text("\n".join(lines) + "\n")
    config = json.loads(path.read_text())
    config["inputs"]["spikes_in"].update({"module": "csv", "input_file": "$BASE_DIR/spikes.csv"})
    path.write_text(json.dumps(config))
    net = sx.Network.from_sonata(path)
    net.record_spikes(net.sonata.populations["inputs"])
    ours, theirs = net.simulate(20.0), reference.simulate(20.0)
    assert ours.summary["spikes_sha256"] == theirs.summary["spikes_sha256"]
    assert ours.summary["spikes_total"] >= 3
