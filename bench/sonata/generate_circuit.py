"""A generated SONATA circuit for the reading benchmark: how large a circuit can spikex read,
and do reading time and memory per rank shrink with the ranks?

    python bench/sonata/generate_circuit.py DIRECTORY --nodes 100000 --indegree 100 [--seed 1]

One node population ``cells`` of ``iaf_psc_alpha`` point neurons (two node types), one of
``inputs`` (virtual, nodes / 10, with a Poisson spike file), edges cells -> cells
(``indegree`` random sources per target, syn_weight per edge, delay per edge type) and
inputs -> cells (10 per target), written target by target in chunks (memory stays within
one chunk) with ``indices/target_to_source`` as BMTK writes it, and a simulation config.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

CHUNK_TARGETS = 20_000


def _edges(handle, name, source_pop, target_pop, targets, sources_of, weight, seed):
    """Edges of ``targets`` (node ids 0..targets-1), ``sources_of(rng, t0, t1)`` giving
    (sources, counts per target) of a chunk; sorted by target, with the target index."""
    group = handle.create_group(f"edges/{name}")
    rng = np.random.default_rng(seed)
    datasets = {}
    for key, dtype in (("source_node_id", np.uint64), ("target_node_id", np.uint64), ("edge_type_id", np.uint32),
                       ("edge_group_id", np.uint16), ("edge_group_index", np.uint64), ("0/syn_weight", np.float64)):  # fmt: skip
        datasets[key] = group.create_dataset(
            key, shape=(0,), maxshape=(None,), dtype=dtype, chunks=(1 << 18,)
        )
    datasets["source_node_id"].attrs["node_population"] = source_pop
    datasets["target_node_id"].attrs["node_population"] = target_pop
    to_range = np.zeros((targets, 2), dtype=np.uint64)
    written = 0
    for t0 in range(0, targets, CHUNK_TARGETS):
        t1 = min(targets, t0 + CHUNK_TARGETS)
        sources, counts = sources_of(rng, t0, t1)
        n = sources.size
        columns = {
            "source_node_id": sources, "target_node_id": np.repeat(np.arange(t0, t1), counts),
            "edge_type_id": np.full(n, 1), "edge_group_id": np.zeros(n),
            "edge_group_index": np.arange(written, written + n), "0/syn_weight": weight(rng, n),
        }  # fmt: skip
        for key, values in columns.items():
            datasets[key].resize((written + n,))
            datasets[key][written:] = values
        starts = written + np.concatenate([[0], np.cumsum(counts)[:-1]])
        to_range[t0:t1, 0] = np.arange(t0, t1)
        to_range[t0:t1, 1] = np.arange(t0, t1) + 1
        ranges = np.stack([starts, starts + counts], axis=1)
        if t0 == 0:
            group.create_dataset(
                "indices/target_to_source/range_to_edge_id",
                data=ranges.astype(np.uint64),
                maxshape=(None, 2),
                chunks=(1 << 16, 2),
            )
        else:
            dataset = group["indices/target_to_source/range_to_edge_id"]
            dataset.resize((t1, 2))
            dataset[t0:t1] = ranges
        written += n
    group["indices/target_to_source/node_id_to_range"] = to_range
    return written


def generate(directory: Path, nodes: int, indegree: int, seed: int = 1) -> Path:
    import h5py

    d = Path(directory)
    (d / "network").mkdir(parents=True, exist_ok=True)
    (d / "components" / "cells").mkdir(parents=True, exist_ok=True)
    (d / "components" / "synapses").mkdir(parents=True, exist_ok=True)
    inputs = max(1, nodes // 10)
    for name, params in (
        ("a", {"C_m": 250.0, "tau_m": 10.0, "V_th": -55.0}),
        ("b", {"C_m": 200.0, "tau_m": 15.0, "V_th": -52.0}),
    ):
        (d / "components" / "cells" / f"{name}.json").write_text(json.dumps(params))
    (d / "components" / "synapses" / "static.json").write_text("{}")
    (d / "network" / "cells_types.csv").write_text(
        "node_type_id model_type model_template dynamics_params\n1 point_process nest:iaf_psc_alpha a.json\n"
        "2 point_process nest:iaf_psc_alpha b.json\n"
    )
    (d / "network" / "inputs_types.csv").write_text("node_type_id model_type\n9 virtual\n")
    (d / "network" / "edge_types.csv").write_text(
        "edge_type_id model_template dynamics_params delay\n1 static_synapse static.json 1.5\n"
    )
    with h5py.File(d / "network" / "nodes.h5", "w") as f:
        for name, n, types in (
            ("cells", nodes, np.where(np.arange(nodes) % 5 == 0, 2, 1)),
            ("inputs", inputs, np.full(inputs, 9)),
        ):
            g = f.create_group(f"nodes/{name}")
            g["node_id"] = np.arange(n, dtype=np.uint64)
            g["node_type_id"] = types.astype(np.uint64)
            g["node_group_id"] = np.zeros(n, dtype=np.uint32)
            g["node_group_index"] = np.arange(n, dtype=np.uint64)
            g.create_group("0")

    def recurrent(rng, t0, t1):
        counts = np.full(t1 - t0, indegree)
        return rng.integers(0, nodes, size=counts.sum()), counts

    def external(rng, t0, t1):
        counts = np.full(t1 - t0, min(10, inputs))
        return rng.integers(0, inputs, size=counts.sum()), counts

    with h5py.File(d / "network" / "edges.h5", "w") as f:
        _edges(
            f,
            "cells_to_cells",
            "cells",
            "cells",
            nodes,
            recurrent,
            lambda rng, n: rng.uniform(-20.0, 20.0, n),
            seed,
        )
        _edges(
            f,
            "inputs_to_cells",
            "inputs",
            "cells",
            nodes,
            external,
            lambda rng, n: np.full(n, 150.0),
            seed + 1,
        )
    rng = np.random.default_rng(seed + 2)
    count = rng.poisson(40.0 * 0.2, size=inputs)  # 40 Hz over 200 ms
    with h5py.File(d / "spikes_in.h5", "w") as f:
        f["spikes/inputs/node_ids"] = np.repeat(np.arange(inputs), count).astype(np.uint64)
        f["spikes/inputs/timestamps"] = rng.uniform(0.1, 200.0, size=count.sum())
    circuit = {
        "manifest": {"$BASE_DIR": "${configdir}"},
        "components": {
            "point_neuron_models_dir": "$BASE_DIR/components/cells",
            "synaptic_models_dir": "$BASE_DIR/components/synapses",
        },
        "networks": {
            "nodes": [
                {
                    "nodes_file": "$BASE_DIR/network/nodes.h5",
                    "node_types_file": "$BASE_DIR/network/cells_types.csv",
                }
            ],
            "edges": [
                {
                    "edges_file": "$BASE_DIR/network/edges.h5",
                    "edge_types_file": "$BASE_DIR/network/edge_types.csv",
                }
            ],
        },
    }
    # nodes.h5 holds two populations of different types files: split the entry in two
    circuit["networks"]["nodes"] = [
        {
            "nodes_file": "$BASE_DIR/network/cells.h5",
            "node_types_file": "$BASE_DIR/network/cells_types.csv",
        },
        {
            "nodes_file": "$BASE_DIR/network/inputs.h5",
            "node_types_file": "$BASE_DIR/network/inputs_types.csv",
        },
    ]
    with h5py.File(d / "network" / "nodes.h5", "r") as source:
        for name in ("cells", "inputs"):
            with h5py.File(d / "network" / f"{name}.h5", "w") as target:
                source.copy(source[f"nodes/{name}"], target.require_group("nodes"), name=name)
    (d / "network" / "nodes.h5").unlink()
    (d / "circuit_config.json").write_text(json.dumps(circuit, indent=1))
    simulation = {
        "manifest": {"$BASE_DIR": "${configdir}"},
        "run": {"tstop": 20.0, "dt": 0.1},
        "network": "$BASE_DIR/circuit_config.json",
        "inputs": {
            "spikes": {
                "input_type": "spikes",
                "module": "sonata",
                "input_file": "$BASE_DIR/spikes_in.h5",
                "node_set": "inputs",
            }
        },
        "output": {"output_dir": "$BASE_DIR/output"},
    }
    (d / "simulation_config.json").write_text(json.dumps(simulation, indent=1))
    return d / "simulation_config.json"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--indegree", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(generate(args.directory, args.nodes, args.indegree, args.seed))
