#!/usr/bin/env python3
"""The memory system's limit for random updates, and how near GUPS' local path comes (issue 21).

Runs ``bench_memory_limits`` (bench/cpp/memory_limits.cpp: DRAM latency by pointer chase,
ns per random XOR update with k prefetched updates in flight, prefetched into L1 and into
L2), then the same on every core at once (one process per core, each on its own table of
1 / cores of the size, pinned with taskset: what the memory system sustains when all
cores update, the ceiling of GUPS at P = cores), then ``spikex gups`` on 1 and 2 ranks, both algorithms, with a table of the
same order (2^24 words), best of ``--repeat`` runs. Writes
``bench/results/memory_limits.json``::

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
HPCC = REPOSITORY / "bench" / "results" / "gups_hpcc.json"  # bench/gups_hpcc.py
DOCS = REPOSITORY / "docs" / "user" / "gups.md"
BLOCK = "memory-limits"


def docs_block(result: dict) -> str:
    """The table of docs/user/gups.md, from the result file."""
    memory, start = result["memory"], result["machine"]["load_average_start"][0]
    end = result["machine"]["load_average"][0]
    # files before 2026-11-27 prefetched into L1 only, without a "prefetch" key
    blocks = {(b.get("prefetch", "L1"), b["k"]): b for b in memory["blocks"]}
    kinds = list(dict.fromkeys(kind for kind, _ in blocks))
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
        f"| random XOR updates, 1 at a time | {blocks[('L1', 1)]['ns_per_update']:.1f} | "
        f"{blocks[('L1', 1)]['gups']:.3f} |",
    ]
    for kind in kinds:
        deep = [k for k in (16, 128, 256, 512) if (kind, k) in blocks]
        lines.append(
            "| random XOR updates, "
            + " / ".join(map(str, deep))
            + f" prefetched in flight (into {kind}) | "
            + " / ".join(f"{blocks[(kind, k)]['ns_per_update']:.1f}" for k in deep)
            + " | "
            + " / ".join(f"{blocks[(kind, k)]['gups']:.3f}" for k in deep)
            + " |"
        )
    together = result.get("all_cores")
    if together:
        best = together["best"]
        lines.append(
            f"| random XOR updates, {best['k']} in flight{_into(best)}, on all {together['processes']} cores at once "
            f"(2^{together['log2_table']} words each) | {best['ns_per_update']:.1f} | {best['gups']:.3f} (together) |"
        )
    for run in result["gups"]:
        lines.append(f"| `spikex gups` {run['algorithm']}, P = {run['ranks']}, 2^{run['log2_table']} words | "
                     f"{run['ns_per_update_per_rank']:.1f} | {run['gups']:.3f} |")  # fmt: skip
    ceiling = _ceiling_sentence(together, result["gups"])
    return "\n".join(
        lines + ([] if ceiling is None else ["", ceiling]) + _lanes_table(result.get("lanes"))
    )


def _into(block: dict) -> str:
    return f", into {block['prefetch']}" if "prefetch" in block else ""


def _transport(case: dict) -> str:
    # results from before the mailboxes have no "shared_memory": MPI messages then
    mailboxes = case.get("shared_memory", False)
    lanes = f"{case['lanes']} lane{'s' if case['lanes'] > 1 else ''}"
    return f"{'mailboxes' if mailboxes else 'MPI messages'}, {lanes}"


def _lanes_table(series: list[dict] | None) -> list[str]:
    """`routed` with shared-memory mailboxes and with MPI messages, one and two lanes each:
    best GUPS and the range of the repeats."""
    if not series:
        return []
    columns = list(dict.fromkeys(_transport(case) for case in series))
    by_ranks: dict[int, dict[str, list[float]]] = {}
    for case in series:
        by_ranks.setdefault(case["ranks"], {})[_transport(case)] = case["gups"]
    heading = (f"`spikex gups` routed with `--shared-memory` (mailboxes) and `--no-shared-memory` "
               f"(MPI messages), `--lanes 1` and `--lanes 2` (2^{series[0]['log2_table']} words, "
               f"{len(series[0]['gups'])} runs each, in turn; best, and the range in brackets):")  # fmt: skip
    lines = [
        "",
        heading,
        "",
        "| P | " + " | ".join(columns) + " |",
        "|---" * (len(columns) + 1) + "|",
    ]
    for ranks, cases in sorted(by_ranks.items()):
        cells = [f"{max(g):.3f} [{min(g):.3f}–{max(g):.3f}]" if (g := cases.get(c)) else "–"
                 for c in columns]  # fmt: skip
        lines.append(f"| {ranks} | " + " | ".join(cells) + " |")
    return lines


def _ceiling_sentence(together: dict | None, runs: list[dict]) -> str | None:
    """Issue 21's target at P = cores (1.5 x Sandia opt2 of bench/results/gups_hpcc.json)
    against what the memory system sustains on all cores at once."""
    if not together or not HPCC.is_file():
        return None
    cores = together["processes"]
    targets = [t for c in json.loads(HPCC.read_text())["campaigns"] for t in c["targets"]
               if t["target"] == "routed_vs_opt2" and t["ranks"] == cores]  # fmt: skip
    if not targets:
        return None
    ceiling = together["best"]["gups"]
    ours = next((r for r in runs if r["algorithm"] == "routed" and r["ranks"] == cores), None)
    parts = [
        f"{t['threshold']:g} × opt2 at P = {cores} with 2^{t['log2_table']} words is "
        f"{t['threshold'] * t['reference']:.3f} GUPS, {t['threshold'] * t['reference'] / ceiling:.0%} of it"
        for t in targets
    ]
    text = (
        f"With all {cores} cores updating at once (each with {together['best']['k']} updates in flight"
        f"{_into(together['best'])}, no "
        f"messages at all) the memory system sustains {ceiling:.3f} GUPS together. Issue 21's target "
        + "; ".join(parts)
        + " (opt2 from `bench/results/gups_hpcc.json`)"
    )
    if ours:
        text += f"; routed reaches {ours['gups']:.3f} GUPS, {ours['gups'] / ceiling:.0%} of it"
    return text + "."


def write_docs(result: dict) -> None:
    text = DOCS.read_text(encoding="utf-8")
    new = readme_with_block(text, docs_block(result), BLOCK)
    if new != text:
        DOCS.write_text(new, encoding="utf-8")


def all_cores(binary: Path, log2_table: int, cores: int) -> dict:
    """bench_memory_limits on every core at once, each process on its own table of
    2^log2_table / cores words: per k, the slowest process's ns per update and the GUPS of
    all together (the updates of all processes over the slowest one's time)."""
    share = log2_table - (cores - 1).bit_length()
    processes = [
        subprocess.Popen(
            ["taskset", "-c", str(core), str(binary), "--log2", str(share)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for core in range(cores)
    ]
    outputs = [json.loads(p.communicate()[0]) for p in processes]
    if any(p.returncode != 0 for p in processes):
        sys.exit("memory_limits: bench_memory_limits failed on some core")
    blocks = []
    for kind, k in [(b["prefetch"], b["k"]) for b in outputs[0]["blocks"]]:
        slowest = max(next(b for b in o["blocks"] if (b["prefetch"], b["k"]) == (kind, k))["ns_per_update"]
                      for o in outputs)  # fmt: skip
        blocks.append({"k": k, "prefetch": kind, "ns_per_update": slowest, "gups": cores / slowest})
    return {
        "processes": cores,
        "log2_table": share,
        "blocks": blocks,
        "best": min(blocks, key=lambda b: b["ns_per_update"]),
    }


def run_gups(ranks: int, algorithm: str, log2_table: int, *extra: str) -> dict:
    with tempfile.TemporaryDirectory() as directory:
        output = Path(directory) / "gups.json"
        command = [*spikex_command(), "gups", "--np", str(ranks), "--algorithm", algorithm,
                   "--log2-table", str(log2_table), "-o", str(output), *extra]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            sys.exit(f"memory_limits: {' '.join(command)} failed: {done.stderr.strip()}")
        return json.loads(output.read_text())


def lanes_series(log2_table: int, repeat: int) -> list[dict]:
    """routed through shared-memory mailboxes and through MPI messages, with one and with
    two buckets per partner, at P = cores and P = 2 x cores (oversubscribed), the runs of
    one repeat in turn so that a drift in the machine's state falls on all of them alike."""
    cores = machine()["cpus"]
    cases = [(ranks, shared, lanes) for ranks in (cores, 2 * cores) for shared in (True, False)
             for lanes in (1, 2)]  # fmt: skip
    gups_of = {case: [] for case in cases}
    for _ in range(repeat):
        for ranks, shared, lanes in cases:
            transport = "--shared-memory" if shared else "--no-shared-memory"
            result = run_gups(ranks, "routed", log2_table, "--lanes", str(lanes), transport)
            if result["errors"] != 0:
                sys.exit(
                    f"memory_limits: routed P = {ranks} {transport} with {lanes} lanes had errors"
                )
            gups_of[(ranks, shared, lanes)].append(result["gups"])
    return [{"ranks": ranks, "shared_memory": shared, "lanes": lanes, "log2_table": log2_table,
             "gups": gups_of[(ranks, shared, lanes)]} for ranks, shared, lanes in cases]  # fmt: skip


def gups(ranks: int, algorithm: str, log2_table: int, repeat: int) -> dict:
    best = None
    for _ in range(repeat):
        result = run_gups(ranks, algorithm, log2_table)
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
    cores = machine()["cpus"]
    together = (
        all_cores(args.binary, limits["table_words"].bit_length() - 1, cores) if cores > 1 else None
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
        "all_cores": together,
        "gups": runs,
        "lanes": lanes_series(args.log2_table, max(args.repeat, 3)),
    }
    OUTPUT.write_text(json.dumps(result, indent=2) + "\n")
    write_docs(result)
    best = min(limits["blocks"], key=lambda b: b["ns_per_update"])
    print(
        f"DRAM latency {limits['latency_ns']:.0f} ns; best {best['ns_per_update']:.2f} ns/update "
        f"(k = {best['k']}, into {best['prefetch']})"
    )
    if together:
        print(
            f"all {cores} cores at once: {together['best']['gups']:.3f} GUPS together (k = {together['best']['k']})"
        )
    for run in runs:
        print(f"{run['algorithm']:>8} P={run['ranks']}: {run['gups']:.4f} GUPS, "
              f"{run['ns_per_update_per_rank']:.2f} ns per update per rank, errors {run['errors']}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
