#!/usr/bin/env python3
"""The memory system's limit for random updates, and how near GUPS' local path comes (issue 21).

Runs ``bench_memory_limits`` (bench/cpp/memory_limits.cpp: DRAM latency by pointer chase,
ns per random XOR update with k prefetched updates in flight), then ``spikex gups`` on 1
and 2 ranks, both algorithms, with a table of the same order (2^24 words), best of
``--repeat`` runs. Writes ``bench/results/memory_limits.json``::

    .venv/bin/python bench/memory_limits.py [--binary build/bench/cpp/bench_memory_limits]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from readme_numbers import readme_with_block
from spikex_runs import machine, spikex_command

REPOSITORY = Path(__file__).resolve().parents[1]
OUTPUT = REPOSITORY / "bench" / "results" / "memory_limits.json"
DOCS = REPOSITORY / "docs" / "user" / "gups.md"
BLOCK = "memory-limits"


def docs_block(result: dict) -> str:
    """The table of docs/user/gups.md, from the result file."""
    memory, start = result["memory"], result["machine"]["load_average_start"][0]
    end = result["machine"]["load_average"][0]
    blocks = {b["k"]: b for b in memory["blocks"]}
    deep = [k for k in (16, 128, 256) if k in blocks]
    lines = [
        (
            f"Generated from `bench/results/memory_limits.json` (`make bench-memory`, {result['date_utc']} UTC, "
            f"{result['machine']['cpus']} cores, load average {start:.2f} at the start and {end:.2f} at the end (1 min); "
            f"random updates on a 2^{memory['table_words'].bit_length() - 1}-word table"
            f"{' on transparent huge pages' if memory.get('huge_pages') else ''}, `spikex gups` best of its repeats):"
        ),
        "",
        "| | ns per update (per rank) | GUPS |",
        "|---|---|---|",
        f"| DRAM latency (pointer chase over {memory['table_mib']} MiB) | {memory['latency_ns']:.0f} | – |",
        f"| random XOR updates, 1 at a time | {blocks[1]['ns_per_update']:.1f} | {blocks[1]['gups']:.3f} |",
        "| random XOR updates, "
        + " / ".join(map(str, deep))
        + " prefetched in flight | "
        + " / ".join(f"{blocks[k]['ns_per_update']:.1f}" for k in deep)
        + " | "
        + " / ".join(f"{blocks[k]['gups']:.3f}" for k in deep)
        + " |",
    ]
    for run in result["gups"]:
        lines.append(f"| `spikex gups` {run['algorithm']}, P = {run['ranks']}, 2^{run['log2_table']} words | "
                     f"{run['ns_per_update_per_rank']:.1f} | {run['gups']:.3f} |")  # fmt: skip
    return "\n".join(lines)


def write_docs(result: dict) -> None:
    text = DOCS.read_text(encoding="utf-8")
    new = readme_with_block(text, docs_block(result), BLOCK)
    if new != text:
        DOCS.write_text(new, encoding="utf-8")


def gups(ranks: int, algorithm: str, log2_table: int, repeat: int) -> dict:
    best = None
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as directory:
            output = Path(directory) / "gups.json"
            command = [*spikex_command(), "gups", "--np", str(ranks), "--algorithm", algorithm,
                       "--log2-table", str(log2_table), "-o", str(output)]  # fmt: skip
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                sys.exit(f"memory_limits: {' '.join(command)} failed: {done.stderr.strip()}")
            result = json.loads(output.read_text())
        if best is None or result["gups"] > best["gups"]:
            best = result
    return {
        "ranks": ranks,
        "algorithm": algorithm,
        "log2_table": log2_table,
        "gups": best["gups"],
        "ns_per_update_per_rank": ranks / best["gups"],
        "errors": best["errors"],
        "passed": best["passed"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--binary", type=Path, default=REPOSITORY / "build/bench/cpp/bench_memory_limits"
    )
    parser.add_argument("--log2-table", type=int, default=24)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument(
        "--docs-only", action="store_true", help="regenerate the docs table from the JSON"
    )
    args = parser.parse_args()
    if args.docs_only:
        write_docs(json.loads(OUTPUT.read_text()))
        return 0
    load_start = machine()["load_average"]
    limits = json.loads(
        subprocess.run([str(args.binary)], capture_output=True, text=True, check=True).stdout
    )
    runs = [
        gups(p, a, args.log2_table, args.repeat) for a in ("routed", "baseline") for p in (1, 2)
    ]
    result = {
        "question": "DRAM latency and ns per random update with k updates in flight on this machine, "
        "against spikex gups' ns per update per rank",
        "date_utc": datetime.now(UTC).strftime("%Y-%m-%d %H:%M"),
        "machine": {**machine(), "load_average_start": load_start},
        "memory": limits,
        "gups": runs,
    }
    OUTPUT.write_text(json.dumps(result, indent=2) + "\n")
    write_docs(result)
    best = min(limits["blocks"], key=lambda b: b["ns_per_update"])
    print(
        f"DRAM latency {limits['latency_ns']:.0f} ns; best {best['ns_per_update']:.2f} ns/update (k = {best['k']})"
    )
    for run in runs:
        print(f"{run['algorithm']:>8} P={run['ranks']}: {run['gups']:.4f} GUPS, "
              f"{run['ns_per_update_per_rank']:.2f} ns per update per rank, errors {run['errors']}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
