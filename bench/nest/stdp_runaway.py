"""Does the hpc_benchmark with STDP run away in spikex as it does in NEST? (issue 6, item 6b)

With E→E STDP the hpc_benchmark is not stationary: weights grow, the rate climbs, and
at some point the network tips into a high-rate state (NEST's example warns that STDP
drives it towards synchrony). When that happens depends on the realization, so one run
per simulator cannot tell a systematic difference from chance. This script runs several
seeds on both simulators, in blocks of --block-ms, recording the rate and the mean E→E
weight (onto the first 200 excitatory neurons) per block, and compares

* the time of the runaway (first block above --runaway-factor × the first block's rate;
  runs stop --stop-above-hz), its distribution over seeds on each side;
* the weight drift per block before the runaway, against the rate in that block (the
  rule's response to the same activity must be the same).

    python bench/nest/stdp_runaway.py --indegree 3750 --seeds 1,2,3,4 --nest-seeds 1,2,3 --tsim 1500
    python bench/nest/stdp_runaway.py --indegree 11250 --seeds 1 --threads 2 --no-block-weights

Writes bench/results/nest_stdp_runaway_k<K>.json and the "stdp_runaway_k<K>" section of
docs/validation/nest.md. Runs are cached in bench/nest/data/ (``--rerun`` to repeat), and
the results file accumulates: runs of (simulator, seed) pairs not asked for this time are
kept from it when their settings are the same, so seeds can be added one call at a time.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from report import RESULTS, machine, update_section, write_json
from runs import Run, execute


def runaway_ms(blocks: list[dict], factor: float) -> float | None:
    """End time of the first block whose rate exceeds factor × the first block's rate."""
    if not blocks:
        return None
    baseline = blocks[0]["rate_hz"]
    for block in blocks:
        if block["rate_hz"] > factor * baseline:
            return float(block["t_end_ms"])
    return None


def drift_per_100ms(blocks: list[dict], before_ms: float | None, presim_ms: float) -> list[dict]:
    """(rate, weight change per 100 ms) of each block that ends before the runaway."""
    rows, previous_end, previous_weight = [], presim_ms, None
    for block in blocks:
        if before_ms is not None and block["t_end_ms"] >= before_ms:
            break
        weight = block.get("ee_weight_mean")
        if weight is not None and previous_weight is not None:
            length = block["t_end_ms"] - previous_end
            rows.append(
                {"rate_hz": block["rate_hz"], "dw_pa_per_100ms": (weight - previous_weight) * 100 / length}
            )
        previous_end, previous_weight = block["t_end_ms"], weight
    return rows


def drift_slope(rows: list[dict]) -> dict:
    """Least-squares fit dw = a + b·rate over the pooled blocks of one simulator."""
    if len(rows) < 3:
        return {"blocks": len(rows)}
    rate = np.array([r["rate_hz"] for r in rows])
    dw = np.array([r["dw_pa_per_100ms"] for r in rows])
    b, a = np.polyfit(rate, dw, 1)
    return {
        "blocks": len(rows),
        "mean_rate_hz": float(rate.mean()),
        "mean_dw_pa_per_100ms": float(dw.mean()),
        "sem_dw_pa_per_100ms": float(dw.std(ddof=1) / np.sqrt(dw.size)),
        "fit_intercept": float(a),
        "fit_slope_per_hz": float(b),
    }


# Settings that make two runs comparable (the rest only say which runs to make).
SAME_SETTINGS = ("scale", "indegree", "threads", "presim", "tsim", "block_ms", "no_block_weights", "stop_above_hz")


def earlier_runs(path: Path, settings: dict, made: set[tuple[str, int]]) -> list[dict]:
    """Runs of an earlier call with the same settings, except the (simulator, seed) made now."""
    if not path.exists():
        return []
    earlier = json.loads(path.read_text())
    if any(earlier.get("settings", {}).get(k) != settings[k] for k in SAME_SETTINGS):
        return []
    return [r for r in earlier.get("runs", []) if (r["simulator"], r["seed"]) not in made]


