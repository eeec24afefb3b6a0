"""spikex against NEST 3.10 on NEST's hpc_benchmark, on this machine (issue 6, item 7).

Question: at equal cores, how do spikex's simulate time and memory per synapse compare
with NEST's on the same network (scale 1: N = 11,250, K = 11,250, 126.6 M synapses;
100 ms presim, then 1 s measured static and 100 ms with STDP on E→E — with STDP both
simulators run away after a few hundred ms, see bench/nest/stdp_runaway.py)?

Runs, one at a time: NEST with 1 and 2 threads; spikex with 1 rank × 1 thread, 1 × 2 and
2 × 1. Adds the campaign to bench/results/vs_nest.json (which keeps every campaign in
``campaigns``, the latest also at the top level; taking the same cached runs again
replaces their campaign instead of adding one), writes the "benchmark" section of
docs/validation/nest.md and the README's figures (bench/readme_numbers.py, from all
campaigns), prints the table::

    python bench/vs_nest.py                     # all runs (about half an hour on 2 cores)
    python bench/vs_nest.py --indegree 3750     # the laptop-size variant
    python bench/vs_nest.py --rerun             # measure again instead of reusing bench/nest/data

Definitions. Times: build (create + connect), init (NEST: the 100 ms presim, which
includes its preparation; spikex: exchange set-up + the presim), simulate (the measured
time, wall clock; ratios per biological second). Peak RSS: per process from getrusage (ru_maxrss) in the process
itself; for 2 ranks the sum over ranks. Bytes per synapse = total peak RSS / synapses
(the interpreter and libraries included; spikex's own accounting of its data structures,
summary.memory_bytes, is shown too). Events per second = synaptic events delivered in
the measured second / simulate seconds (NEST does not count deliveries: spikes × K, the
mean out-degree; Poisson input is not counted on either side).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "nest"))
sys.path.insert(0, str(HERE))
from readme_numbers import update_readme
from report import RESULTS, machine, measured_on, update_section, write_json
from runs import STDP_TSIM_MS, Run, execute

CONFIGURATIONS = (
    ("nest", 1, 1),
    ("nest", 1, 2),
    ("spikex", 1, 1),
    ("spikex", 1, 2),
    ("spikex", 2, 1),
)
GOAL_TIME_RATIO = 0.5
GOAL_MEMORY_RATIO = 0.6


def row(run: Run, report: dict) -> dict:
    times = report["time_s"]
    peaks = report.get("peak_rss_mb_per_rank") or [report["peak_rss_mb"]]
    total_peak_mb = float(sum(peaks))
    connections = int(report["connections"])
    events = report.get("events_delivered", report.get("events_delivered_estimate"))
    memory_bytes = report.get("memory_bytes")
    own = None
    if isinstance(memory_bytes, dict) and memory_bytes:
        # spikex: bytes per data structure, {"max", "mean"} over ranks -> total over ranks
        own = sum(float(v["mean"]) for v in memory_bytes.values()) * run.ranks
    return {
        "simulator": run.simulator,
        "plastic": run.plastic,
        "ranks": run.ranks,
        "threads": run.threads,
        "cores": run.ranks * run.threads,
        "connections": connections,
        "build_s": float(times["build"]) + float(times.get("describe", 0.0)),
        "init_s": float(times["init"]),
        "simulate_s": float(times["simulate"]),
        "measured_ms": float(report.get("simulated_ms", run.tsim)),
        "simulate_s_per_bio_s": float(times["simulate"]) / (float(report.get("simulated_ms", run.tsim)) / 1000.0),
        "peak_rss_mb_total": total_peak_mb,
        "peak_rss_mb_per_process": peaks,
        "bytes_per_synapse": total_peak_mb * 2**20 / connections,
        "own_bytes_per_synapse": (own / connections) if own else None,
        "events_delivered": int(events) if events is not None else None,
        "events_estimated": "events_delivered" not in report,
        "events_per_s": (events / float(times["simulate"])) if events else None,
        "mean_rate_hz": report["mean_rate_hz"],
        "run": run.name,
        "measured": report["measured"],
    }


def ratios(rows: list[dict]) -> list[dict]:
    """spikex / NEST at equal cores, for each spikex configuration with a NEST run of the
    same campaign (same machine, same synapses, same number of cores)."""
    out = []
    for r in rows:
        if r["simulator"] != "spikex":
            continue
        nest = next(
            (
                n
                for n in rows
                if n["simulator"] == "nest" and n["plastic"] == r["plastic"] and n["cores"] == r["cores"]
            ),
            None,
        )
        if nest is None:
            continue
        simulate_ratio = r["simulate_s_per_bio_s"] / nest["simulate_s_per_bio_s"]
        memory_ratio = r["bytes_per_synapse"] / nest["bytes_per_synapse"]
        out.append(
            {
                "plastic": r["plastic"],
                "spikex": f"{r['ranks']}x{r['threads']}",
                "cores": r["cores"],
                "simulate_ratio": simulate_ratio,
                "memory_ratio": memory_ratio,
                "time_goal_met": simulate_ratio <= GOAL_TIME_RATIO,
                "memory_goal_met": memory_ratio <= GOAL_MEMORY_RATIO,
            }
        )
    return out


def _campaign_key(campaign: dict) -> tuple:
    """What makes two campaigns the same: the network, the times and the runs' stamps."""
    return (
        campaign["scale"],
        campaign["indegree"],
        campaign["presim_ms"],
        campaign["tsim_ms"],
        campaign.get("stdp_tsim_ms"),
        tuple(sorted((r["run"], r["measured"]["date_utc"]) for r in campaign["rows"])),
    )


