"""The Hines, Kumar & Schuermann 2011 artificial-cell benchmark in NEURON (one run).

The network of examples/hines2011_demo.toml built with NEURON's ParallelContext:
``cells`` IntervalFire cells (mod/IntervalFire.mod) on gids 0..N-1, gid i on rank
i mod P (round robin, as spikex's config); cell j receives C_j ~ UniformInt[C - dC/2,
C + dC/2] inputs from distinct random sources other than itself (pc.gid_connect), weight
0, delay 1 ms; fixed step dt = 0.025 ms, tstop 200 ms, pc.psolve. Intervals uniform in
[20, 40] ms, a new one after every spike, from NEURON's Random123 stream (seed, gid, 0).

The draws are this script's own (numpy's PCG64 seeded with (seed, gid) per target cell),
not spikex's Philox streams: the same statistics, not the same connections or intervals.

Run by bench/neuron/hines_vs_neuron.py::

    mpiexec -n P bench/neuron/.venv/bin/python bench/neuron/hines_neuron.py --output run.json

Rank 0 writes a JSON: times (setup = cells + connections, init = finitialize,
simulate = pc.psolve wall time), spike count over all ranks, connections, peak RSS of each
rank (getrusage ru_maxrss in the rank itself, after the run).
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

import numpy as np
from neuron import h

HERE = Path(__file__).resolve().parent


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cells", type=int, default=8192)
    parser.add_argument("--indegree", type=int, default=1000)
    parser.add_argument("--indegree-spread", type=int, default=100)
    parser.add_argument("--tstop-ms", type=float, default=200.0)
    parser.add_argument("--dt-ms", type=float, default=0.025)
    parser.add_argument("--delay-ms", type=float, default=1.0)
    parser.add_argument("--weight", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--queue", choices=("bin", "tree"), default="tree",
        help="NEURON's event queue: the fixed-step bin queue (cvode.queue_mode(1, 0), events "
        "on the dt grid as in spikex) or its default splay tree (exact event times) [tree]",
    )  # fmt: skip
    parser.add_argument("--output", type=Path, required=True)
    return parser.parse_args()


def sources_of(gid: int, args: argparse.Namespace) -> np.ndarray:
    """The distinct sources of cell ``gid``: C_j of the N - 1 other cells."""
    rng = np.random.default_rng([args.seed, gid])
    half = args.indegree_spread // 2
    count = int(rng.integers(args.indegree - half, args.indegree + half + 1))
    sources = rng.choice(args.cells - 1, size=count, replace=False)
    sources[sources >= gid] += 1
    return sources


def main() -> int:
    args = parse_arguments()
    h.nrnmpi_init()
    h.nrn_load_dll(str(HERE / "x86_64" / "libnrnmech.so"))
    pc = h.ParallelContext()
    rank, ranks = int(pc.id()), int(pc.nhost())

    pc.barrier()
    start = time.perf_counter()
    cells, detectors = {}, []
    for gid in range(rank, args.cells, ranks):
        cell = h.IntervalFire()
        cell.rng.set_ids(args.seed, gid, 0)
        pc.set_gid2node(gid, rank)
        detector = h.NetCon(cell, None)
        pc.cell(gid, detector)
        cells[gid] = cell
        detectors.append(detector)
    netcons = []
    for gid, cell in cells.items():
        for source in sources_of(gid, args).tolist():
            netcon = pc.gid_connect(source, cell)
            netcon.weight[0] = args.weight
            netcon.delay = args.delay_ms
            netcons.append(netcon)
    pc.barrier()
    setup_s = time.perf_counter() - start

    spike_times, spike_gids = h.Vector(), h.Vector()
    pc.spike_record(-1, spike_times, spike_gids)
    h.dt = args.dt_ms
    h.CVode().queue_mode(1 if args.queue == "bin" else 0, 0)
    pc.set_maxstep(10)
    start = time.perf_counter()
    h.finitialize()
    pc.barrier()
    init_s = time.perf_counter() - start

    start = time.perf_counter()
    pc.psolve(args.tstop_ms)
    pc.barrier()
    simulate_s = time.perf_counter() - start

    spikes = int(pc.allreduce(len(spike_times), 1))
    connections = int(pc.allreduce(len(netcons), 1))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    peaks = pc.py_allgather(peak_mb)
    if rank == 0:
        report = {
            "simulator": "neuron",
            "neuron_version": h.nrnversion(5),
            "ranks": ranks,
            "queue": args.queue,
            "cells": args.cells,
            "connections": connections,
            "time_s": {"setup": setup_s, "init": init_s, "simulate": simulate_s},
            "spikes": spikes,
            "peak_rss_mb_per_rank": [round(value, 1) for value in peaks],
        }
        args.output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    pc.barrier()
    pc.done()
    return 0


if __name__ == "__main__":
    main()
    h.quit()
