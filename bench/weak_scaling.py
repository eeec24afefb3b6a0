"""Weak scaling of the exchange methods, from counts and time (NEST paper, section 3.5).

Question: with the number of cells per rank fixed, how do build, init and simulation time,
bytes moved per rank and memory per structure change with P for allgather and the
directed methods (alltoall sorted / unsorted, alltoallv)?

Runs `spikex run` for every (method, P) and writes bench/results/weak_scaling.json. Ranks
beyond the 2 cores of this machine are oversubscribed: times at P > 2 measure a shared CPU,
counts and memory are exact.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SPIKEX = str(Path(sys.executable).parent / "spikex")
METHODS = {
    "allgather": (),
    "alltoall-sort": ("exchange.method=alltoall", "connections.sort_by_source=true"),
    "alltoall-nosort": ("exchange.method=alltoall", "connections.sort_by_source=false"),
    "alltoallv": ("exchange.method=alltoallv",),
}


def run(config: Path, ranks: int, cells_per_rank: int, sets: tuple[str, ...], outdir: Path) -> dict:
    args = [SPIKEX, "run", str(config), "--np", str(ranks), "-o", str(outdir),
            "--set", f"network.cells={cells_per_rank * ranks}"]
    for item in sets:
        args += ["--set", item]
    subprocess.run(args, check=True, stdin=subprocess.DEVNULL)
    return json.loads((outdir / "summary.json").read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells-per-rank", type=int, default=2048)
    parser.add_argument("--indegree", type=int, default=500)
    parser.add_argument("--tstop-ms", type=float, default=100.0)
    parser.add_argument("--ranks", default="1,2,4,8")
    parser.add_argument("-o", "--output", default=str(HERE / "results" / "weak_scaling.json"))
    args = parser.parse_args()

    results = []
    with tempfile.TemporaryDirectory() as scratch:
        config = Path(scratch) / "weak.toml"
        config.write_text(
            f"[simulation]\ntstop_ms = {args.tstop_ms}\n[network]\nindegree = {args.indegree}\n"
            "indegree_spread = 0\nweight_spread = 0.02\n"
        )
        for ranks in [int(p) for p in args.ranks.split(",")]:
            for name, sets in METHODS.items():
                s = run(config, ranks, args.cells_per_rank, sets, Path(scratch) / f"{name}-{ranks}")
                exchange = s["exchange"]
                results.append({
                    "method": name, "ranks": ranks, "cells": s["cells"], "connections": s["connections"],
                    "spikes_sha256": s["spikes_sha256"], "time_s": s["time_s"],
                    "bytes_sent_per_rank": exchange["bytes_sent"] / ranks,
                    "bytes_received_per_rank": exchange.get("bytes_received", 0) / ranks,
                    "rounds_per_rank": exchange["rounds"] / ranks,
                    "memory_bytes": s["memory_bytes"], "peak_rss_mb": s["peak_rss_mb"],
                })
                print(f"{name:16s} P={ranks}: simulate {s['time_s']['simulate']:.2f} s, "
                      f"received {results[-1]['bytes_received_per_rank'] / 1e6:.2f} MB/rank, "
                      f"receive buffer {s['memory_bytes']['receive_buffers']['max'] / 1e3:.1f} kB")
    shas = {r["spikes_sha256"] for r in results if r["ranks"] == results[0]["ranks"]}
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(json.dumps({
        "question": "weak scaling: per-rank time, bytes and memory with cells per rank fixed",
        "cells_per_rank": args.cells_per_rank, "indegree": args.indegree, "tstop_ms": args.tstop_ms,
        "same_spikes_per_P": len(shas) == 1, "results": results,
    }, indent=1))


if __name__ == "__main__":
    main()
