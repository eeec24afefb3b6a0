#!/usr/bin/env python3
"""Multisend family against Allgather: the Hines 2011 comparison, on this machine.

Question answered: for the artificial-cell benchmark (the demo network) and its burst
variant, on P = 1, 2, 4, 8 ranks, what do allgather, multisend (1/2 sub-intervals x 1/2
phases), persistent (Record-Replay) and rma (one-sided) cost: run time, computation time
(rank 0, mean, max over ranks: the paper's Tables 1-2), waiting, exchange and
send-initiation time, conservation iterations, messages and bytes? And do they all give
the same spikes?

Every run goes through ``spikex run`` (the code path of users) from the venv of the Python
running this script. Writes ``bench/results/methods.json``::

    {"question", "date", "machine", "parameters",
     "runs": [{"network", "variant", "method", "subintervals", "phases", "ranks",
               "run_s", "computation_s": {"rank0", "mean", "max"}, "wait_s", "exchange_s",
               "send_s", "rounds", "conservation_iterations", "messages", "bytes",
               "spikes", "spikes_sha256"}, ...],
     "spikes_sha256_agree": {"demo": true, "burst": true}}

Usage::

    .venv/bin/python bench/methods.py                                   # full size
    .venv/bin/python bench/methods.py --cells 4096 --tstop-ms 100       # modest size
    .venv/bin/python bench/methods.py --variants allgather,multisend_k2_p2 --np-list 4,8
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
DEFAULT_OUTPUT = REPOSITORY / "bench" / "results" / "methods.json"
QUESTION = (
    "Run and computation time (rank 0 / mean / max), conservation iterations, messages and "
    "bytes of allgather, multisend (1/2 sub-intervals x 1/2 phases), persistent and rma on "
    "the Hines 2011 demo network and its burst variant, P = 1, 2, 4, 8."
)
NETWORKS = {
    "demo": [],
    "burst": ["network.burst.groups=8", "network.burst.period_ms=25.0"],
}
VARIANTS = {
    "allgather": ["exchange.method=allgather"],
    "multisend": ["exchange.method=multisend"],
    "multisend_k2": ["exchange.method=multisend", "exchange.subintervals=2"],
    "multisend_p2": ["exchange.method=multisend", "exchange.phases=2"],
    "multisend_k2_p2": [
        "exchange.method=multisend",
        "exchange.subintervals=2",
        "exchange.phases=2",
    ],
    "persistent": ["exchange.method=persistent"],
    "persistent_k2": ["exchange.method=persistent", "exchange.subintervals=2"],
    "rma": ["exchange.method=rma"],
}


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    parser.add_argument("--cells", type=int, default=8192, help="number of cells [8192]")
    parser.add_argument("--tstop-ms", type=float, default=200.0, help="simulated ms [200]")
    parser.add_argument("--np-list", default="1,2,4,8", help="rank counts [1,2,4,8]")
    parser.add_argument("--networks", default=",".join(NETWORKS), help="demo,burst")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated")
    parser.add_argument("--repeat", type=int, default=1, help="runs per point; fastest kept")
    parser.add_argument(
        "--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
        help="extra config override for every run (repeatable)",
    )  # fmt: skip
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="result JSON")
    return parser.parse_args()


def run_once(args, network: str, variant: str, ranks: int, outdir: Path) -> dict:
    overrides = [
        f"network.cells={args.cells}",
        f"simulation.tstop_ms={args.tstop_ms}",
        *NETWORKS[network],
        *VARIANTS[variant],
        *args.overrides,
    ]
    return spikex_run(CONFIG, ranks, outdir, overrides)


def record(network: str, variant: str, summary: dict) -> dict:
    times, exchange = summary["time_s"], summary["exchange"]
    return {
        "network": network,
        "variant": variant,
        "method": summary["method"],
        "subintervals": exchange.get("subintervals", 1),
        "phases": exchange.get("phases", 1),
        "ranks": summary["ranks"],
        "run_s": times["simulate"],
        "computation_s": summary["computation_s"],
        "wait_s": times["wait"],
        "exchange_s": times["exchange"],
        "send_s": times.get("send", 0.0),
        "rounds": exchange["rounds"],
        "conservation_iterations": exchange.get("conservation_iterations", 0),
        "messages": exchange["messages_sent"],
        "bytes": exchange["bytes_sent"],
        # allgather's block: 4-byte count + slots x entry bytes (docs/methods/allgather.md)
        "entry_bytes": exchange.get("entry_bytes"),
        "compressed": exchange.get("compressed"),
        "allgather_slots": exchange.get("allgather_slots"),
        "spikes": summary["spikes_total"],
        "events_delivered": summary["events_delivered"],
        "spikes_sha256": summary["spikes_sha256"],
    }


def main() -> int:
    args = parse_arguments()
    ranks_list = [int(part) for part in args.np_list.split(",") if part.strip()]
    networks = [name for name in args.networks.split(",") if name]
    variants = [name for name in args.variants.split(",") if name]
    for name in networks:
        if name not in NETWORKS:
            sys.exit(f"bench: unknown network {name!r}; known: {', '.join(NETWORKS)}")
    for name in variants:
        if name not in VARIANTS:
            sys.exit(f"bench: unknown variant {name!r}; known: {', '.join(VARIANTS)}")
    runs = []
    with tempfile.TemporaryDirectory(prefix="spikex-bench-methods-") as scratch:
        for network in networks:
            for ranks in ranks_list:
                for variant in variants:
                    summaries = [
                        run_once(
                            args,
                            network,
                            variant,
                            ranks,
                            Path(scratch) / f"{network}-{variant}-{ranks}-{k}",
                        )
                        for k in range(args.repeat)
                    ]
                    best = min(summaries, key=lambda summary: summary["time_s"]["simulate"])
                    runs.append(record(network, variant, best))
                    r = runs[-1]
                    print(
                        f"{network:5s} np={ranks} {variant:16s} run {r['run_s']:7.3f} s  comp "
                        f"r0 {r['computation_s']['rank0']:6.3f} max {r['computation_s']['max']:6.3f}  "
                        f"wait {r['wait_s']:6.3f}  exch {r['exchange_s']:6.3f}  send {r['send_s']:6.3f}  "
                        f"iter {r['conservation_iterations']:5d}  msgs {r['messages']:9d}",
                        file=sys.stderr,
                        flush=True,
                    )
    agree = {
        network: len({run["spikes_sha256"] for run in runs if run["network"] == network}) == 1
        for network in networks
    }
    result = {
        "question": QUESTION,
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "parameters": {
            "config": str(CONFIG.relative_to(REPOSITORY)),
            "cells": args.cells,
            "tstop_ms": args.tstop_ms,
            "ranks": ranks_list,
            "networks": {name: NETWORKS[name] for name in networks},
            "variants": {name: VARIANTS[name] for name in variants},
            "overrides": args.overrides,
            "repeat": args.repeat,
        },
        "runs": runs,
        "spikes_sha256_agree": agree,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    temporary = args.output.with_name(args.output.name + ".tmp")
    temporary.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, args.output)
    print(f"wrote {args.output}", file=sys.stderr)
    return 0 if all(agree.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
