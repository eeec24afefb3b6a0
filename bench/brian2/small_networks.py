"""Small and medium networks on one machine: spikex against Brian2's C++ standalone (issue 60).

The issue's Brunel network (5,000 IF_curr_exp cells, 2.5 M synapses, 1,100 Hz Poisson
drive per cell, 1 s at dt = 0.1 ms), its 20,000-cell version (same in-degree) and the
Vogels-Abbott CUBA benchmark (networks.py), each on

* spikex's Python API and spikex.pynn (run_spikex.py), at 1 and 2 threads and with
  ``threads`` not given (spikex's own choice),
* Brian2 2.11's C++ standalone device (run_brian2.py, in bench/brian2/.venv from
  scripts/setup_brian2.sh), without OpenMP and with 2 OpenMP threads,

every run its own process, the configurations interleaved round by round so that a change
of load hits them all alike. Writes bench/results/small_networks.json and the page
docs/validation/small_networks.md (host, load, best and median loop per configuration,
the checks: spikex's best loop <= 0.8 x Brian2's best, 2 threads never slower than 1, the
same spikes for every thread count) and README.md's small_networks block::

    python bench/brian2/small_networks.py [--repeat 3] [--only brunel5k,cuba] [--no-brian2]
    python bench/brian2/small_networks.py --page-only   # the page from the JSON
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE.parent))
from spikex_runs import machine  # noqa: E402

RESULT = REPO / "bench" / "results" / "small_networks.json"
PAGE = REPO / "docs" / "validation" / "small_networks.md"
BRIAN2_PYTHON = HERE / ".venv" / "bin" / "python"
NETWORK_ORDER = ("brunel5k", "brunel20k", "cuba")


def configurations(networks, brian2: bool, frontends) -> list[dict]:
    runs = []
    for network in networks:
        for frontend in frontends:
            for threads in (1, 2, None):
                runs.append({"network": network, "simulator": "spikex", "frontend": frontend, "threads": threads})
        if brian2:
            for threads in (0, 2):
                runs.append({"network": network, "simulator": "brian2", "frontend": "cpp_standalone",
                             "threads": threads})  # fmt: skip
    return runs


def command(run: dict) -> list[str]:
    if run["simulator"] == "brian2":
        return [str(BRIAN2_PYTHON), str(HERE / "run_brian2.py"), run["network"], "--threads", str(run["threads"])]
    cmd = [sys.executable, str(HERE / "run_spikex.py"), run["network"], "--frontend", run["frontend"]]
    if run["threads"] is not None:
        cmd += ["--threads", str(run["threads"])]
    return cmd


def key(run: dict) -> str:
    threads = "auto" if run["threads"] is None else run["threads"]
    return f"{run['network']}/{run['simulator']}/{run['frontend']}/{threads}"


def one(run: dict) -> dict:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    load = os.getloadavg()[0]
    done = subprocess.run(command(run), capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        sys.exit(f"small_networks: {' '.join(command(run))} failed:\n{done.stderr[-3000:]}")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    out["load_1min"] = round(load, 2)
    return out


def summarise(rows: dict[str, list[dict]]) -> list[dict]:
    table = []
    for k, runs in rows.items():
        loops = [r["loop_s"] for r in runs]
        first = runs[0]
        table.append({
            "key": k, "network": first["network"], "simulator": first["simulator"],
            "frontend": first["frontend"], "threads_asked": first["threads_asked"],
            "threads": first["threads"], "best_loop_s": min(loops),
            "median_loop_s": statistics.median(loops), "loops_s": loops,
            "load_1min": [r["load_1min"] for r in runs], "rates_hz": first["rates_hz"],
            "spikes_sha256": sorted({r.get("spikes_sha256", "") for r in runs}),
            "connections": first["connections"],
            "script_s": statistics.median(r.get("script_s", r.get("build_and_run_s", 0.0)) for r in runs),
            "pynn_run_s": statistics.median(r["pynn_run_s"] for r in runs) if "pynn_run_s" in first else None,
        })  # fmt: skip
    return table


def checks(table: list[dict]) -> list[dict]:
    out = []
    for network in NETWORK_ORDER:
        rows = [r for r in table if r["network"] == network]
        if not rows:
            continue
        brian = [r["best_loop_s"] for r in rows if r["simulator"] == "brian2"]
        for frontend in ("api", "pynn"):
            sx = {r["threads_asked"]: r for r in rows if r["simulator"] == "spikex" and r["frontend"] == frontend}
            if not sx:
                continue
            best = min(r["best_loop_s"] for r in sx.values())
            shas = {s for r in sx.values() for s in r["spikes_sha256"]}
            entry = {"network": network, "frontend": frontend, "same_spikes_any_threads": len(shas) == 1}
            if 1 in sx and 2 in sx:
                entry["two_over_one"] = round(sx[2]["best_loop_s"] / sx[1]["best_loop_s"], 3)
                entry["two_never_slower"] = sx[2]["best_loop_s"] <= sx[1]["best_loop_s"] * 1.02
            if None in sx:
                entry["auto_threads"] = sx[None]["threads"]
            if brian:
                entry["spikex_over_brian2"] = round(best / min(brian), 3)
                entry["within_0_8_of_brian2"] = best <= 0.8 * min(brian)
            out.append(entry)
    return out


def write_page(result: dict) -> None:
    m = result["machine"]
    lines = [
        "# Small and medium networks: spikex and Brian2's C++ standalone",
        "",
        "Generated by `bench/brian2/small_networks.py` (`make bench-brian2`) from",
        "`bench/results/small_networks.json`; do not edit by hand. Issue 60.",
        "",
        f"Host: {m['cpu']}, {m['cpus']} CPUs, {m['platform']}; run {result['date_utc']} UTC,",
        f"1-minute load {m['load_average_start'][0]} at the start, {m['load_average'][0]} at the end"
        " (each run's load is in the JSON). Every run is its own process; configurations",
        f"interleaved round by round, {result['settings']['repeat']} rounds.",
        "",
        "Networks (`bench/brian2/networks.py`): **brunel5k** the issue's Brunel network (5,000",
        "IF_curr_exp cells, p = 0.1, 2.5 M synapses, delays uniform in 0.5-2 ms, an independent",
        "1,100 Hz Poisson drive per cell, dt = 0.1 ms, 1 s); **brunel20k** the same with 20,000",
        "cells and the same in-degree (10 M synapses); **cuba** Vogels & Abbott's CUBA as in",
        "Brian2's example (4,000 cells, p = 0.02, 1 s). Loop: spikex's `time_s.simulate`,",
        "Brian2's `device._last_run_time` (neither includes building the network). Script: the",
        "whole run of `run_spikex.py` / `run_brian2.py` after the interpreter's start (imports,",
        "building, the run, gathering; Brian2's includes its code generation and compilation),",
        "median; for spikex.pynn also PyNN's `run()` (building the engine's tables and the loop).",
        "Where a step's time goes: [](../dev/step_cost.md).",
        "",
        "| network | simulator | front end | threads | best loop (s) | median (s) | script (s) | pynn `run()` (s) |"
        " rates E / I (Hz) | same spikes |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in result["table"]:
        asked = r["threads_asked"]
        if r["simulator"] == "brian2":
            threads = "1 (no OpenMP)" if asked == 0 else f"{asked} (OpenMP)"
        else:
            threads = f"not given: {r['threads']}" if asked is None else str(asked)
        rates = r["rates_hz"]
        rate = " / ".join(f"{rates[k]:.1f}" for k in ("E", "I") if k in rates)
        same = "" if r["simulator"] == "brian2" else ("yes" if len(r["spikes_sha256"]) == 1 else "NO")
        run_s = "" if r.get("pynn_run_s") is None else f"{r['pynn_run_s']:.2f}"
        lines.append(
            f"| {r['network']} | {r['simulator']} | {r['frontend']} | {threads} | {r['best_loop_s']:.3f} |"
            f" {r['median_loop_s']:.3f} | {r.get('script_s', 0.0):.2f} | {run_s} | {rate} | {same} |"
        )
    lines += ["", "Checks (best loops):", "", "| network | front end | 2 / 1 threads | spikex / Brian2 best | "
              "same spikes for 1, 2, auto threads | threads when not given |", "|---|---|---|---|---|---|"]
    for c in result["checks"]:
        lines.append(
            f"| {c['network']} | {c['frontend']} | {c.get('two_over_one', '')} | {c.get('spikex_over_brian2', '')} |"
            f" {'yes' if c['same_spikes_any_threads'] else 'NO'} | {c.get('auto_threads', '')} |"
        )
    slower = [c for c in result["checks"] if c.get("two_never_slower") is False]
    if slower:
        names = ", ".join(f"{c['network']} ({c['frontend']}, {c['two_over_one']})" for c in slower)
        lines += [
            "",
            f"**2 threads slower than 1** (by more than 2 %): {names}. Where the team has been",
            "slower the engine runs both threads' parts on one thread (`engine::thread_pace`,",
            "docs/dev/architecture.md), which costs a few per cent more than one part, plus its",
            "tries of the team; `bench/results/thread_rule.json` shows from which size a second",
            "thread pays.",
        ]
    loads = [x for r in result["table"] for x in r["load_1min"]]
    cores = m.get("cores_available", m["cpus"])
    if loads and max(loads) > 0.75 * cores:
        lines += [
            "",
            f"**These runs saw a 1-minute load of {min(loads)}-{max(loads)} on {cores} cores**: other",
            "processes held the cores, so the figures measure contention, not the simulators. Threads",
            "that hand work over every sub-interval wait for their cores then (spikex's 2 threads, and",
            "Brian2's OpenMP ones far more), which is why spikex chooses 1 thread on a busy host when",
            "`threads` is not given, and runs the parts on one thread whenever that has been faster",
            "(`engine::thread_pace`). The issue's checks need a run on an idle host.",
        ]
    lines.append("")
    PAGE.write_text("\n".join(lines), encoding="utf-8")


def readme_block(result: dict) -> str:
    """The README's line against Brian2: each network's best spikex loop (Python API, 1 or 2
    threads) over Brian2's best, from the page's JSON."""
    names = {"brunel5k": "Brunel 5,000 cells", "brunel20k": "20,000 cells", "cuba": "VA CUBA"}
    parts = []
    for network in NETWORK_ORDER:
        rows = [r for r in result["table"] if r["network"] == network]
        mine = [r["best_loop_s"] for r in rows if r["simulator"] == "spikex" and r["frontend"] == "api"]
        brian = [r["best_loop_s"] for r in rows if r["simulator"] == "brian2"]
        if mine and brian:
            parts.append(f"{names[network]} {min(mine) / min(brian):.2f}")
    return (
        f"Against Brian2 2.11's C++ standalone ({result['date_utc']} UTC, `make bench-brian2`, "
        "[small networks](docs/validation/small_networks.md)), spikex's loop takes of Brian2's time: "
        + ", ".join(parts) + "."
    )


def write_readme(result: dict) -> None:
    sys.path.insert(0, str(REPO / "bench"))
    import readme_numbers

    readme_numbers.write_block(readme_block(result), "small_networks")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default=",".join(NETWORK_ORDER))
    parser.add_argument("--frontends", default="api,pynn")
    parser.add_argument("--no-brian2", action="store_true")
    parser.add_argument("--page-only", action="store_true")
    args = parser.parse_args()
    if args.page_only:
        result = json.loads(RESULT.read_text())
        write_page(result)
        write_readme(result)
        return 0
    networks = [n for n in NETWORK_ORDER if n in args.only.split(",")]
    brian2 = not args.no_brian2
    if brian2 and not BRIAN2_PYTHON.exists():
        sys.exit("small_networks: no Brian2 venv: run scripts/setup_brian2.sh (or pass --no-brian2)")
    runs = configurations(networks, brian2, args.frontends.split(","))
    load_start = [round(v, 2) for v in os.getloadavg()]
    started = time.perf_counter()
    if brian2:  # compile every Brian2 project once, untimed
        for run in runs:
            if run["simulator"] == "brian2":
                one(run)
    rows: dict[str, list[dict]] = {}
    for round_ in range(args.repeat):
        for run in runs:
            out = one(run)
            rows.setdefault(key(run), []).append(out)
            print(f"round {round_ + 1} {key(run):40s} loop {out['loop_s']:.3f} s load {out['load_1min']}",
                  file=sys.stderr, flush=True)  # fmt: skip
    table = summarise(rows)
    result = {
        "question": "issue 60: spikex's loop against Brian2 C++ standalone's, 1 and 2 threads, small networks",
        "date_utc": datetime.now(UTC).strftime("%Y-%m-%d %H:%M"),
        "machine": {**machine(), "load_average_start": load_start, "cores_available": len(os.sched_getaffinity(0))},
        "seconds": round(time.perf_counter() - started, 1),
        "settings": {"repeat": args.repeat, "networks": networks, "frontends": args.frontends.split(",")},
        "table": table,
        "checks": checks(table),
        "runs": rows,
    }
    previous = json.loads(RESULT.read_text()) if RESULT.exists() and args.only != ",".join(NETWORK_ORDER) else None
    if previous:  # a partial run keeps the other networks' rows
        keep = [r for r in previous["table"] if r["network"] not in networks]
        result["table"] = keep + table
        result["checks"] = checks(result["table"])
        result["runs"] = {**{k: v for k, v in previous["runs"].items() if k.split("/")[0] not in networks}, **rows}
    RESULT.write_text(json.dumps(result, indent=1) + "\n")
    write_page(result)
    write_readme(result)
    print(json.dumps(result["checks"], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
