#!/usr/bin/env python3
"""Multisend family against Allgather: the Hines 2011 comparison, on this machine.

Question answered: for the artificial-cell benchmark (the demo network) and its burst
variant, on P = 1, 2, 4, 8 ranks, what do allgather, multisend (1/2 sub-intervals x 1/2
phases), persistent (Record-Replay) and rma (one-sided) cost: run time, computation time
(rank 0, mean, max over ranks: the paper's Tables 1-2), waiting, exchange and
send-initiation time, conservation iterations, messages and bytes? And do they all give
the same spikes?

Every run goes through ``spikex run`` (the code path of users) from the venv of the Python
running this script. Writes ``bench/results/methods.json`` and the tables between
``<!-- methods-runs:begin -->`` and ``<!-- methods-runs:end -->`` in
docs/methods/multisend.md (``--docs`` only rewrites them from the JSON)::

    {"question", "date_utc", "machine" (with the load average at the start and the end),
     "seconds", "parameters",
     "runs": [{"network", "variant", "method", "subintervals", "phases", "ranks",
               "run_s", "computation_s": {"rank0", "mean", "max"}, "wait_s", "exchange_s",
               "send_s", "rounds", "conservation_iterations", "messages", "bytes",
               "wire_bytes_per_spike", "spikes", "spikes_sha256"}, ...],
     "spikes_sha256_agree": {"demo": true, "burst": true}}

Usage::

    .venv/bin/python bench/methods.py                                   # the docs' runs
    .venv/bin/python bench/methods.py --cells 8192 --repeat 1           # larger
    .venv/bin/python bench/methods.py --docs                            # tables from the JSON
    .venv/bin/python bench/methods.py --variants allgather,multisend_k2_p2 --np-list 4,8
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from readme_numbers import add_docs_options, docs_only, write_block
from spikex_runs import machine, result_header, spikex_run

REPOSITORY = Path(__file__).resolve().parents[1]
CONFIG = REPOSITORY / "examples" / "hines2011_demo.toml"
DEFAULT_OUTPUT = REPOSITORY / "bench" / "results" / "methods.json"
DOC = REPOSITORY / "docs" / "methods" / "multisend.md"
BLOCK = "methods-runs"
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
# How the docs' tables name the variants.
VARIANT_LABELS = {
    "allgather": "allgather",
    "multisend": "multisend",
    "multisend_k2": "multisend, 2 sub-intervals",
    "multisend_p2": "multisend, 2 phases",
    "multisend_k2_p2": "multisend, 2 sub-int. + 2 phases",
    "persistent": "persistent",
    "persistent_k2": "persistent, 2 sub-intervals",
    "rma": "rma",
}


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    parser.add_argument("--cells", type=int, default=4096, help="number of cells [4096]")
    parser.add_argument("--tstop-ms", type=float, default=200.0, help="simulated ms [200]")
    parser.add_argument("--np-list", default="1,2,4,8", help="rank counts [1,2,4,8]")
    parser.add_argument("--networks", default=",".join(NETWORKS), help="demo,burst")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated")
    parser.add_argument("--repeat", type=int, default=2, help="runs per point; fastest kept [2]")
    parser.add_argument(
        "--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
        help="extra config override for every run (repeatable)",
    )  # fmt: skip
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="result JSON")
    add_docs_options(parser)
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
        "wire_bytes_per_spike": exchange.get("wire_bytes_per_spike"),
        # allgather's block: 4-byte count + slots x entry bytes (docs/methods/allgather.md)
        "entry_bytes": exchange.get("entry_bytes"),
        "compressed": exchange.get("compressed"),
        "allgather_slots": exchange.get("allgather_slots"),
        "spikes": summary["spikes_total"],
        "events_delivered": summary["events_delivered"],
        "spikes_sha256": summary["spikes_sha256"],
    }


def _run_cell(run: dict) -> str:
    """Run time (computation time rank 0 / max), and the conservation iterations if any."""
    comp = run["computation_s"]
    text = f"{run['run_s']:.2f} ({comp['rank0']:.2f}/{comp['max']:.2f})"
    if run["conservation_iterations"]:
        text += f", {run['conservation_iterations']:,} it."
    return text


def _traffic_cell(run: dict) -> str:
    """Messages / bytes handed to MPI / bytes per spike on the wire."""
    text = f"{run['messages']:,} / {run['bytes']:,} B"
    if run.get("wire_bytes_per_spike"):
        text += f" / {run['wire_bytes_per_spike']:.2f}"
    return text


def _table(result: dict, network: str, ranks: list[int], cell, title: str) -> list[str]:
    """One row per variant, one column per P, ``cell(run)`` in each."""
    lines = [f"| {title} | " + " | ".join(f"P = {p}" for p in ranks) + " |"]
    lines.append("|---|" + "---|" * len(ranks))
    for variant in result["parameters"]["variants"]:
        runs = {
            r["ranks"]: r
            for r in result["runs"]
            if (r["network"], r["variant"]) == (network, variant)
        }
        row = [cell(runs[p]) if p in runs else "–" for p in ranks]
        lines.append(f"| {VARIANT_LABELS[variant]} | " + " | ".join(row) + " |")
    return lines


def docs_block(result: dict) -> str:
    """The tables of docs/methods/multisend.md "Measured here", from the result JSON."""
    parameters, machine_now = result["parameters"], result["machine"]
    ranks = parameters["ranks"]
    load_start = ", ".join(f"{v:.2f}" for v in machine_now["load_average_start"])
    load_end = ", ".join(f"{v:.2f}" for v in machine_now["load_average"])
    header = (
        f"Generated from `bench/results/methods.json` (`bench/methods.py`, {result['date_utc']} UTC, "
        f"{result['seconds']:.0f} s) on {machine_now['cpu']}, {machine_now['cpus']} cores; load average "
        f"(1, 5, 15 min) {load_start} at the start and {load_end} at the end. "
        f"`{parameters['config']}` with {parameters['cells']:,} cells, {parameters['tstop_ms']:g} ms; "
        f"fastest of {parameters['repeat']} runs per point. Run time (`time_s.simulate`) in s, in "
        "brackets the computation time of rank 0 / the slowest rank in s, then the conservation "
        "iterations summed over ranks where there were any:"
    )
    lines = [header]
    for network in parameters["networks"]:
        lines += ["", *_table(result, network, ranks, _run_cell, network)]
    traffic = (
        "Messages, bytes handed to MPI and bytes per spike on the wire (`wire_bytes_per_spike`) "
        "per run, summed over ranks:"
    )
    lines += ["", traffic]
    for network in parameters["networks"]:
        spikes = sorted({r["spikes"] for r in result["runs"] if r["network"] == network})
        title = f"{network} ({', '.join(f'{s:,}' for s in spikes)} spikes)"
        lines += ["", *_table(result, network, [p for p in ranks if p > 1], _traffic_cell, title)]
    agree = ", ".join(
        f"{n}: {'yes' if ok else '**no**'}" for n, ok in result["spikes_sha256_agree"].items()
    )
    lines += ["", f"Every run of a network gave the same `spikes_sha256` ({agree})."]
    return "\n".join(lines)


def main() -> int:
    args = parse_arguments()
    exit_status = docs_only(args, args.output, docs_block, BLOCK, DOC, "methods.py")
    if exit_status is not None:
        return exit_status
    load_start = machine()["load_average"]
    started = time.perf_counter()
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
        **result_header(QUESTION, load_start, started),
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
    if args.output == DEFAULT_OUTPUT:
        write_block(docs_block(result), BLOCK, DOC)
    return 0 if all(agree.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
