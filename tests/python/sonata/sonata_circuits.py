"""Small SONATA circuits written for the tests (h5py, JSON, CSV), and the NEST example.

``write_circuit(directory, ...)`` writes a circuit of two node populations, ``cells``
(point neurons of ``model``) and ``inputs`` (virtual), one edge population inputs -> cells
with the datasets the caller gives, a simulation config and a spike file; every file
can be changed afterwards by the test.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO

# NEST 3.10's example circuit, in shared/ beside the repository (read-only).
EXAMPLE = REPO.parent / "shared" / "data" / "sonata" / "300_pointneurons"


def require_example() -> Path:
    """The example's simulation config; the test skips when shared/ is not there."""
    if not (EXAMPLE / "simulation_config.json").is_file():
        pytest.skip(f"{EXAMPLE} is not there (shared/ beside the repository)")
    return EXAMPLE / "simulation_config.json"


def copy_example(directory: Path) -> Path:
    """A writable copy of NEST's 300_pointneurons example; its simulation config."""
    require_example()
    target = Path(directory) / "300_pointneurons"
    shutil.copytree(EXAMPLE, target)
    return target / "simulation_config.json"


def write_circuit(
    directory: Path,
    model: str = "nest:iaf_psc_alpha",
    cells: int = 4,
    inputs: int = 2,
    edges: dict | None = None,
    edge_types: str = "edge_type_id model_template dynamics_params\n1 static_synapse syn.json\n",
    edge_groups: dict | None = None,
    spikes: dict | None = None,
    cell_params: dict | None = None,
    node_overrides: dict | None = None,
    tstop: float = 50.0,
    dt: float = 0.1,
    cell_types: str | None = None,
    cell_type_ids=None,
    cell_jsons: dict | None = None,
    simulation_extra: dict | None = None,
) -> Path:
    """Write the circuit; returns its simulation config.

    ``edges``: source_node_id, target_node_id, edge_type_id arrays (default: input k ->
    cell k % cells); ``edge_groups``: {group id: {dataset: array}} plus ``edge_group_id`` /
    ``edge_group_index`` in ``edges`` (default: one group 0 with syn_weight 100);
    ``spikes``: {node id: times} of the inputs (new layout); ``node_overrides``: per-node
    dynamics_params datasets of the cells' node group; ``cell_types`` (the cells' node
    types CSV) with ``cell_type_ids`` (each cell's type) and ``cell_jsons`` ({file name:
    parameters} in components/cells); ``simulation_extra``: keys merged into the
    simulation config.
    """
    import h5py

    d = Path(directory)
    (d / "network").mkdir(parents=True, exist_ok=True)
    (d / "components" / "cells").mkdir(parents=True, exist_ok=True)
    (d / "components" / "synapses").mkdir(parents=True, exist_ok=True)
    params = {
        "C_m": 250.0,
        "tau_m": 10.0,
        "E_L": -70.0,
        "V_th": -55.0,
        "V_reset": -70.0,
        "t_ref": 2.0,
    }
    params.update(cell_params or {})
    (d / "components" / "cells" / "cell.json").write_text(json.dumps(params))
    (d / "components" / "synapses" / "syn.json").write_text("{}")
    for file_name, content in (cell_jsons or {}).items():
        (d / "components" / "cells" / file_name).write_text(json.dumps(content))
    (d / "network" / "cells_types.csv").write_text(
        cell_types
        or f"node_type_id model_type model_template dynamics_params\n10 point_process {model} cell.json\n"
    )
    (d / "network" / "inputs_types.csv").write_text("node_type_id model_type\n20 virtual\n")
    (d / "network" / "edge_types.csv").write_text(edge_types)
    with h5py.File(d / "network" / "cells.h5", "w") as f:
        g = f.create_group("nodes/cells")
        g["node_id"] = np.arange(cells, dtype=np.uint64)
        g["node_type_id"] = (
            np.full(cells, 10, dtype=np.uint64)
            if cell_type_ids is None
            else np.asarray(cell_type_ids, dtype=np.uint64)
        )
        g["node_group_id"] = np.zeros(cells, dtype=np.uint32)
        g["node_group_index"] = np.arange(cells, dtype=np.uint64)
        group = g.create_group("0")
        group["x"] = np.arange(cells, dtype=float)
        for name, values in (node_overrides or {}).items():
            group[f"dynamics_params/{name}"] = np.asarray(values, dtype=float)
    with h5py.File(d / "network" / "inputs.h5", "w") as f:
        g = f.create_group("nodes/inputs")
        g["node_id"] = np.arange(inputs, dtype=np.uint64)
        g["node_type_id"] = np.full(inputs, 20, dtype=np.uint64)
        g.create_group("0")
    if edges is None:
        edges = {
            "source_node_id": np.arange(inputs),
            "target_node_id": np.arange(inputs) % cells,
            "edge_type_id": np.ones(inputs, dtype=int),
        }
    n = len(edges["target_node_id"])
    if edge_groups is None:
        edge_groups = {0: {"syn_weight": np.full(n, 100.0)}}
    with h5py.File(d / "network" / "edges.h5", "w") as f:
        g = f.create_group("edges/inputs_to_cells")
        g["source_node_id"] = np.asarray(edges["source_node_id"], dtype=np.uint64)
        g["source_node_id"].attrs["node_population"] = "inputs"
        g["target_node_id"] = np.asarray(edges["target_node_id"], dtype=np.uint64)
        g["target_node_id"].attrs["node_population"] = "cells"
        g["edge_type_id"] = np.asarray(edges["edge_type_id"], dtype=np.uint32)
        g["edge_group_id"] = np.asarray(edges.get("edge_group_id", np.zeros(n)), dtype=np.uint16)
        g["edge_group_index"] = np.asarray(
            edges.get("edge_group_index", np.arange(n)), dtype=np.uint32
        )
        for group_id, datasets in edge_groups.items():
            group = g.create_group(str(group_id))
            for name, values in datasets.items():
                group[name] = np.asarray(values)
    if spikes is None:
        spikes = {k: [5.0 + k, 20.0 + k] for k in range(inputs)}
    ids = np.concatenate([np.full(len(t), k) for k, t in spikes.items()]) if spikes else np.zeros(0)
    times = (
        np.concatenate([np.asarray(t, float) for t in spikes.values()]) if spikes else np.zeros(0)
    )
    with h5py.File(d / "spikes_in.h5", "w") as f:
        f["spikes/inputs/node_ids"] = ids.astype(np.uint64)
        f["spikes/inputs/timestamps"] = times
    circuit = {
        "manifest": {"$BASE_DIR": "${configdir}", "$NET": "$BASE_DIR/network"},
        "components": {
            "point_neuron_models_dir": "$BASE_DIR/components/cells",
            "synaptic_models_dir": "$BASE_DIR/components/synapses",
        },
        "networks": {
            "nodes": [
                {"nodes_file": "$NET/cells.h5", "node_types_file": "$NET/cells_types.csv"},
                {"nodes_file": "$NET/inputs.h5", "node_types_file": "$NET/inputs_types.csv"},
            ],
            "edges": [{"edges_file": "$NET/edges.h5", "edge_types_file": "$NET/edge_types.csv"}],
        },
    }
    (d / "circuit_config.json").write_text(json.dumps(circuit, indent=1))
    simulation = {
        "manifest": {"$BASE_DIR": "."},
        "run": {"tstop": tstop, "dt": dt},
        "network": "$BASE_DIR/circuit_config.json",
        "inputs": {
            "spikes_in": {
                "input_type": "spikes",
                "module": "h5",
                "input_file": "$BASE_DIR/spikes_in.h5",
                "node_set": "inputs",
            }
        },
        "output": {"output_dir": "$BASE_DIR/output"},
    }
    simulation.update(simulation_extra or {})
    (d / "simulation_config.json").write_text(json.dumps(simulation, indent=1))
    return d / "simulation_config.json"
