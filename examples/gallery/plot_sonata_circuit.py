"""
A SONATA circuit
================

A point-neuron circuit in the SONATA format, as NEST and BMTK read it, written here with
h5py (100 ``iaf_psc_alpha`` cells, 20 virtual input nodes with spike trains, random
edges), then run by ``sx.Network.from_sonata``; ``spikex run simulation_config.json``
runs the same file from the command line (:doc:`/user/sonata`). Spikes come back per
SONATA node population, with the circuit's node ids.
"""

import json
import tempfile
from pathlib import Path

import h5py
import matplotlib.pyplot as plt
import numpy as np
import spikex as sx

rng = np.random.default_rng(1)
CELLS, INPUTS, EDGES = 100, 20, 800


def write_circuit(d: Path) -> Path:
    """Nodes, edges, types, parameters, input spikes and the simulation config."""
    (d / "cells").mkdir(parents=True)
    cell = {"C_m": 250.0, "tau_m": 10.0, "E_L": -70.0, "V_th": -55.0, "V_reset": -70.0}
    (d / "cells" / "lif.json").write_text(json.dumps(cell))
    (d / "syn.json").write_text("{}")
    (d / "cells_types.csv").write_text(
        "node_type_id model_type model_template dynamics_params\n"
        "10 point_process nest:iaf_psc_alpha lif.json\n"
    )
    (d / "inputs_types.csv").write_text("node_type_id model_type\n20 virtual\n")
    (d / "edge_types.csv").write_text(
        "edge_type_id model_template dynamics_params delay\n1 static_synapse syn.json 1.5\n"
    )
    for name, n, type_id in (("cells", CELLS, 10), ("inputs", INPUTS, 20)):
        with h5py.File(d / f"{name}.h5", "w") as f:
            g = f.create_group(f"nodes/{name}")
            g["node_id"] = np.arange(n, dtype=np.uint64)
            g["node_type_id"] = np.full(n, type_id, dtype=np.uint64)
            g["node_group_id"] = np.zeros(n, dtype=np.uint32)
            g["node_group_index"] = np.arange(n, dtype=np.uint64)
            g.create_group("0")
    with h5py.File(d / "edges.h5", "w") as f:
        g = f.create_group("edges/inputs_to_cells")
        g["source_node_id"] = rng.integers(0, INPUTS, EDGES).astype(np.uint64)
        g["source_node_id"].attrs["node_population"] = "inputs"
        g["target_node_id"] = np.sort(rng.integers(0, CELLS, EDGES)).astype(np.uint64)
        g["target_node_id"].attrs["node_population"] = "cells"
        g["edge_type_id"] = np.ones(EDGES, dtype=np.uint32)
        g["edge_group_id"] = np.zeros(EDGES, dtype=np.uint16)
        g["edge_group_index"] = np.arange(EDGES, dtype=np.uint32)
        g["0/syn_weight"] = rng.uniform(30.0, 90.0, EDGES)
    trains = [np.sort(rng.uniform(0.0, 200.0, rng.poisson(40))) for _ in range(INPUTS)]
    with h5py.File(d / "spikes_in.h5", "w") as f:
        f["spikes/inputs/node_ids"] = np.repeat(np.arange(INPUTS), [len(t) for t in trains]).astype(
            np.uint64
        )
        f["spikes/inputs/timestamps"] = np.concatenate(trains)
    simulation = {
        "manifest": {"$BASE_DIR": "${configdir}"},
        "run": {"tstop": 200.0, "dt": 0.1},
        "components": {
            "point_neuron_models_dir": "$BASE_DIR/cells",
            "synaptic_models_dir": "$BASE_DIR",
        },
        "networks": {
            "nodes": [
                {
                    "nodes_file": "$BASE_DIR/cells.h5",
                    "node_types_file": "$BASE_DIR/cells_types.csv",
                },
                {
                    "nodes_file": "$BASE_DIR/inputs.h5",
                    "node_types_file": "$BASE_DIR/inputs_types.csv",
                },
            ],
            "edges": [
                {"edges_file": "$BASE_DIR/edges.h5", "edge_types_file": "$BASE_DIR/edge_types.csv"}
            ],
        },
        "inputs": {
            "spikes_in": {
                "input_type": "spikes",
                "module": "h5",
                "input_file": "$BASE_DIR/spikes_in.h5",
                "node_set": "inputs",
            }
        },
    }
    (d / "simulation_config.json").write_text(json.dumps(simulation, indent=1))
    return d / "simulation_config.json"


with tempfile.TemporaryDirectory() as directory:
    net = sx.Network.from_sonata(write_circuit(Path(directory)))
    result = net.simulate(net.sonata.tstop_ms)

gids, times = result.population_spikes("cells")
cells = next(p for p in result.populations if p.name == "cells")
node_ids = gids - cells.first_gid
print(f"{len(gids)} spikes of {CELLS} cells; populations: {[p.name for p in result.populations]}")
fig, ax = plt.subplots(figsize=(8, 3.5), layout="constrained")
ax.scatter(times, node_ids, s=3, c="k")
ax.set(
    xlabel="time (ms)",
    ylabel="node id (population 'cells')",
    title="a SONATA circuit run by spikex",
)
plt.show()
