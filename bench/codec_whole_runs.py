#!/usr/bin/env python3
"""Does the spike wire codec change a whole run's exchange time on this machine?

Question answered (issue 21, part 4, "the encode/decode cost must be less than the time it
saves"): bench/spike_codec.py weighs the codec's ns per spike against what the saved bytes
are worth at a profile's byte cost. This script measures the other side on this machine:
whole runs of the two methods that can switch the codec off (``exchange.compress``),
``allgather`` and ``routed``, with and without it, through ``spikex compare`` (the code
path of ``spikex run``; every run must give the same ``spikes_sha256``). Per method and
rank count: the median over repeats of the exchange time (``exchange_s``: time in the
exchange's calls, rank 0), of the run time and of the bytes handed to MPI, and the
spread (half the range).

Networks: examples/hpc_benchmark_laptop.toml as it is (11,250 neurons, 1.1 s) and the demo
network (examples/hines2011_demo.toml), on 2 and 4 ranks. Writes
``bench/results/codec_whole_runs.json`` and the table between ``<!-- codec-runs:begin -->``
and ``<!-- codec-runs:end -->`` of docs/methods/wire_format.md::

    .venv/bin/python bench/codec_whole_runs.py            # about 5 minutes on 2 idle cores
    .venv/bin/python bench/codec_whole_runs.py --docs     # only rewrite the docs block
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from readme_numbers import add_docs_options, docs_only, write_block
from spikex.methods import all_variant_labels
from spikex_runs import machine, result_header, spikex_command

REPOSITORY = Path(__file__).resolve().parents[1]
OUTPUT = REPOSITORY / "bench" / "results" / "codec_whole_runs.json"
DOC = REPOSITORY / "docs" / "methods" / "wire_format.md"
BLOCK = "codec-runs"
# Each method with the codec and without. Allgather codes by default; routed by default
# codes only items wider than 3 bytes, and these networks' take 3 on 2 and 4 ranks, so its
# codec is switched on and off explicitly (declared variants).
METHODS = ("allgather", "allgather:compress=false", "routed:compress=true", "routed:compress=false")
NETWORKS = (
    ("hpc_benchmark_laptop", "examples/hpc_benchmark_laptop.toml"),
    ("demo", "examples/hines2011_demo.toml"),
)
RANKS = (2, 4)
REPEAT = 5
QUESTION = (
    "Exchange time of whole runs with and without the spike wire codec (exchange.compress) "
    "for allgather and routed on this machine"
)


def compare(config: str, ranks: int, repeat: int, outdir: Path) -> dict:
    command = [*spikex_command(), "compare", str(REPOSITORY / config), "--methods",
               ",".join(METHODS), "--np", str(ranks), "--repeat", str(repeat), "-o", str(outdir)]  # fmt: skip
    print(" ".join(command), file=sys.stderr, flush=True)
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"codec_whole_runs: {' '.join(command)} failed ({done.returncode}): "
                 f"{done.stderr.strip()[-2000:]}")  # fmt: skip
    return json.loads((outdir / "compare.json").read_text(encoding="utf-8"))


def _median_and_spread(values: list[float]) -> dict:
    return {"median": statistics.median(values), "spread": (max(values) - min(values)) / 2}


def summarize(result: dict) -> list[dict]:
    rows = []
    for method in METHODS:
        runs = [run for run in result["runs"] if run["method"] == method]
        rows.append({
            "method": method,
            "runs": len(runs),
            "exchange_s": _median_and_spread([run["metrics"]["exchange_s"] for run in runs]),
            "run_s": _median_and_spread([run["metrics"]["run_s"] for run in runs]),
            "bytes": statistics.median(run["metrics"]["bytes"] for run in runs),
        })  # fmt: skip
    return rows


def measure(repeat: int) -> dict:
    unknown = sorted({m for m in METHODS if ":" in m} - set(all_variant_labels()))
    if unknown:
        sys.exit(f"codec_whole_runs: {unknown} are no longer declared variants (spikex.methods)")
    load_start = machine()["load_average"]
    started = time.perf_counter()
    cases = []
    with tempfile.TemporaryDirectory(prefix="spikex-codec-runs-") as scratch:
        for name, config in NETWORKS:
            for ranks in RANKS:
                result = compare(config, ranks, repeat, Path(scratch) / f"{name}-{ranks}")
                cases.append({
                    "network": name,
                    "config": config,
                    "ranks": ranks,
                    "cells": result["runs"][0]["cells"],
                    "spikes_total": result["runs"][0]["spikes_total"],
                    "spikes_agree": result["spikes_agree"],
                    "spikes_sha256": result["spikes_sha256"],
                    "methods": summarize(result),
                })  # fmt: skip
    return {
        **result_header(QUESTION, load_start, started),
        "repeat": repeat,
        "cases": cases,
    }


# --- the docs block ------------------------------------------------------------------------


def _load(values: list[float]) -> str:
    return ", ".join(f"{v:g}" for v in values)


def _ms(value: dict) -> str:
    return f"{value['median'] * 1e3:.1f} ± {value['spread'] * 1e3:.1f}"


def docs_block(results: dict) -> str:
    m = results["machine"]
    start, end = m["load_average_start"], m["load_average"]
    # The runs themselves raise the load (4 ranks on 2 cores): only the start says whether
    # other work was there.
    loaded = start[0] >= 0.5 * m["cpus"]
    oversubscribed = [r for r in RANKS if r > m["cpus"]]
    lines = [
        (
            f"Measured by `bench/codec_whole_runs.py` ({results['date_utc']} UTC, "
            f"{results['seconds']:.0f} s) on {m.get('cpu') or m['processor']}, {m['cpus']} cores; load average "
            f"(1, 5, 15 min) {_load(start)} at the start and {_load(end)} at the end"
            + (" (other work shared the cores)" if loaded else "")
            + (
                f"; {', '.join(map(str, oversubscribed))} ranks share the {m['cpus']} cores"
                if oversubscribed
                else ""
            )
            + f". `spikex compare`, median ± half the range of {results['repeat']} runs each; "
            "exchange ms = time in the exchange's calls on rank 0 over the whole run; run s = "
            "the simulation's wall time; bytes = everything handed to MPI. "
            + (
                "Every run of a network gave the same `spikes_sha256`."
                if all(case["spikes_agree"] for case in results["cases"])
                else "**Runs of a network disagree on `spikes_sha256`: a bug, see the JSON.**"
            )
        ),
        "",
        "| network | ranks | method | exchange ms | run s | bytes |",
        "|---|---|---|---|---|---|",
    ]
    for case in results["cases"]:
        for row in case["methods"]:
            lines.append(
                f"| {case['network']} | {case['ranks']} | `{row['method']}` | {_ms(row['exchange_s'])} "
                f"| {row['run_s']['median']:.2f} ± {row['run_s']['spread']:.2f} | {row['bytes']:,.0f} |"
            )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=REPEAT, help=f"runs per method [{REPEAT}]")
    add_docs_options(parser)
    args = parser.parse_args()
    status = docs_only(args, OUTPUT, docs_block, BLOCK, DOC, "codec_whole_runs.py")
    if status is not None:
        return status
    results = measure(args.repeat)
    OUTPUT.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    changed = write_block(docs_block(results), BLOCK, DOC)
    print(f"{OUTPUT.relative_to(REPOSITORY)} written ({results['seconds']} s); "
          f"{DOC.relative_to(REPOSITORY)} {'updated' if changed else 'unchanged'}")  # fmt: skip
    if not all(case["spikes_agree"] for case in results["cases"]):
        print("codec_whole_runs: runs of one network disagree on spikes_sha256", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
