#!/usr/bin/env python3
"""GUPS of HPCC MPIRandomAccess, baseline against routed, on 1-16 ranks.

Question answered: how many giga-updates per second do the two algorithms of ``spikex
gups`` reach on 1, 2, 4, 8 and 16 ranks (oversubscribed on small machines), with how many
updates per message and messages per rank, on several grid shapes (1-D = direct, balanced,
hypercube)? And how does the baseline's mean bucket size fall with P: the paper's Table 3,
measured here for P <= 16 and, past this machine, from a simulation of the same bucket
policy (uniform destinations, the fullest of P - 1 buckets sent when 1,024 are pending),
next to the published figures; with the routed bucket capacity budget / sum(dims) beside.

Every run goes through ``spikex gups`` (the same code path as users), from the venv of the
Python running this script. Writes ``bench/results/gups.json``::

    {"question", "machine", "parameters",
     "runs": [{"algorithm", "ranks", "dims", "gups", "gups_per_rank", "time_s",
               "mean_updates_per_message", "messages_per_rank", "mean_hops", ...}, ...],
     "bucket_size_table": [{"ranks", "measured", "simulated", "paper", "routed_dims",
                            "routed_capacity"}, ...]}

With ``--hpcc`` it measures instead the HPC Challenge reference codes (hpcc 1.5.0's
MPIRandomAccess, standard and Sandia opt2) and spikex's two algorithms in the same run, at
P = 1, 2, 4 with a 2^24-word table: ``bench/results/gups_hpcc.json`` and the table in
``docs/user/gups.md`` (bench/gups_hpcc.py, bench/hpcc_reference.py).

Usage::

    .venv/bin/python bench/gups.py                         # P = 1,2,4,8,16, 2^18 words
    .venv/bin/python bench/gups.py --log2-table 16 --np-list 1,2,4
    .venv/bin/python bench/gups.py --hpcc                  # against HPCC: P = 1,2,4, 2^24 words
    .venv/bin/python bench/gups.py --hpcc --log2-table 26 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

from spikex.runtime.allocation import memory_bytes, size_text
from spikex.scaling.analytic import GARG_TABLE3, simulate_bucket_size
from spikex_runs import machine, spikex_gups

REPOSITORY = Path(__file__).resolve().parents[1]
DEFAULT_OUTPUT = REPOSITORY / "bench" / "results" / "gups.json"
QUESTION = (
    "GUPS, updates per message and messages per rank of HPCC MPIRandomAccess, baseline "
    "(bucket per destination) against routed (software routing over a logical grid), on "
    "1-16 ranks and several grid shapes; and the baseline's mean bucket size against P "
    "(Garg & Sabharwal, Table 3)."
)
# Grid shapes tried per rank count besides "auto" (which is 1-D, direct aggregation, up to
# 128 ranks with a budget of 1024): balanced 2-D, unbalanced 2-D, hypercube.
SHAPES = {4: ["2x2"], 8: ["4x2", "hypercube"], 16: ["4x4", "8x2", "hypercube"]}
# Garg & Sabharwal, Table 3 and the bucket simulation live in the package (one copy).
PAPER_TABLE_3 = GARG_TABLE3


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    parser.add_argument("--hpcc", action="store_true",
                        help="against the HPCC reference codes (hpcc 1.5.0, standard and "
                        "Sandia opt2) in the same run: bench/results/gups_hpcc.json")  # fmt: skip
    parser.add_argument("--np-list", help="rank counts [1,2,4,8,16; --hpcc: 1,2,4]")
    parser.add_argument("--log2-table", type=int, help="table of 2^K words [18; --hpcc: 24]")
    parser.add_argument("--budget", type=int, default=1024, help="updates per rank [1024]")
    parser.add_argument("--repeat", type=int, help="runs per case; best GUPS kept [1; --hpcc: 2]")
    parser.add_argument(
        "--simulate-updates", type=int, default=300_000,
        help="updates per rank count in the bucket-size simulation [300000]",
    )  # fmt: skip
    parser.add_argument("--output", type=Path, help="result JSON [bench/results/gups.json; "
                        "--hpcc: bench/results/gups_hpcc.json]")  # fmt: skip
    parser.add_argument("--hpcc-timeout", type=float, default=1800.0,
                        help="--hpcc: seconds one hpcc run may take [1800]")  # fmt: skip
    parser.add_argument("--docs-only", action="store_true",
                        help="--hpcc: only rewrite docs/user/gups.md's table from the JSON")  # fmt: skip
    parser.add_argument("--check-docs", action="store_true",
                        help="--hpcc: exit 1 when docs/user/gups.md's table is stale")  # fmt: skip
    args = parser.parse_args(argv)
    hpcc = args.hpcc
    args.np_list = args.np_list if args.np_list is not None else ("1,2,4" if hpcc else "1,2,4,8,16")
    args.log2_table = args.log2_table if args.log2_table is not None else (24 if hpcc else 18)
    args.repeat = args.repeat if args.repeat is not None else (2 if hpcc else 1)
    return args


def argument_problem(args) -> str | None:
    """What is wrong with the arguments, as one line, or None."""
    try:
        ranks = [int(word) for word in args.np_list.split(",")]
    except ValueError:
        return f"--np-list = {args.np_list!r}: must be rank counts separated by commas, e.g. 1,2,4"
    if not ranks or min(ranks) < 1 or len(set(ranks)) != len(ranks):
        return f"--np-list = {args.np_list!r}: must be distinct rank counts >= 1"
    if not 4 <= args.log2_table <= 34:
        return f"--log2-table = {args.log2_table}: must be between 4 and 34"
    if args.repeat < 1:
        return f"--repeat = {args.repeat}: must be >= 1"
    if args.budget < 1:
        return f"--budget = {args.budget}: must be >= 1"
    if (args.docs_only or args.check_docs) and not args.hpcc:
        return "--docs-only and --check-docs go with --hpcc"
    if args.hpcc:
        if args.hpcc_timeout <= 0:
            return f"--hpcc-timeout = {args.hpcc_timeout:g}: must be > 0"
        _, available = memory_bytes()
        need = 2 * 8 * 2**args.log2_table  # the table, and as much again for buffers and copies
        if need > available:
            return (f"--log2-table = {args.log2_table}: hpcc needs about {size_text(need)}, "
                    f"more than the {size_text(available)} of memory available")  # fmt: skip
    return None


def run_gups(args, ranks: int, algorithm: str, dims: str | None) -> dict:
    """Best of ``--repeat`` runs of ``spikex gups``; returns its JSON."""
    best = None
    for _ in range(args.repeat):
        result = spikex_gups(ranks, algorithm, args.log2_table, args.budget, dims)
        if best is None or result["gups"] > best["gups"]:
            best = result
    return best


def bucket_size_table(args, runs: list[dict]) -> list[dict]:
    from spikex import _core

    measured = {
        r["ranks"]: r["mean_updates_per_message"] for r in runs if r["algorithm"] == "baseline"
    }
    rows = []
    for ranks in sorted(set(measured) | set(PAPER_TABLE_3)):
        if ranks < 2:
            continue
        plan = _core.route_plan(ranks, "auto", args.budget)
        rows.append(
            {
                "ranks": ranks,
                "measured": measured.get(ranks),
                "simulated": round(
                    simulate_bucket_size(ranks, args.simulate_updates, args.budget), 2
                ),
                "paper": PAPER_TABLE_3.get(ranks),
                "routed_dims": plan["dims"],
                "routed_capacity": plan["bucket_capacity"],
            }
        )
        print(f"bucket size P={ranks}: {rows[-1]}", file=sys.stderr, flush=True)
    return rows


def print_tables(runs: list[dict], table: list[dict]) -> None:
    print(f"{'algorithm':<9} {'P':>3} {'dims':<14} {'GUPS':>9} {'GUPS/rank':>10} {'upd/msg':>8} "
          f"{'msgs/rank':>9} {'hops':>5} {'SBF':>5}")  # fmt: skip
    for r in runs:
        dims = str(r["dims"]) if r["dims"] else "-"
        print(f"{r['algorithm']:<9} {r['ranks']:>3} {dims:<14} {r['gups']:>9.5f} "
              f"{r['gups_per_rank']:>10.6f} {r['mean_updates_per_message']:>8.1f} "
              f"{r['messages_per_rank']:>9.0f} {r['mean_hops']:>5.2f} {r['send_blocking_factor']:>5.2f}")  # fmt: skip
    print()
    print(f"{'P':>6} {'measured':>9} {'simulated':>9} {'paper':>7}   routed grid, capacity")
    for row in table:
        measured = f"{row['measured']:.2f}" if row["measured"] is not None else "-"
        paper = f"{row['paper']:.2f}" if row["paper"] is not None else "-"
        print(f"{row['ranks']:>6} {measured:>9} {row['simulated']:>9.2f} {paper:>7}   "
              f"{row['routed_dims']}, {row['routed_capacity']}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    args = parse_arguments(argv)
    problem = argument_problem(args)
    if problem is not None:
        print(f"gups.py: {problem}", file=sys.stderr)
        return 2
    rank_counts = [int(p) for p in args.np_list.split(",")]
    if args.hpcc:
        import gups_hpcc

        return gups_hpcc.main(args, rank_counts)
    args.output = args.output or DEFAULT_OUTPUT
    fields = (
        "algorithm", "ranks", "dims", "bucket_capacity", "gups", "gups_per_rank", "time_s",
        "updates", "messages_sent", "messages_per_rank", "mean_updates_per_message",
        "mean_hops", "forwarded", "send_blocking_factor", "buffered_high_water", "errors",
        "passed", "termination_rounds",
    )  # fmt: skip
    runs = []
    for ranks in rank_counts:
        runs.append(run_gups(args, ranks, "baseline", None))
        for dims in [None, *SHAPES.get(ranks, [])]:
            runs.append(run_gups(args, ranks, "routed", dims))
    runs = [{name: run[name] for name in fields} for run in runs]
    table = bucket_size_table(args, runs)
    result = {
        "question": QUESTION,
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "parameters": {
            "log2_table": args.log2_table,
            "updates": 4 * 2**args.log2_table,
            "budget": args.budget,
            "np_list": rank_counts,
            "repeat": args.repeat,
            "simulate_updates": args.simulate_updates,
            "note": "ranks beyond the core count are oversubscribed: GUPS then measure "
            "contention, not the network; the bucket sizes do not depend on it",
        },
        "runs": runs,
        "bucket_size_table": table,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=2) + "\n")
    print_tables(runs, table)
    print(f"\nwritten: {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
