#!/usr/bin/env python3
"""Speed baseline: the Hines et al. 2011 artificial-cell benchmark on 1, 2 and 4 ranks.

Question answered: how fast does spikex build and simulate 16,384 interval_fire cells
with 1,000 +- 50 inputs each for 200 ms (weights 0, Allgather exchange), and how does
that change with the rank count? Later issues compare this figure with NEURON and NEST.

Every run goes through ``spikex run`` (the same code path as users), from the venv of
the Python running this script. Writes ``bench/results/hines2011.json``::

    {"question": ..., "machine": {...}, "parameters": {...},
     "runs": [{"ranks", "build_s", "init_s", "simulate_s", "total_s", "spikes",
               "events_delivered", "events_per_s", "peak_rss_mb_max", ...}, ...],
     "spikes_sha256_agree": true}

Usage::

    .venv/bin/python bench/hines2011.py                      # the baseline
    .venv/bin/python bench/hines2011.py --cells 4096 --np-list 1,2 --tstop-ms 50
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from spikex_runs import machine, spikex_run

REPOSITORY = Path(__file__).resolve().parents[1]
CONFIG = REPOSITORY / "examples" / "hines2011_demo.toml"
DEFAULT_OUTPUT = REPOSITORY / "bench" / "results" / "hines2011.json"
QUESTION = (
    "Build and simulate time, spikes and synaptic events per second of the Hines 2011 "
    "artificial-cell benchmark (Allgather exchange) on 1, 2 and 4 ranks."
)


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    parser.add_argument("--cells", type=int, default=16384, help="number of cells [16384]")
    parser.add_argument("--indegree", type=int, default=1000, help="inputs per cell [1000]")
    parser.add_argument("--indegree-spread", type=int, default=100, help="dC [100]")
    parser.add_argument("--tstop-ms", type=float, default=200.0, help="simulated ms [200]")
    parser.add_argument("--np-list", default="1,2,4", help="rank counts [1,2,4]")
    parser.add_argument("--repeat", type=int, default=1, help="runs per rank count; best kept")
    parser.add_argument(
        "--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
        help="extra config override passed to spikex run (repeatable)",
    )  # fmt: skip
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="result JSON")
    return parser.parse_args()


def run_once(args: argparse.Namespace, ranks: int, outdir: Path) -> dict:
    """One ``spikex run``; returns its summary."""
    overrides = [
        f"network.cells={args.cells}",
        f"network.indegree={args.indegree}",
        f"network.indegree_spread={args.indegree_spread}",
        f"simulation.tstop_ms={args.tstop_ms}",
        *args.overrides,
    ]
    return spikex_run(CONFIG, ranks, outdir, overrides)


def run_record(summary: dict) -> dict:
    """The figures kept for one rank count."""
    times = summary["time_s"]
    return {
        "ranks": summary["ranks"],
        "method": summary["method"],
        "build_s": times["build"],
        "init_s": times["init"],
        "simulate_s": times["simulate"],
        "total_s": times["total"],
        "compute_s": times["compute"],
        "wait_s": times["wait"],
        "exchange_s": times["exchange"],
        "cells": summary["cells"],
        "connections": summary["connections"],
        "spikes": summary["spikes_total"],
        "events_delivered": summary["events_delivered"],
        "events_per_s": summary["events_delivered"] / max(times["simulate"], 1e-12),
        "peak_rss_mb_max": summary["peak_rss_mb"]["max"],
        "exchange_bytes": summary["exchange"]["bytes_sent"],
        "spikes_sha256": summary["spikes_sha256"],
    }


def main() -> int:
    args = parse_arguments()
    ranks_list = [int(part) for part in args.np_list.split(",") if part.strip()]
    runs, version = [], None
    with tempfile.TemporaryDirectory(prefix="spikex-bench-") as scratch:
        for ranks in ranks_list:
            summaries = [
                run_once(args, ranks, Path(scratch) / f"np{ranks}-{repeat}")
                for repeat in range(args.repeat)
            ]
            best = min(summaries, key=lambda summary: summary["time_s"]["simulate"])
            version = best["spikex_version"]
            runs.append(run_record(best))
            print(
                f"np={ranks}: build {runs[-1]['build_s']:.2f} s, simulate "
                f"{runs[-1]['simulate_s']:.2f} s, {runs[-1]['events_per_s']:.3g} events/s",
                file=sys.stderr,
            )
    result = {
        "question": QUESTION,
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "spikex_version": version,
        "machine": machine(),
        "parameters": {
            "cells": args.cells,
            "indegree": args.indegree,
            "indegree_spread": args.indegree_spread,
            "tstop_ms": args.tstop_ms,
            "overrides": args.overrides,
            "repeat": args.repeat,
        },
        "runs": runs,
        "spikes_sha256_agree": len({run["spikes_sha256"] for run in runs}) == 1,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    temporary = args.output.with_name(args.output.name + ".tmp")
    temporary.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, args.output)
    print(f"wrote {args.output}", file=sys.stderr)
    return 0 if result["spikes_sha256_agree"] else 1


if __name__ == "__main__":
    sys.exit(main())
