"""NEST 3.10's side of the SONATA validation: build a SONATA circuit with nest.Create and
nest.Connect as ``nest.SonataNetwork`` (pynest/nest/lib/hl_api_sonata.py and
nestkernel/sonata_connector.cpp of NEST 3.10) does, simulate it and print its spikes.

NEST's wheel is built without HDF5, so ``nest.SonataNetwork`` cannot run here; this script
follows its rules step by step instead:

* manifest: every ``$VAR`` of the manifest relative to the config's directory;
* neurons: one ``nest.Create(model, n)`` per node population (one model per node types
  CSV), then each node type's ``dynamics_params`` JSON set on its nodes;
* virtual nodes: ``spike_train_injector`` with the input file's spike times of each node
  and ``allow_offgrid_times``; the input is the one whose ``node_set`` is the population;
* edges: per edge, ``syn_weight`` / ``delay`` from the edge group's dataset, else from the
  edge type's CSV columns and ``dynamics_params`` JSON, else the synapse model's default
  (NaN in NEST's reader); ``nsyns`` is not used (as NEST).

The HDF5 files are read from their ``.h5.npz`` transcriptions (sonata_h5_dump.py).

    python nest_sonata.py simulation_config.json [POPULATION:NODE]
    # one JSON line: {population: {node_ids, times}} (and "trace": V_m of that node)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nest
import numpy as np


class H5:
    """The datasets of a transcribed HDF5 file (``X.h5.npz``) by path."""

    def __init__(self, path: str):
        content = np.load(str(path) + ".npz")
        self.arrays = {k: content[k] for k in content.files if k != "__attrs__"}
        self.attrs = json.loads(str(content["__attrs__"]))

    def children(self, prefix: str) -> list[str]:
        prefix = prefix.rstrip("/") + "/"
        return sorted({k[len(prefix) :].split("/")[0] for k in self.arrays if k.startswith(prefix)})

    def __getitem__(self, name: str) -> np.ndarray:
        return self.arrays[name]

    def __contains__(self, name: str) -> bool:
        return name in self.arrays


def parse_config(path: Path) -> dict:
    """NEST's _parse_config: manifest paths relative to the config's directory, then every
    string starting with '$' substituted."""
    base = path.resolve().parent
    conf = json.loads(path.read_text())
    manifest = {}
    for key, value in conf.get("manifest", {}).items():
        if "$BASE_DIR" in value:
            value = value.replace("$BASE_DIR", ".")
        manifest[key.removeprefix("$")] = base.joinpath(value).as_posix()

    def substitute(obj):
        if isinstance(obj, dict):
            return {k: substitute(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [substitute(v) for v in obj]
        if isinstance(obj, str) and obj.startswith("$"):
            for name, value in manifest.items():
                obj = obj.replace(name, value)
            return obj[1:]
        return obj

    conf = substitute(conf)
    conf["manifest"] = manifest
    return conf


def read_csv(path: str) -> list[dict]:
    lines = [line.split() for line in Path(path).read_text().splitlines() if line.strip()]
    header = lines[0]
    rows = []
    for fields in lines[1:]:
        row = {}
        for name, text in zip(header, fields):
            try:
                row[name] = int(text)
            except ValueError:
                try:
                    row[name] = float(text)
                except ValueError:
                    row[name] = text
        rows.append(row)
    return rows


def main(sim_config: Path, trace: str | None = None) -> None:
    conf = parse_config(sim_config)
    circuit = parse_config(Path(conf["network"]))
    conf.update(
        {k: v for k, v in circuit.items() if k not in conf or k in ("networks", "components")}
    )
    nest.ResetKernel()
    nest.set(resolution=conf["run"]["dt"], print_time=False)
    populations = {}
    virtual = set()
    for nodes_conf in conf["networks"]["nodes"]:
        types = read_csv(nodes_conf["node_types_file"])
        model_type = types[0]["model_type"]
        by_id = {row["node_type_id"]: row for row in types}
        h5 = H5(nodes_conf["nodes_file"])
        for pop in h5.children("nodes"):
            type_ids = h5[f"nodes/{pop}/node_type_id"]
            n = type_ids.size
            if model_type == "virtual":
                virtual.add(pop)
                input_file = next(
                    i["input_file"] for i in conf["inputs"].values() if i["node_set"] == pop
                )
                spikes = H5(input_file)
                group = f"spikes/{pop}" if f"spikes/{pop}/timestamps" in spikes else "spikes"
                ids = (
                    spikes[f"{group}/gids"]
                    if f"{group}/gids" in spikes
                    else spikes[f"{group}/node_ids"]
                )
                times = spikes[f"{group}/timestamps"]
                params = [
                    {"spike_times": times[ids == k], "allow_offgrid_times": True} for k in range(n)
                ]
                populations[pop] = nest.Create("spike_train_injector", n=n, params=params)
                continue
            models = {by_id[t]["model_template"].replace("nest:", "") for t in by_id}
            assert len(models) == 1, "one model per node types file in this script"
            nodes = nest.Create(models.pop(), n=n)
            unique, inverse = np.unique(type_ids, return_inverse=True)
            for k, type_id in enumerate(unique):
                path = (
                    Path(conf["components"]["point_neuron_models_dir"])
                    / by_id[int(type_id)]["dynamics_params"]
                )
                nodes[inverse == k].set(json.loads(path.read_text()))
            populations[pop] = nodes
    for edges_conf in conf["networks"]["edges"]:
        types = read_csv(edges_conf["edge_types_file"])
        specs = {}
        for row in types:
            model = row["model_template"].replace("nest:", "")
            settable = set(nest.GetDefaults(model))
            spec = {("weight" if k == "syn_weight" else k): v for k, v in row.items()}
            spec = {k: v for k, v in spec.items() if k in settable}
            if "dynamics_params" in row:
                path = Path(conf["components"]["synaptic_models_dir"]) / row["dynamics_params"]
                spec.update(json.loads(path.read_text()))
            specs[row["edge_type_id"]] = (model, spec)
        h5 = H5(edges_conf["edges_file"])
        for pop in h5.children("edges"):
            base = f"edges/{pop}"
            groups = [g for g in h5.children(base) if g.isdigit()]
            assert len(groups) == 1, "NEST reads one edge group"
            src_pop = h5.attrs[f"{base}/source_node_id"]["node_population"]
            tgt_pop = h5.attrs[f"{base}/target_node_id"]["node_population"]
            src, tgt = h5[f"{base}/source_node_id"], h5[f"{base}/target_node_id"]
            type_ids = h5[f"{base}/edge_type_id"]
            columns = {
                name: h5[f"{base}/{groups[0]}/{key}"]
                for name, key in (("weight", "syn_weight"), ("delay", "delay"))
                if f"{base}/{groups[0]}/{key}" in h5
            }
            for type_id in np.unique(type_ids):
                model, spec = specs[int(type_id)]
                mine = type_ids == type_id
                syn_spec = {
                    "synapse_model": model,
                    **{k: v for k, v in spec.items() if k not in ("weight", "delay")},
                }
                for name in ("weight", "delay"):
                    if name in columns:
                        syn_spec[name] = columns[name][mine].astype(float)
                    elif name in spec:
                        syn_spec[name] = np.full(int(mine.sum()), float(spec[name]))
                sources = np.asarray(populations[src_pop].tolist())[src[mine]]
                targets = np.asarray(populations[tgt_pop].tolist())[tgt[mine]]
                nest.Connect(sources.tolist(), targets.tolist(), "one_to_one", syn_spec)
    recorders = {}
    for pop, nodes in populations.items():
        if pop not in virtual:
            recorders[pop] = nest.Create("spike_recorder")
            nest.Connect(nodes, recorders[pop])
    multimeter = None
    if trace:  # "population:node_id": V_m of that node at every step
        pop, node = trace.split(":")
        multimeter = nest.Create(
            "multimeter", params={"record_from": ["V_m"], "interval": conf["run"]["dt"]}
        )
        nest.Connect(multimeter, populations[pop][int(node)])
    nest.Simulate(conf["run"]["tstop"])
    result = {}
    for pop, recorder in recorders.items():
        events = recorder.get("events")
        first = populations[pop][0].global_id
        result[pop] = {
            "node_ids": (np.asarray(events["senders"]) - first).tolist(),
            "times": np.asarray(events["times"], dtype=float).tolist(),
        }
    if multimeter is not None:
        result["trace"] = np.asarray(multimeter.get("events")["V_m"], dtype=float).tolist()
    print(json.dumps(result))


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else None)
