"""spikex side of the hpc_benchmark comparison: the same network, measured the same way
as ``nest_hpc_benchmark.py`` (presim, then the measured simulation).

SPMD: run with the main venv, directly for one rank or under mpiexec::

    python bench/nest/spikex_hpc.py --scale 1 --indegree 11250 --threads 2 [--plastic] -o STEM
    mpiexec -n 2 python bench/nest/spikex_hpc.py ... -o STEM

Rank 0 writes ``STEM.json`` (same fields as the NEST side, plus spikex's summary) and
``STEM.npz`` (spikes of the same sample of neurons as the NEST side records: the first
nrec excitatory and the first nrec/4 inhibitory, as 0-based indices, excitatory first).
With ``--weights`` it also reads the E→E weights onto a sample of targets after the run
(after every timing and memory figure is taken).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hpc_params as hp
from process_memory import peak_rss_mb, rss_mb

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "examples" / "hpc_benchmark.toml"


def overrides(args) -> list[str]:
    size = hp.sizes(args.scale, args.indegree)
    return [
        f"network.scale={args.scale}",
        f"network.indegree_e={size['CE']}",
        f"network.indegree_i={size['CI']}",
        f"network.plastic={'true' if args.plastic else 'false'}",
        f"simulation.seed={args.seed}",
        f"simulation.dt_ms={hp.RESOLUTION_MS}",
        f"simulation.threads={args.threads}",
        "record.spikes=true",
    ]


def build(args):
    import spikex as sx

    source = CONFIG if CONFIG.exists() else {"network": {"model": "hpc_benchmark"}}
    return sx.Network.from_config(source, overrides=overrides(args))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--indegree", type=int, default=11250)
    parser.add_argument("--plastic", action="store_true")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--presim", type=float, default=100.0)
    parser.add_argument("--tsim", type=float, default=1000.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--nrec", type=int, default=1000)
    parser.add_argument("--weights", action="store_true", help="read E→E weights after the run")
    parser.add_argument("--weight-sample", type=int, default=200)
    hp.add_block_arguments(parser)
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()

    from spikex import _core

    rank, ranks = _core.comm_rank(), _core.comm_size()
    size = hp.sizes(args.scale, args.indegree)
    rss_start = rss_mb()
    t0 = time.perf_counter()
    net = build(args)
    t_describe = time.perf_counter() - t0

    presim = net.simulate(args.presim)
    spikes_before = int(presim.summary["spikes_total"])
    events_before = int(presim.summary["events_delivered"])
    sim_before = float(presim.summary["time_s"]["simulate"])
    # Blocks as on the NEST side (one block unless --block-ms); spikes_total adds up.
    blocks, sim_wall, simulated, spikes_so_far = [], 0.0, 0.0, spikes_before
    for length in hp.block_lengths(args.tsim, args.block_ms):
        t1 = time.perf_counter()
        result = net.simulate(length)
        sim_wall += time.perf_counter() - t1
        simulated += length
        spikes_now = int(result.summary["spikes_total"])
        block = hp.block_entry(args.presim + simulated, spikes_now - spikes_so_far, size["N"], length)
        spikes_so_far = spikes_now
        if args.plastic and args.block_weights:
            block["ee_weight_mean"] = _ee_weights(net, size, args.weight_sample, None)[
                "ee_weight_after_mean"
            ]
        blocks.append(block)
        if rank == 0:
            print(json.dumps(block), flush=True)
        if hp.ran_away(block, args.stop_above_hz):
            break
    summary = result.summary
    peak = summary["peak_rss_mb"]
    peaks = [float(peak["mean"])] * ranks if ranks > 1 else [float(peak["max"])]
    phases = {
        name: float(times_now) - float(presim.summary["time_s"].get(name, 0.0))
        for name, times_now in summary["time_s"].items()
        if name in ("compute", "wait", "exchange", "send")
    }

    weights = {}
    if args.weights and args.plastic:
        weights = _ee_weights(net, size, args.weight_sample, args.output if rank == 0 else None)

    if rank != 0:
        return 0
    gids, times = result.spikes
    gids = np.asarray(gids, dtype=np.int64)
    times = np.asarray(times, dtype=np.float64)
    nrec, nrec_i = min(args.nrec, size["NE"]), min(args.nrec // 4, size["NI"])
    window = times >= args.presim - 1e-9
    sample = window & ((gids < nrec) | ((gids >= size["NE"]) & (gids < size["NE"] + nrec_i)))
    all_window = int(np.count_nonzero(window))
    spikes = int(summary["spikes_total"]) - spikes_before
    times_s = summary["time_s"]
    report = {
        "simulator": "spikex",
        "spikex_version": summary.get("spikex_version"),
        "scale": args.scale,
        "indegree": args.indegree,
        "plastic": args.plastic,
        "threads": int(summary.get("threads", args.threads)),
        "ranks": ranks,
        "presim_ms": args.presim,
        "tsim_ms": args.tsim,
        "simulated_ms": simulated,
        "stopped_early": simulated < args.tsim - 1e-9,
        "blocks": blocks,
        "seed": args.seed,
        **size,
        "je_pa": hp.je_pa(),
        "connections": int(summary["connections"]),
        "time_s": {
            "describe": t_describe,
            "build": float(times_s["build"]),
            "init": float(times_s["init"]) + sim_before,
            "simulate": float(times_s["simulate"]) - sim_before,
            "simulate_wall": sim_wall,
            "total": t_describe
            + float(times_s["init"])
            + float(times_s["simulate"])
            + float(times_s["build"]),
        },
        "rss_mb": {"start": rss_start},
        "peak_rss_mb": max(peaks),
        "peak_rss_mb_per_rank": peaks,  # 2 ranks: the mean twice (the summary keeps max and mean)
        "peak_rss_mb_max": float(peak["max"]),
        "phases_s": phases,
        "memory_bytes": summary.get("memory_bytes"),
        "spikes_total": spikes,
        "spikes_in_window_recorded": all_window,
        "mean_rate_hz": spikes / size["N"] / (simulated / 1000.0),
        "events_delivered": int(summary["events_delivered"]) - events_before,
        "recorded": {"excitatory": nrec, "inhibitory": nrec_i},
        "summary": {k: v for k, v in summary.items() if k not in ("config", "timeline")},
        **weights,
    }
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(
        str(out) + ".npz",
        cells=gids[sample],
        times_ms=times[sample],
        nrec_e=nrec,
        nrec_i=nrec_i,
        NE=size["NE"],
    )
    Path(str(out) + ".json").write_text(json.dumps(report, indent=2, default=float) + "\n")
    print(
        json.dumps({k: report[k] for k in ("connections", "time_s", "peak_rss_mb", "mean_rate_hz")})
    )
    return 0


def _ee_weights(net, size: dict, n_targets: int, stem: str | None) -> dict:
    """Mean E→E weight onto the first n_targets excitatory neurons (this rank's share)."""
    table = net.connections()
    source, target, weight = table["source"], table["target"], table["weight"]
    mask = (source < size["NE"]) & (target < min(n_targets, size["NE"]))
    w = np.asarray(weight[mask], dtype=np.float64)
    del table, source, target, weight
    if stem is not None:
        np.save(stem + "_ee_weights.npy", w.astype(np.float32))
    je = hp.je_pa()
    return {
        "ee_weight_before_mean": je,
        "ee_weight_after_mean": float(w.mean()) if w.size else float("nan"),
        "ee_weight_after_std": float(w.std()) if w.size else float("nan"),
        "ee_weight_sample": int(w.size),
        "ee_weight_drift_rel": float(w.mean() / je - 1.0) if w.size else float("nan"),
    }


if __name__ == "__main__":
    sys.exit(main())
