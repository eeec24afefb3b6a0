#!/usr/bin/env python3
"""The memory system's limit for random updates, and how near GUPS' local path comes (issue 21).

For each table size of ``bench/gups.py --hpcc``'s campaigns (2^24 and 2^26 words): runs
``bench_memory_limits`` (bench/cpp/memory_limits.cpp: DRAM latency by pointer chase, ns per
random XOR update with k prefetched updates in flight, prefetched into L1 and into L2) on
one core with the whole table, then the same on every core at once (one process per core,
each on its own table of 1 / cores of the size, pinned with taskset: what the memory
system sustains when all cores update, the ceiling of GUPS at P = cores), then ``spikex
gups`` on 1 and 2 ranks, both algorithms, with that table, best of ``--repeat`` runs.
Each target is held against the limit of its own table size: this machine's last-level
cache is large, so a smaller table is not just a shorter run (2^23 words a core took 5.8 ns
an update on both cores at once on 2026-11-27, 2^25 words 9.6). Writes
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

import gups_hpcc
from readme_numbers import readme_with_block
from spikex_runs import machine, spikex_command

REPOSITORY = Path(__file__).resolve().parents[1]
OUTPUT = REPOSITORY / "bench" / "results" / "memory_limits.json"
HPCC = gups_hpcc.DEFAULT_OUTPUT
DOCS = REPOSITORY / "docs" / "user" / "gups.md"
BLOCK = "memory-limits"
# The table sizes of bench/gups.py --hpcc's campaigns (its routed / opt2 target).
LOG2_TABLES = gups_hpcc.RATIO_TARGETS[0][5]
DEEP = (16, 128, 256, 512)  # the k of the docs table's prefetched rows


def tables_of(result: dict) -> list[dict]:
    """Per table size: one core's measurement and all cores' at once. Files before
    2026-11-27 04:40 UTC measured one table size only (2^26), under "memory"."""
    if "tables" in result:
        return result["tables"]
    memory = result["memory"]
    return [{"log2_table": memory["table_words"].bit_length() - 1, "one_core": memory,
             "all_cores": result.get("all_cores")}]  # fmt: skip


def docs_block(result: dict) -> str:
    """The table of docs/user/gups.md, from the result file: a pair of columns per table size."""
    tables = tables_of(result)
    start, end = result["machine"]["load_average_start"][0], result["machine"]["load_average"][0]
    huge = all(t["one_core"].get("huge_pages") for t in tables)
    blocks = [{(b.get("prefetch", "L1"), b["k"]): b for b in t["one_core"]["blocks"]} for t in tables]
    kinds = list(dict.fromkeys(kind for kind, _ in blocks[0]))

    def row(label: str, cells: list[tuple[str, str]]) -> str:
        return f"| {label} | " + " | ".join(f"{ns} | {g}" for ns, g in cells) + " |"

    lines = [
        (
            f"Generated from `bench/results/memory_limits.json` (`make bench-memory`, {result['date_utc']} UTC, "
            f"{result['machine']['cpus']} cores, load average {start:.2f} at the start and {end:.2f} at the end "
            f"(1 min); random updates{' on transparent huge pages' if huge else ''}, `spikex gups` best of its "
            "repeats; ns per update per rank, and GUPS):"
        ),
        "",
        "| | " + " | ".join(f"2^{t['log2_table']} words: ns | GUPS" for t in tables) + " |",
        "|---" * (2 * len(tables) + 1) + "|",
        row("DRAM latency (pointer chase over the table)",
            [(f"{t['one_core']['latency_ns']:.0f}", "–") for t in tables]),
        row("random XOR updates, 1 at a time",
            [(f"{b[('L1', 1)]['ns_per_update']:.1f}", f"{b[('L1', 1)]['gups']:.3f}") for b in blocks]),
    ]  # fmt: skip
    for kind in kinds:
        deep = [k for k in DEEP if all((kind, k) in b for b in blocks)]
        lines.append(row(
            "random XOR updates, " + " / ".join(map(str, deep)) + f" prefetched in flight (into {kind})",
            [(" / ".join(f"{b[(kind, k)]['ns_per_update']:.1f}" for k in deep),
              " / ".join(f"{b[(kind, k)]['gups']:.3f}" for k in deep)) for b in blocks],
        ))  # fmt: skip
    together = [t.get("all_cores") for t in tables]
    if all(together):
        cores = together[0]["processes"]
        lines.append(row(
            f"random XOR updates on all {cores} cores at once, each on 1 / {cores} of the table (best k; GUPS together)",
            [(f"{a['best']['ns_per_update']:.1f} ({a['best']['k']}{_into(a['best'])})", f"{a['best']['gups']:.3f}")
             for a in together],
        ))  # fmt: skip
    for algorithm, ranks in dict.fromkeys((r["algorithm"], r["ranks"]) for r in result["gups"]):
        runs = {r["log2_table"]: r for r in result["gups"] if (r["algorithm"], r["ranks"]) == (algorithm, ranks)}
        lines.append(row(
            f"`spikex gups` {algorithm}, P = {ranks}",
            [(f"{run['ns_per_update_per_rank']:.1f}", f"{run['gups']:.3f}") if (run := runs.get(t["log2_table"]))
             else ("–", "–") for t in tables],
        ))  # fmt: skip
    sentences = [s for t in tables if (s := _ceiling_sentence(t, result["gups"])) is not None]
    return "\n".join(lines + (["", " ".join(sentences)] if sentences else []) + _lanes_table(result.get("lanes")))


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


def _ceiling_sentence(table: dict, runs: list[dict]) -> str | None:
    """Issue 21's target at P = cores with this table size (1.5 x Sandia opt2 of
    bench/results/gups_hpcc.json) against what the memory system sustains on all cores at
    once on a table of that size."""
    together = table.get("all_cores")
    if not together or not HPCC.is_file():
        return None
    cores, log2_table = together["processes"], table["log2_table"]
    targets = [t for c in json.loads(HPCC.read_text())["campaigns"] for t in c["targets"]
               if t["target"] == "routed_vs_opt2" and t["ranks"] == cores and t["log2_table"] == log2_table]  # fmt: skip
    if not targets:
        return None
    target = targets[0]
    ceiling = together["best"]["gups"]
    need = target["threshold"] * target["reference"]
    text = (
        f"With 2^{log2_table} words, all {cores} cores updating at once (2^{together['log2_table']} words each, "
        f"{together['best']['k']} updates in flight{_into(together['best'])}, no messages at all) sustain "
        f"{ceiling:.3f} GUPS together; issue 21's target {target['threshold']:g} × opt2 at P = {cores} is "
        f"{need:.3f} GUPS, {need / ceiling:.0%} of it (opt2 from `bench/results/gups_hpcc.json`)"
    )
    ours = next((r for r in runs if (r["algorithm"], r["ranks"], r["log2_table"]) == ("routed", cores, log2_table)), None)
    if ours:
        text += f", and routed reaches {ours['gups']:.3f} GUPS, {ours['gups'] / ceiling:.0%} of it"
    return text + "."


def write_docs(result: dict) -> None:
    text = DOCS.read_text(encoding="utf-8")
    new = readme_with_block(text, docs_block(result), BLOCK)
    if new != text:
        DOCS.write_text(new, encoding="utf-8")


def one_core(binary: Path, log2_table: int) -> dict:
    """bench_memory_limits on one core with the whole table of 2^log2_table words."""
    done = subprocess.run([str(binary), "--log2", str(log2_table)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"memory_limits: {binary} --log2 {log2_table} failed: {done.stderr.strip()}")
    return json.loads(done.stdout)


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
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument(
        "--docs-only", action="store_true", help="regenerate the docs table from the JSON"
    )
    args = parser.parse_args()
    if args.docs_only:
        write_docs(json.loads(OUTPUT.read_text()))
        return 0
    load_start = machine()["load_average"]
    cores = machine()["cpus"]
    tables = [
        {
            "log2_table": log2_table,
            "one_core": one_core(args.binary, log2_table),
            "all_cores": all_cores(args.binary, log2_table, cores) if cores > 1 else None,
        }
        for log2_table in LOG2_TABLES
    ]
    runs = [gups(p, a, log2_table, args.repeat) for log2_table in LOG2_TABLES
            for a in ("routed", "baseline") for p in (1, 2)]  # fmt: skip
    result = {
        "question": "DRAM latency and ns per random update with k updates in flight on this machine, "
        "on one core and on all cores at once, per table size, against spikex gups' ns per update per rank",
        "date_utc": datetime.now(UTC).strftime("%Y-%m-%d %H:%M"),
        "machine": {**machine(), "load_average_start": load_start},
        "tables": tables,
        "gups": runs,
        "lanes": lanes_series(LOG2_TABLES[0], max(args.repeat, 3)),
    }
    OUTPUT.write_text(json.dumps(result, indent=2) + "\n")
    write_docs(result)
    for table in tables:
        best = min(table["one_core"]["blocks"], key=lambda b: b["ns_per_update"])
        print(
            f"2^{table['log2_table']} words: DRAM latency {table['one_core']['latency_ns']:.0f} ns; best "
            f"{best['ns_per_update']:.2f} ns/update (k = {best['k']}, into {best['prefetch']})"
        )
        if table["all_cores"]:
            together = table["all_cores"]["best"]
            print(f"  all {cores} cores at once: {together['gups']:.3f} GUPS together (k = {together['k']})")
    for run in runs:
        print(f"{run['algorithm']:>8} P={run['ranks']} 2^{run['log2_table']}: {run['gups']:.4f} GUPS, "
              f"{run['ns_per_update_per_rank']:.2f} ns per update per rank, errors {run['errors']}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
