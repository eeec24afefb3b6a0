#!/usr/bin/env python3
"""spikex against NEURON 9.0.2 on the Hines 2011 artificial-cell benchmark (issue 56, item 4).

Question: on this machine, how much faster and how much smaller is spikex than NEURON on
the paper's test model (8,192 IntervalFire cells x 1,000 +- 50 inputs, weights 0, delay
1 ms, dt 0.025 ms, 200 ms), at P = 1 and P = 2 ranks? Goal: >= 50x in simulate time and
>= 20x in peak memory at both.

Both simulators run as separate programs, alternately (spikex, NEURON, spikex, ...),
``--repeat`` times at each rank count:

* spikex: ``spikex run examples/hines2011_demo.toml --np P --set network.cells=N`` from the
  venv of the Python running this script; times from its summary.json (build, init,
  simulate = time_s.simulate), peak RSS from the summary (ru_maxrss of each rank, max and
  mean over ranks; total = mean x P).
* NEURON: ``mpiexec -n P bench/neuron/.venv/bin/python bench/neuron/hines_neuron.py``
  (ParallelContext, pc.gid_connect, pc.psolve; mod/IntervalFire.mod compiled by
  scripts/setup_neuron.sh); simulate = pc.psolve wall time, setup = cells + connections,
  peak RSS = ru_maxrss of each rank; total = sum.

Both sides' RSS includes the Python interpreter and the simulator's libraries. The
1-minute load average is recorded before and after every run (nothing is tuned to it).
Ratios use the median over repeats. Writes bench/results/hines_vs_neuron.json and
docs/validation/hines_vs_neuron.md::

    python bench/neuron/hines_vs_neuron.py                 # about 10 minutes on 2 cores
    python bench/neuron/hines_vs_neuron.py --report-only   # the page from the JSON
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parents[1]
sys.path.insert(0, str(REPOSITORY / "bench"))

CONFIG = REPOSITORY / "examples" / "hines2011_demo.toml"
RESULTS = REPOSITORY / "bench" / "results" / "hines_vs_neuron.json"
PAGE = REPOSITORY / "docs" / "validation" / "hines_vs_neuron.md"
NEURON_PYTHON = HERE / ".venv" / "bin" / "python"
NEURON_SCRIPT = HERE / "hines_neuron.py"
GOAL_TIME_RATIO = 50.0
GOAL_MEMORY_RATIO = 20.0
SPIKE_TOLERANCE = 0.03  # "a few percent": the draws differ, the statistics do not
QUESTION = (
    "Simulate time and peak memory of spikex and NEURON 9.0.2 on the Hines 2011 "
    "artificial-cell benchmark (8,192 cells x 1,000 +- 50 inputs, 200 ms) at P = 1 and 2."
)


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cells", type=int, default=8192, help="number of cells [8192]")
    parser.add_argument("--indegree", type=int, default=1000, help="inputs per cell [1000]")
    parser.add_argument("--indegree-spread", type=int, default=100, help="dC [100]")
    parser.add_argument("--tstop-ms", type=float, default=200.0, help="simulated ms [200]")
    parser.add_argument("--np-list", default="1,2", help="rank counts [1,2]")
    parser.add_argument("--repeat", type=int, default=3, help="runs per simulator and P [3]")
    parser.add_argument("--neuron-python", type=Path, default=NEURON_PYTHON)
    parser.add_argument(
        "--neuron-queue", choices=("tree", "bin"), default="tree",
        help="NEURON's event queue (hines_neuron.py --queue): its default splay tree, or the "
        "fixed-step bin queue (not faster here in a check at P = 1) [tree]",
    )  # fmt: skip
    parser.add_argument("--output", type=Path, default=RESULTS)
    parser.add_argument("--page", type=Path, default=PAGE)
    parser.add_argument(
        "--report-only", action="store_true", help="write the page from the JSON, run nothing"
    )
    return parser.parse_args()


def load_1min() -> float:
    return round(os.getloadavg()[0], 2)


def mpi_environment() -> dict:
    environment = dict(os.environ)
    if os.geteuid() == 0:
        environment.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        environment.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return environment


def run_spikex(args: argparse.Namespace, ranks: int, outdir: Path) -> dict:
    from spikex_runs import spikex_run

    overrides = [
        f"network.cells={args.cells}",
        f"network.indegree={args.indegree}",
        f"network.indegree_spread={args.indegree_spread}",
        f"simulation.tstop_ms={args.tstop_ms}",
    ]
    load_before = load_1min()
    started = time.perf_counter()
    summary = spikex_run(CONFIG, ranks, outdir, overrides)
    wall = time.perf_counter() - started
    times = summary["time_s"]
    rss = summary["peak_rss_mb"]
    return {
        "simulator": "spikex",
        "version": summary["spikex_version"],
        "ranks": ranks,
        "connections": summary["connections"],
        "setup_s": times["build"],
        "init_s": times["init"],
        "simulate_s": times["simulate"],
        "compute_s": times["compute"],
        "wait_s": times["wait"],
        "exchange_s": times["exchange"],
        "command_wall_s": round(wall, 2),
        "spikes": summary["spikes_total"],
        "events_delivered": summary["events_delivered"],
        "spikes_sha256": summary["spikes_sha256"],
        "peak_rss_mb_max": round(rss["max"], 1),
        "peak_rss_mb_mean": round(rss["mean"], 1),
        "peak_rss_mb_total": round(rss["mean"] * ranks, 1),
        "load_1min_before": load_before,
        "load_1min_after": load_1min(),
    }


def run_neuron(args: argparse.Namespace, ranks: int, outdir: Path) -> dict:
    outdir.mkdir(parents=True, exist_ok=True)
    output = outdir / "neuron.json"
    command = [
        "mpiexec", "-n", str(ranks), "--oversubscribe", str(args.neuron_python),
        str(NEURON_SCRIPT), "--cells", str(args.cells), "--indegree", str(args.indegree),
        "--indegree-spread", str(args.indegree_spread), "--tstop-ms", str(args.tstop_ms),
        "--queue", args.neuron_queue, "--output", str(output),
    ]  # fmt: skip
    print(f"np={ranks}: {' '.join(command)}", file=sys.stderr, flush=True)
    load_before = load_1min()
    started = time.perf_counter()
    done = subprocess.run(
        command, capture_output=True, text=True, check=False, env=mpi_environment()
    )
    wall = time.perf_counter() - started
    if done.returncode != 0 or not output.exists():
        sys.exit(f"bench: {' '.join(command)} failed ({done.returncode}):\n{done.stderr}")
    report = json.loads(output.read_text(encoding="utf-8"))
    peaks = report["peak_rss_mb_per_rank"]
    return {
        "simulator": "neuron",
        "version": report["neuron_version"],
        "ranks": ranks,
        "queue": report["queue"],
        "connections": report["connections"],
        "setup_s": report["time_s"]["setup"],
        "init_s": report["time_s"]["init"],
        "simulate_s": report["time_s"]["simulate"],
        "command_wall_s": round(wall, 2),
        "spikes": report["spikes"],
        "peak_rss_mb_per_rank": peaks,
        "peak_rss_mb_max": max(peaks),
        "peak_rss_mb_total": round(sum(peaks), 1),
        "load_1min_before": load_before,
        "load_1min_after": load_1min(),
    }


def median(runs: list[dict], key: str) -> float:
    return float(statistics.median(run[key] for run in runs))


def comparison(runs: list[dict], ranks: int) -> dict:
    """The medians of both simulators at ``ranks`` and their ratios."""
    sides = {
        name: [run for run in runs if run["simulator"] == name and run["ranks"] == ranks]
        for name in ("spikex", "neuron")
    }
    keys = ("setup_s", "simulate_s", "peak_rss_mb_max", "peak_rss_mb_total", "spikes")
    medians = {name: {key: median(side, key) for key in keys} for name, side in sides.items()}
    time_ratio = medians["neuron"]["simulate_s"] / medians["spikex"]["simulate_s"]
    memory_ratio = medians["neuron"]["peak_rss_mb_total"] / medians["spikex"]["peak_rss_mb_total"]
    spike_difference = medians["neuron"]["spikes"] / medians["spikex"]["spikes"] - 1.0
    phases = {key: median(sides["spikex"], key) for key in ("compute_s", "wait_s", "exchange_s")}
    return {
        "ranks": ranks,
        "median": medians,
        "spikex_phases_median_s": phases,
        "best_simulate_s": {name: min(r["simulate_s"] for r in side) for name, side in sides.items()},
        "time_ratio": round(time_ratio, 2),
        "setup_ratio": round(medians["neuron"]["setup_s"] / medians["spikex"]["setup_s"], 2),
        "memory_ratio_total": round(memory_ratio, 2),
        "memory_ratio_per_rank_max": round(
            medians["neuron"]["peak_rss_mb_max"] / medians["spikex"]["peak_rss_mb_max"], 2
        ),
        "spike_count_difference": round(spike_difference, 4),
        "spike_counts_comparable": abs(spike_difference) <= SPIKE_TOLERANCE,
        "time_goal_met": time_ratio >= GOAL_TIME_RATIO,
        "memory_goal_met": memory_ratio >= GOAL_MEMORY_RATIO,
    }


def _number(value: float, digits: int = 2) -> str:
    return f"{value:,.{digits}f}"


def report(result: dict) -> str:
    """docs/validation/hines_vs_neuron.md from the result JSON."""
    parameters = result["parameters"]
    machine = result["machine"]
    lines = [
        "# The Hines 2011 benchmark: spikex against NEURON",
        "",
        "<!-- generated by bench/neuron/hines_vs_neuron.py from bench/results/hines_vs_neuron.json;"
        " do not edit -->",
        "",
        "The artificial-cell benchmark of Hines, Kumar & Schürmann (2011): "
        f"{parameters['cells']:,} `interval_fire` / `IntervalFire` cells with "
        f"{parameters['indegree']:,} ± {parameters['indegree_spread'] // 2} inputs each "
        f"(weights 0, delay 1 ms), dt 0.025 ms, {parameters['tstop_ms']:g} ms, cells round "
        "robin over the ranks. spikex runs `examples/hines2011_demo.toml` (Allgather "
        f"exchange, 10 slots); NEURON {result['neuron_version']} runs "
        "`bench/neuron/hines_neuron.py` (ParallelContext, `pc.gid_connect`, `pc.psolve`, "
        f"its default spike exchange, event queue: {parameters['neuron_queue']}) with our "
        "`bench/neuron/mod/IntervalFire.mod`, under "
        "`mpiexec -n P`. Goal (issue 56): spikex ≥ "
        f"{GOAL_TIME_RATIO:g}× faster in simulate time and ≥ {GOAL_MEMORY_RATIO:g}× less "
        "peak memory, at P = 1 and P = 2.",
        "",
        f"Measured {result['date_utc']} UTC on `{result['host']}` ({machine['cpu']}, "
        f"{machine['cpus']} cores, shared with other work: see the load), spikex "
        f"{result['spikex_version']}, {parameters['repeat']} runs of each simulator at each P, "
        "alternating; medians.",
        "",
        "| P | spikex simulate s | NEURON simulate s | time ratio | spikex peak RSS MB "
        "(total) | NEURON peak RSS MB (total) | memory ratio | goal met (time / memory) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for entry in result["comparisons"]:
        s, n = entry["median"]["spikex"], entry["median"]["neuron"]
        lines.append(
            f"| {entry['ranks']} | {_number(s['simulate_s'], 3)} | {_number(n['simulate_s'])} "
            f"| {_number(entry['time_ratio'], 1)}× | {_number(s['peak_rss_mb_total'], 0)} "
            f"| {_number(n['peak_rss_mb_total'], 0)} | {_number(entry['memory_ratio_total'], 1)}× "
            f"| {'met' if entry['time_goal_met'] else 'not met'} / "
            f"{'met' if entry['memory_goal_met'] else 'not met'} |"
        )
    lines += [
        "",
        "Set-up (spikex: build; NEURON: creating the cells and `pc.gid_connect` for every "
        "connection from Python) and spike counts:",
        "",
        "| P | spikex build s | NEURON setup s | spikex spikes | NEURON spikes | difference |",
        "|---|---|---|---|---|---|",
    ]
    for entry in result["comparisons"]:
        s, n = entry["median"]["spikex"], entry["median"]["neuron"]
        lines.append(
            f"| {entry['ranks']} | {_number(s['setup_s'])} | {_number(n['setup_s'], 1)} "
            f"| {int(s['spikes']):,} | {int(n['spikes']):,} "
            f"| {100 * entry['spike_count_difference']:+.2f} % |"
        )
    lines += [
        "",
        "Where spikex's simulate time goes (medians over its runs; maximum over ranks of "
        "each phase: computing = stepping the cells and delivering the inputs, wait = "
        "waiting for the other ranks, exchange = the Allgather):",
        "",
        "| P | simulate s | computing s | wait s | exchange s |",
        "|---|---|---|---|---|",
    ]
    for entry in result["comparisons"]:
        phases = entry["spikex_phases_median_s"]
        lines.append(
            f"| {entry['ranks']} | {_number(entry['median']['spikex']['simulate_s'], 3)} "
            f"| {_number(phases['compute_s'], 3)} | {_number(phases['wait_s'], 3)} "
            f"| {_number(phases['exchange_s'], 3)} |"
        )
    loads = [run["load_1min_before"] for run in result["runs"]]
    if max(loads) >= machine["cpus"]:  # more runnable work than cores: say what it costs
        load_text = (
            f"**Load.** The 1-minute load average was {min(loads)} to {max(loads)} before the "
            f"runs, on {machine['cpus']} cores: the machine was shared, so every run got less "
            "than the cores it asked for, P = 2 runs most of all (two busy ranks among other "
            "processes; their collective exchange waits whenever one rank is descheduled). The "
            "runs alternate so that both simulators see similar conditions, but the load does "
            "not cost both the same: spikex's short runs with 200 collective exchanges lose "
            "more to a descheduled rank (its wait and exchange above) than NEURON's long, "
            "compute-bound ones. Times and ratios are those of this loaded machine, not of "
            "idle cores."
        )
    else:
        load_text = (
            f"**Load.** The 1-minute load average was {min(loads)} to {max(loads)} before the "
            f"runs, on {machine['cpus']} cores (below the number of cores; the average still "
            "counts the previous run's last seconds). The runs alternate so that both "
            "simulators see similar conditions."
        )
    lines += [
        "",
        load_text,
        "",
        "Every run (load = 1-minute load average before → after the run):",
        "",
        "| simulator | P | setup s | simulate s | peak RSS MB per rank (max) | total MB "
        "| spikes | load |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for run in result["runs"]:
        lines.append(
            f"| {run['simulator']} | {run['ranks']} | {_number(run['setup_s'])} "
            f"| {_number(run['simulate_s'], 3)} | {_number(run['peak_rss_mb_max'], 0)} "
            f"| {_number(run['peak_rss_mb_total'], 0)} | {run['spikes']:,} "
            f"| {run['load_1min_before']} → {run['load_1min_after']} |"
        )
    lines += [
        "",
        "**Same network, different draws.** Both sides draw the same statistics but not the "
        "same numbers: spikex draws each cell's inputs and intervals from its Philox streams "
        "(seed, gid, purpose); `hines_neuron.py` draws each cell's input count and distinct "
        "sources with numpy's PCG64 seeded with (seed, gid), and IntervalFire draws its "
        "intervals from NEURON's Random123 stream (seed, gid, 0) in the mod file. With all "
        "weights 0 the spike count depends only on the intervals, so the counts agree to "
        "within sampling noise, not exactly; both are independent of P.",
        "",
        "**NEURON's configuration.** Default fixed step (`h.dt` = 0.025 ms, "
        "`pc.set_maxstep(10)`, so the 1 ms delays are the exchange interval) and default "
        "event queue; NEURON's fixed-step bin queue (`cvode.queue_mode(1, 0)`, "
        "`hines_neuron.py --queue bin`) gave the same spike count and was not faster in a "
        "check at P = 1. Connections are made from Python, one `pc.gid_connect` per "
        "connection, which is NEURON's set-up time above.",
        "",
        "**Memory.** Peak RSS (getrusage `ru_maxrss`) of every rank, the Python interpreter "
        "and each simulator's libraries included; the total is the sum over ranks. NEURON "
        "keeps one NetCon object per connection (and a Python reference to it); spikex keeps "
        "its compact connection tables.",
        "",
        "Regenerate: `make bench-neuron` (sets up `bench/neuron/.venv` with "
        "`scripts/setup_neuron.sh`, then runs `bench/neuron/hines_vs_neuron.py`); the page "
        "alone: `python bench/neuron/hines_vs_neuron.py --report-only`.",
        "",
    ]
    return "\n".join(lines)


def write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def main() -> int:
    args = parse_arguments()
    if args.report_only:
        result = json.loads(args.output.read_text(encoding="utf-8"))
        write_atomically(args.page, report(result))
        print(f"wrote {args.page}", file=sys.stderr)
        return 0
    if not args.neuron_python.exists():
        sys.exit(f"bench: {args.neuron_python} missing: bash scripts/setup_neuron.sh first")
    from spikex_runs import machine

    ranks_list = [int(part) for part in args.np_list.split(",") if part.strip()]
    load_start = load_1min()
    started = time.perf_counter()
    runs = []
    with tempfile.TemporaryDirectory(prefix="spikex-neuron-") as scratch:
        for repeat in range(args.repeat):
            for ranks in ranks_list:
                for name, runner in (("spikex", run_spikex), ("neuron", run_neuron)):
                    run = runner(args, ranks, Path(scratch) / f"{name}-np{ranks}-{repeat}")
                    run["repeat"] = repeat
                    runs.append(run)
                    print(
                        f"{name} np={ranks}: setup {run['setup_s']:.2f} s, simulate "
                        f"{run['simulate_s']:.3f} s, peak {run['peak_rss_mb_total']:.0f} MB, "
                        f"{run['spikes']} spikes, load {run['load_1min_before']}",
                        file=sys.stderr,
                        flush=True,
                    )
    comparisons = [comparison(runs, ranks) for ranks in ranks_list]
    hashes = {run["spikes_sha256"] for run in runs if run["simulator"] == "spikex"}
    result = {
        "question": QUESTION,
        "date_utc": datetime.now(UTC).strftime("%Y-%m-%d %H:%M"),
        "host": socket.gethostname(),
        "machine": {**machine(), "load_1min_start": load_start, "load_1min_end": load_1min()},
        "seconds": round(time.perf_counter() - started, 1),
        "spikex_version": next(r["version"] for r in runs if r["simulator"] == "spikex"),
        "neuron_version": next(r["version"] for r in runs if r["simulator"] == "neuron"),
        "parameters": {
            "cells": args.cells,
            "indegree": args.indegree,
            "indegree_spread": args.indegree_spread,
            "tstop_ms": args.tstop_ms,
            "dt_ms": 0.025,
            "delay_ms": 1.0,
            "weight": 0.0,
            "repeat": args.repeat,
            "neuron_queue": args.neuron_queue,
            "python": platform.python_version(),
        },
        "goal": {"time_ratio": GOAL_TIME_RATIO, "memory_ratio": GOAL_MEMORY_RATIO},
        "comparisons": comparisons,
        "spikex_spikes_sha256_agree": len(hashes) == 1,
        "runs": runs,
    }
    write_atomically(args.output, json.dumps(result, indent=2) + "\n")
    write_atomically(args.page, report(result))
    for entry in comparisons:
        print(
            f"P={entry['ranks']}: {entry['time_ratio']}x faster, "
            f"{entry['memory_ratio_total']}x less memory, spikes "
            f"{100 * entry['spike_count_difference']:+.2f} %",
            file=sys.stderr,
        )
    print(f"wrote {args.output} and {args.page}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
