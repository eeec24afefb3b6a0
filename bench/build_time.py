"""How long does building the hpc_benchmark's connection table take, per synapse?

Runs ``spikex run examples/hpc_benchmark.toml`` (scale 1, K = 11,250: 126.6 M synapses,
fixed_indegree, constant weights) on one rank with 1 and 2 threads, 1 ms simulated, each
``--repeats`` times, and reads ``time_s.build``, ``synapses``, ``peak_rss_mb`` and
``spikes_sha256`` from its summary.json; also the CPU seconds of the whole run (user +
system, the interpreter's start included), which a shared host disturbs less than the
wall clock. Writes the runs under ``--label`` into ``bench/results/build_time.json``,
keeping the other labels, with the load average before and after each run.

``--base LABEL[=DIR]`` also runs another spikex under LABEL, alternating with the runs of
the spikex on PYTHONPATH so that both see the same load: the one in DIR (a ``python``
directory with its own ``_core``, e.g. a build of the commit before a change, built the
same way), else the one installed in this Python's environment (PYTHONPATH unset)::

    python bench/build_time.py --label after [--base before[=DIR]] [--repeats 3] [--threads 1 2]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from spikex_runs import machine, spikex_run

REPO = HERE.parent
RESULT = REPO / "bench" / "results" / "build_time.json"
CONFIG = REPO / "examples" / "hpc_benchmark.toml"


def commit() -> str:
    done = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    )
    return done.stdout.strip()


def code(path: str | None) -> str:
    """Which spikex a label ran: the installed one, this checkout's, or another directory."""
    if path is None:
        return "installed spikex (PYTHONPATH unset)"
    if Path(path) == REPO / "python":
        return f"this checkout, commit {commit()}"
    return f"spikex from {path}"


def one_run(t: int, tmp: str) -> dict:
    load_before = os.getloadavg()[0]
    overrides = ["simulation.tstop_ms=1", "simulation.presim_ms=0", f"simulation.threads={t}"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    summary = spikex_run(CONFIG, 1, Path(tmp) / "out", overrides)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    build = float(summary["time_s"]["build"])
    synapses = int(summary["synapses"])
    return {
        "threads": t,
        "build_s": round(build, 3),
        "ns_per_synapse": round(build * 1e9 / synapses, 2),
        "run_cpu_s": round(cpu, 2),
        "synapses": synapses,
        "peak_rss_mb": float(summary["peak_rss_mb"]["max"]),
        "spikes_sha256": summary["spikes_sha256"],
        "load_1min_before": round(load_before, 2),
        "load_1min_after": round(os.getloadavg()[0], 2),
    }


def measure(threads: list[int], repeats: int, labels: dict[str, str | None]) -> dict[str, list[dict]]:
    """Runs per label; labels map to the PYTHONPATH to run with (None: unset)."""
    rows: dict[str, list[dict]] = {label: [] for label in labels}
    with tempfile.TemporaryDirectory() as tmp:
        for t in threads:
            for _ in range(repeats):
                for label, path in labels.items():
                    if path is None:
                        os.environ.pop("PYTHONPATH", None)
                    else:
                        os.environ["PYTHONPATH"] = path
                    rows[label].append(one_run(t, tmp))
                    print(label, json.dumps(rows[label][-1]), file=sys.stderr, flush=True)
    return rows


def summarize(rows: list[dict]) -> dict:
    out = {}
    for t in sorted({r["threads"] for r in rows}):
        mine = [r for r in rows if r["threads"] == t]
        builds = [r["build_s"] for r in mine]
        out[str(t)] = {
            "build_s_median": round(statistics.median(builds), 3),
            "build_s_min": min(builds),
            "ns_per_synapse_median": round(statistics.median(r["ns_per_synapse"] for r in mine), 2),
            "run_cpu_s_median": round(statistics.median(r["run_cpu_s"] for r in mine), 2),
            "peak_rss_mb_max": max(r["peak_rss_mb"] for r in mine),
            "spikes_sha256": sorted({r["spikes_sha256"] for r in mine}),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", required=True, help="name of this set of runs (before, after, ...)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--base", help="LABEL[=DIR]: runs of another spikex, alternating with these")
    args = parser.parse_args()
    labels: dict[str, str | None] = {args.label: os.environ.get("PYTHONPATH")}
    if args.base:
        base, _, directory = args.base.partition("=")
        labels[base] = str(Path(directory).resolve()) if directory else None
    runs = measure(args.threads, args.repeats, labels)
    result = json.loads(RESULT.read_text(encoding="utf-8")) if RESULT.exists() else {}
    result["question"] = __doc__.splitlines()[0]
    result["config"] = "examples/hpc_benchmark.toml, simulation.tstop_ms=1, presim_ms=0, 1 rank"
    for label, rows in runs.items():
        result.setdefault("runs", {})[label] = {
            "date_utc": datetime.now(UTC).strftime("%Y-%m-%d %H:%M"),
            "code": code(labels[label]),
            "machine": machine(),
            "summary": summarize(rows),
            "rows": rows,
        }
        print(label, json.dumps(result["runs"][label]["summary"], indent=2))
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    RESULT.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
