"""NEST's hpc_benchmark with the spikex Python API: 100 ms pre-simulation, then 1 s.

    python examples/hpc_benchmark.py --scale 0.2 --indegree 3750
    mpiexec -np 2 python examples/hpc_benchmark.py --threads 1 --plastic

Prints (rank 0) the network size, build / pre-simulation / simulation seconds, the mean
rate of the measured second and, with --plastic, the mean E->E weight before and after.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import spikex as sx
from spikex.runtime.collective import float64_per_rank


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="NE = 9000*scale, NI = 2250*scale")
    parser.add_argument("--indegree", type=int, default=11250, help="K = CE + CI (CE = 0.8 K)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--method", default="allgather")
    parser.add_argument("--plastic", action="store_true", help="stdp_pl_synapse_hom on E->E")
    parser.add_argument("--presim-ms", type=float, default=100.0)
    parser.add_argument("--sim-ms", type=float, default=1000.0)
    args = parser.parse_args()

    config = {
        "simulation": {"dt_ms": 0.1, "threads": args.threads},
        "network": {
            "model": "hpc_benchmark",
            "scale": args.scale,
            "indegree_e": args.indegree * 4 // 5,
            "indegree_i": args.indegree - args.indegree * 4 // 5,
            "plastic": args.plastic,
        },
        "exchange": {"method": args.method},
    }
    start = time.perf_counter()
    net = sx.Network.from_config(config)
    n_e = int(9000 * args.scale)
    mean_ee = mean_excitatory_weight(net, n_e) if args.plastic else None
    built = time.perf_counter() - start

    start = time.perf_counter()
    presim = net.simulate(args.presim_ms)
    presim_s = time.perf_counter() - start
    start = time.perf_counter()
    result = net.simulate(args.sim_ms)
    sim_s = time.perf_counter() - start

    gids, times = result.spikes
    measured = times >= args.presim_ms
    rate = measured.sum() / net.cells / (args.sim_ms / 1000.0)
    if net.rank == 0:
        summary = result.summary
        print(f"{net.cells} neurons, {summary['connections']:,} synapses on {net.ranks} rank(s) x {args.threads} thread(s)")
        print(f"build {built:.2f} s, presim {presim_s:.2f} s, sim {sim_s:.2f} s, peak RSS {summary['peak_rss_mb']['max']:.0f} MB")
        print(f"rate {rate:.2f} Hz over {args.sim_ms:.0f} ms ({presim.summary['spikes_total']} spikes in presim)")
    if args.plastic:
        after = mean_excitatory_weight(net, n_e)
        if net.rank == 0:
            print(f"mean E->E weight {mean_ee:.4f} pA -> {after:.4f} pA")


def mean_excitatory_weight(net: sx.Network, n_e: int) -> float:
    """Mean weight of the E->E synapses over all ranks."""
    c = net.connections()
    ee = (c["source"] < n_e) & (c["target"] < n_e)
    total = float64_per_rank([c["weight"][ee].sum(), ee.sum()]).sum(axis=0)
    return float(total[0] / max(total[1], 1))


if __name__ == "__main__":
    main()
