"""Reading a generated SONATA circuit: build time and peak memory per rank on 1 and 2 ranks
(question: does each rank's memory follow its share of the edges, not the file?), and the
time ``read_edges`` takes for all targets, a contiguous half and an interleaved half.

    python bench/sonata/read_scale.py [--nodes 100000] [--indegree 100] [--dir /tmp/sonata_scale]
                                      [--out bench/results/sonata_read_scale.json]

Also measured: what every rank reads whole, the nodes (``read_node_populations``: node
types, models, per-node parameters) with the node sets and inputs, in a fresh process
(seconds, and its peak RSS above the RSS before reading).

The circuit comes from generate_circuit.py (kept in --dir between runs). ``spikex run``
of its simulation config (20 ms) gives ``time_s.build`` (reading the nodes and this rank's
edges, and building the engine) and ``peak_rss_mb``. NEST's ``SonataNetwork`` cannot run
here (its wheel has no HDF5), so there is no NEST column.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
from generate_circuit import generate


def run(config: Path, ranks: int, scheme: str, outdir: Path) -> dict:
    command = [sys.executable, "-m", "spikex", "run", str(config), "--np", str(ranks), "-o", str(outdir),
               "--overwrite", "--progress", "none", "--set", f"distribution.scheme={scheme}"]  # fmt: skip
    load_before = os.getloadavg()[0]
    subprocess.run(command, check=True, capture_output=True, text=True)
    summary = json.loads((outdir / "summary.json").read_text())
    return {
        "ranks": ranks, "distribution": scheme, "connections": summary["connections"],
        "build_s": round(summary["time_s"]["build"], 3), "peak_rss_mb_max": round(summary["peak_rss_mb"]["max"], 1),
        "peak_rss_mb_mean": round(summary["peak_rss_mb"]["mean"], 1), "spikes_sha256": summary["spikes_sha256"],
        "load_1min_before": round(load_before, 2), "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
    }  # fmt: skip


NODE_READ = """
import json, sys, time
from spikex.sonata import load_config, read_node_populations
from spikex.sonata.node_sets import NodeSets
from spikex.sonata.inputs import spike_trains
def status_kb(key):  # VmRSS: now; VmHWM: this process's peak (ru_maxrss may carry the
    for line in open("/proc/self/status"):  # parent's peak over fork and exec)
        if line.startswith(key + ":"):
            return int(line.split()[1])
def rss_kb():
    return status_kb("VmRSS")
before = rss_kb()
start = time.perf_counter()
config = load_config(sys.argv[1])
nodes = read_node_populations(config)
middle = time.perf_counter()
trains = spike_trains(config, NodeSets(config, nodes), 0.1)
end = time.perf_counter()
after = status_kb("VmHWM")
print(json.dumps({"nodes": sum(p.size for p in nodes), "read_nodes_s": round(middle - start, 3),
                  "read_inputs_s": round(end - middle, 3), "peak_rss_growth_mb": round((after - before) / 1024, 1)}))
"""


def node_read(config: Path) -> dict:
    """Reading the nodes (and the inputs) as every rank does, in a fresh process."""
    done = subprocess.run([sys.executable, "-c", NODE_READ, str(config)], check=True,
                          capture_output=True, text=True)  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


def read_times(config: Path, nodes: int) -> dict:
    from spikex.sonata import edge_populations, load_config, read_edges

    populations = edge_populations(load_config(config))
    times = {}
    for name, targets in (
        ("all", None),
        ("contiguous_half", np.arange(nodes // 2)),
        ("interleaved_half", np.arange(0, nodes, 2)),
    ):
        start = time.perf_counter()
        edges = sum(
            read_edges(p, target_node_ids=targets, target_size=nodes).target.size
            for p in populations
        )
        times[name] = {"edges": int(edges), "seconds": round(time.perf_counter() - start, 3)}
    return times


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--indegree", type=int, default=100)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/sonata_scale"))
    parser.add_argument(
        "--out", type=Path, default=REPO / "bench" / "results" / "sonata_read_scale.json"
    )
    args = parser.parse_args()
    circuit = args.dir / f"n{args.nodes}_k{args.indegree}"
    config = circuit / "simulation_config.json"
    if not config.exists():
        generate(circuit, args.nodes, args.indegree)
    runs = [
        run(config, p, s, args.dir / f"out_{p}_{s}")
        for p, s in ((1, "round_robin"), (2, "round_robin"), (2, "consecutive"))
    ]
    report = {
        "question": "reading time and peak memory per rank of a generated SONATA circuit, 1 and 2 ranks",
        "nodes": args.nodes, "indegree": args.indegree, "edges": runs[0]["connections"],
        "same_spikes": len({r["spikes_sha256"] for r in runs}) == 1, "runs": runs, "read_edges": read_times(config, args.nodes),
        "read_nodes_every_rank": node_read(config),
        "machine": "2 cores, shared", "nest": "nest.SonataNetwork unavailable (NEST 3.10 wheel without HDF5)",
    }  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))