def with_campaign(previous: dict | None, campaign: dict) -> dict:
    """The JSON to write: every campaign of ``previous`` (a file from before campaigns were
    kept counts as one) and ``campaign`` last, replacing an earlier copy of itself; the
    latest campaign's fields also at the top level, as before."""
    kept = []
    if previous:
        kept = previous.get("campaigns") or ([previous] if previous.get("rows") else [])
    kept = [
        {k: v for k, v in c.items() if k != "campaigns"}
        for c in kept
        if _campaign_key(c) != _campaign_key(campaign)
    ]
    return {**campaign, "campaigns": [*kept, campaign]}


def _num(value, digits=1) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def _ratio(value, met) -> str:
    if value is None:
        return "–"
    return f"{value:.2f} {'✓' if met else '✗'}"


def markdown(results: dict) -> str:
    info = results["machine"]
    lines = [
        "### hpc_benchmark: spikex vs NEST 3.10 (item 7)",
        "",
        (
            f"{measured_on(info, [r['measured'] for r in results['rows']])}; runs are cached in "
            "bench/nest/data/ (`--rerun` takes them all again). "
            f"Scale {results['scale']:g}, K = {results['indegree']:,}, {results['presim_ms']:g} ms presim + "
            f"{results['tsim_ms']:g} ms measured ({results['stdp_tsim_ms']:g} ms with STDP, before the "
            "runaway both simulators show; times compared per biological second)."
        ),
        "",
        "| synapses | simulator | ranks × threads | build s | init s | measured ms | simulate s | s per bio s | peak RSS MB | B/synapse | own B/synapse | events/s | rate Hz |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results["rows"]:
        lines.append(
            f"| {'STDP' if r['plastic'] else 'static'} | {r['simulator']} | {r['ranks']} × {r['threads']} "
            f"| {_num(r['build_s'])} | {_num(r['init_s'])} | {_num(r['measured_ms'], 0)} | {_num(r['simulate_s'])} "
            f"| {_num(r['simulate_s_per_bio_s'])} | {_num(r['peak_rss_mb_total'], 0)} "
            f"| {_num(r['bytes_per_synapse'])} | {_num(r['own_bytes_per_synapse'])} "
            f"| {'≈' if r['events_estimated'] else ''}{_num(r['events_per_s'] and r['events_per_s'] / 1e6, 1)} M "
            f"| {_num(r['mean_rate_hz'])} |"
        )
    if results["ratios"]:
        lines += [
            "",
            f"spikex / NEST at equal cores (goals: simulate ≤ {GOAL_TIME_RATIO:g}, memory per synapse ≤ {GOAL_MEMORY_RATIO:g}):",
            "",
            "| synapses | spikex | cores | simulate ratio | memory ratio |",
            "|---|---|---|---|---|",
        ]
        for q in results["ratios"]:
            lines.append(
                f"| {'STDP' if q['plastic'] else 'static'} | {q['spikex']} | {q['cores']} "
                f"| {_ratio(q['simulate_ratio'], q['time_goal_met'])} "
                f"| {_ratio(q['memory_ratio'], q['memory_goal_met'])} |"
            )
    if results.get("failed"):
        lines += [
            "",
            "Runs missing or failed: " + "; ".join(f["error"] for f in results["failed"]),
        ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--indegree", type=int, default=11250)
    parser.add_argument("--presim", type=float, default=100.0)
    parser.add_argument("--tsim", type=float, default=1000.0)
    parser.add_argument("--plastic", default="false,true")
    parser.add_argument("--stdp-tsim", type=float, default=STDP_TSIM_MS, help="ms measured with STDP")
    parser.add_argument(
        "--only", default="", help="comma list of simulator names to run (default both)"
    )
    parser.add_argument("--rerun", action="store_true")
    parser.add_argument(
        "--cached-only", action="store_true", help="use measured runs only; list the rest"
    )
    parser.add_argument("-o", "--output", default=str(RESULTS / "vs_nest.json"))
    args = parser.parse_args()

    rows, failed = [], []
    for plastic in (x.strip() == "true" for x in args.plastic.split(",")):
        for simulator, ranks, threads in CONFIGURATIONS:
            if args.only and simulator not in args.only.split(","):
                continue
            run = Run(
                simulator,
                args.scale,
                args.indegree,
                plastic,
                ranks,
                threads,
                args.presim,
                args.stdp_tsim if plastic else args.tsim,
                weights=plastic,  # read after every timing; the statistics reuse these runs
            )
            try:
                rows.append(row(run, execute(run, args.rerun, cached_only=args.cached_only)))
            except (RuntimeError, OSError, KeyError) as error:
                failed.append({"run": run.name, "error": str(error).splitlines()[0][:300]})
                print(f"vs_nest: {run.name} failed: {error}", file=sys.stderr)
    results = {
        "question": "simulate time and memory per synapse of spikex vs NEST 3.10 at equal cores",
        "scale": args.scale,
        "indegree": args.indegree,
        "presim_ms": args.presim,
        "tsim_ms": args.tsim,
        "stdp_tsim_ms": args.stdp_tsim,
        "machine": machine(),
        "rows": rows,
        "ratios": ratios(rows),
        "failed": failed,
    }
    output = Path(args.output)
    previous = json.loads(output.read_text(encoding="utf-8")) if output.exists() else None
    kept = with_campaign(previous, results)
    write_json(output, kept)
    text = markdown(results)
    if args.scale == 1.0 and args.indegree == 11250:
        update_section("benchmark", text)
        update_readme(kept)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