def table(runs: list[dict], tsim_end_ms: float) -> str:
    lines = [
        "| simulator | seed | rate per 100 ms (Hz) | runaway at (ms) | E→E weight at end (pA) |",
        "|---|---|---|---|---|",
    ]
    for r in runs:
        rates = ", ".join(f"{b['rate_hz']:.0f}" for b in r["blocks"])
        end = r["runaway_ms"] if r["runaway_ms"] is not None else f"none by {tsim_end_ms:g}"
        weight = r.get("ee_weight_after_mean")
        lines.append(
            f"| {r['simulator']} | {r['seed']} | {rates} | {end} | "
            + (f"{weight:.2f}" if weight is not None else "–")
            + " |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--indegree", type=int, default=3750)
    parser.add_argument("--seeds", default="1,2,3,4")
    parser.add_argument(
        "--nest-seeds", default="", help="NEST's seeds if fewer (its runaway takes long) [--seeds]"
    )
    parser.add_argument("--threads", type=int, default=1, help="threads on both sides [1]")
    parser.add_argument("--simulators", default="nest,spikex")
    parser.add_argument("--presim", type=float, default=100.0)
    parser.add_argument("--tsim", type=float, default=1500.0)
    parser.add_argument("--block-ms", type=float, default=100.0)
    parser.add_argument("--no-block-weights", action="store_true", help="rates only (big networks)")
    parser.add_argument("--stop-above-hz", type=float, default=150.0)
    parser.add_argument("--runaway-factor", type=float, default=3.0)
    parser.add_argument("--timeout", type=float, default=7200.0, help="seconds per run")
    parser.add_argument("--rerun", action="store_true")
    parser.add_argument("--report-only", action="store_true", help="run nothing: rewrite the report from the results file")
    args = parser.parse_args()

    seeds = {name: [int(s) for s in args.seeds.split(",")] for name in ("nest", "spikex")}
    if args.nest_seeds:
        seeds["nest"] = [int(s) for s in args.nest_seeds.split(",")]
    runs = []
    for simulator in [] if args.report_only else args.simulators.split(","):
        for seed in seeds[simulator]:
            run = Run(
                simulator, args.scale, args.indegree, True, 1, args.threads, args.presim,
                args.tsim, seed, weights=True, block_ms=args.block_ms,
                block_weights=not args.no_block_weights, stop_above_hz=args.stop_above_hz,
            )  # fmt: skip
            report = execute(run, rerun=args.rerun, timeout=args.timeout)
            onset = runaway_ms(report["blocks"], args.runaway_factor)
            runs.append(
                {
                    "simulator": simulator,
                    "seed": seed,
                    "threads": args.threads,
                    "blocks": report["blocks"],
                    "runaway_ms": onset,
                    "stopped_early": report.get("stopped_early", False),
                    "ee_weight_after_mean": report.get("ee_weight_after_mean"),
                    "drift": drift_per_100ms(report["blocks"], onset, args.presim),
                }
            )

    path = RESULTS / f"nest_stdp_runaway_k{args.indegree}.json"
    settings = {
        k: v for k, v in vars(args).items() if k not in ("rerun", "report_only", "seeds", "nest_seeds", "simulators")
    }
    made = {(r["simulator"], r["seed"]) for r in runs}
    runs = sorted(runs + earlier_runs(path, settings, made), key=lambda r: (r["simulator"], r["seed"]))
    simulators = sorted({r["simulator"] for r in runs})
    for r in runs:  # the runaway criterion may have changed since an earlier call
        r["runaway_ms"] = runaway_ms(r["blocks"], args.runaway_factor)
        r["drift"] = drift_per_100ms(r["blocks"], r["runaway_ms"], args.presim)

    end_ms = args.presim + args.tsim
    summary = {}
    for simulator in simulators:
        mine = [r for r in runs if r["simulator"] == simulator]
        onsets = [r["runaway_ms"] for r in mine if r["runaway_ms"] is not None]
        summary[simulator] = {
            "runs": len(mine),
            "ran_away": len(onsets),
            "runaway_ms": onsets,
            "drift_before_runaway": drift_slope([row for r in mine for row in r["drift"]]),
        }
    result = {
        "question": "STDP hpc_benchmark: time of runaway and weight drift vs rate, NEST and spikex",
        "machine": machine(),
        "settings": settings,
        "summary": summary,
        "runs": runs,
    }
    write_json(path, result)

    lines = [
        f"### STDP runaway, K = {args.indegree:,} (scale {args.scale:g}, {args.threads} thread(s), "
        f"presim {args.presim:g} ms + {args.tsim:g} ms in {args.block_ms:g} ms blocks)",
        "",
        f"Written {result['machine']['date_utc']} UTC by `bench/nest/stdp_runaway.py` (runs accumulate over calls); runaway = first "
        f"block above {args.runaway_factor:g}× the first block's rate; runs stop after a block above "
        f"{args.stop_above_hz:g} Hz.",
        "",
        table(runs, end_ms),
        "",
        "| simulator | ran away | runaway at (ms) | E→E weight drift before it (pA per 100 ms, mean ± sem) | at mean rate (Hz) |",
        "|---|---|---|---|---|",
    ]
    for simulator, s in summary.items():
        d = s["drift_before_runaway"]
        drift = (
            f"{d['mean_dw_pa_per_100ms']:.3f} ± {d['sem_dw_pa_per_100ms']:.3f}"
            if "mean_dw_pa_per_100ms" in d
            else "–"
        )
        rate = f"{d['mean_rate_hz']:.1f}" if "mean_rate_hz" in d else "–"
        onsets = ", ".join(f"{t:g}" for t in s["runaway_ms"]) or "–"
        lines.append(f"| {simulator} | {s['ran_away']}/{s['runs']} | {onsets} | {drift} | {rate} |")
    text = "\n".join(lines)
    update_section(f"stdp_runaway_k{args.indegree}", text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
