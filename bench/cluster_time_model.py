"""Question: does the time model predict the exchange time on a real TCP network?

Brings up an emulated cluster (scripts/mini_cluster.sh: one network namespace per host,
real TCP over veths limited by a tbf qdisc to RATE in each direction), one rank per host.
For each rate:

1. fits a machine profile, profiles/netns-<rate>.toml, from the micro-benchmark only
   (bench/fit_profile.py running bench/cpp/model_parameters.cpp on 2 emulated hosts);
2. runs the network on P = 2, 3, 4 hosts with every method (``spikex run`` as the ranks
   of an mpiexec job, ``record.timeline = true``), --repeats times, interleaved;
3. measured exchange time per interval: per timeline row (interval) the slowest rank's
   ``exchange_s`` (+ ``send_s`` for the point-to-point methods, which the model charges
   to the exchange), averaged over the intervals; the median over the repeats;
4. predicted: ``spikex model dryrun CONFIG --np P --method ... --profile ...`` (mean
   exchange time per interval of the slowest rank).

Before every measurement the 1-minute load average is checked; above --max-load the
script waits (up to --max-wait seconds, within a --wait-budget for the whole run), then
measures anyway. The load before and after every measurement is in the JSON. The cluster
is taken down in a ``finally``. Writes bench/results/cluster_time_model.json and the
section "5." of docs/scaling.md (spikex.scaling.report.cluster_section).

This uses its own cluster (prefix "tm", subnet 10.232.0) so that it can run while the
test suite uses the default one. Needs root (network namespaces, tc).

Usage: python bench/cluster_time_model.py [--rates 1gbit,100mbit] [--ranks 2,3,4]
                                          [--repeats 3] [--docs]
       python bench/cluster_time_model.py --docs-only   # rewrite docs/scaling.md section 5

The findings under the table (`findings` in the results file: why the model hits or
misses) are written by hand after a run; a new run keeps the earlier ones, marked as of
the earlier run, until they are rewritten.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from spikex.io.timeline import read_timeline
from spikex.launch.launcher import child_environment
from spikex.methods import capability
from spikex.results.machine import describe_machine

ROOT = Path(__file__).resolve().parents[1]
SPIKEX = ROOT / ".venv/bin/spikex"
CLUSTER_SCRIPT = ROOT / "scripts/mini_cluster.sh"
CLUSTER_ENV = {"MINI_CLUSTER_PREFIX": "tm", "MINI_CLUSTER_NET": "10.232.0"}
STATE = Path("/run/spikex-mini-cluster-tm")
CONFIG = ROOT / "examples/hines2011_demo.toml"
# The Hines et al. artificial-cell benchmark (zero weights: firing does not depend on the
# network), smaller and faster-firing: 16,384 cells at about 167 Hz give about 2,700 spikes
# per 1 ms interval, so that the exchange moves tens of kilobytes per interval and rank —
# a few milliseconds at 100 Mbit/s, a few hundred microseconds at 1 Gbit/s — while a
# rank's computation stays short enough for 3 runs of 4 methods at 3 P to take minutes.
OVERRIDES = (
    "network.cells=16384",
    "network.indegree=100",
    "network.indegree_spread=10",
    "network.interval_fire.invl_low_ms=4.0",
    "network.interval_fire.invl_high_ms=8.0",
    "simulation.tstop_ms=100.0",
)
RUN_ONLY = ("record.timeline=true", "record.spikes=false")
METHODS = ("allgather", "alltoall", "multisend", "routed")
# Waiting ranks yield their core (OpenMPI polls otherwise): with P > 2 ranks on this
# 2-core machine a polling rank would take the core of one that computes.
YIELD = ("--mca", "mpi_yield_when_idle", "1")
MPI_EXTRA = (*YIELD, "--map-by", "node")
OUTPUT = ROOT / "bench/results/cluster_time_model.json"
DOCS = ROOT / "docs/scaling.md"
VALIDATION = ROOT / "docs/scaling/validation.json"


def parse_arguments(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rates", default="1gbit,100mbit", help="tc rates, comma-separated")
    parser.add_argument("--ranks", default="2,3,4", help="host counts P, comma-separated (<= 8)")
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--max-load", type=float, default=1.0, help="wait while the 1-minute load is above"
    )
    parser.add_argument(
        "--max-wait",
        type=float,
        default=180.0,
        help="seconds to wait for the load, per measurement",
    )
    parser.add_argument(
        "--wait-budget", type=float, default=1200.0, help="seconds of waiting for the load in all"
    )
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument(
        "--docs", type=Path, default=DOCS, help="the Markdown to rewrite (section 5)"
    )
    parser.add_argument(
        "--docs-only", action="store_true", help="only rewrite --docs from --output"
    )
    parser.add_argument("--predict-only", action="store_true",
                        help="keep the runs and fits of --output, redo the dry runs and predictions (after a "
                             "change to the time model), rewrite --output and --docs")  # fmt: skip
    return parser.parse_args(argv)


# ---- the emulated cluster ---------------------------------------------------------------


def cluster(*words: str) -> str:
    done = subprocess.run([str(CLUSTER_SCRIPT), *words], capture_output=True, text=True,
                          env={**os.environ, **CLUSTER_ENV}, stdin=subprocess.DEVNULL, check=False)  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(
            f"mini_cluster.sh {' '.join(words)} failed ({done.returncode}): {done.stderr.strip()}"
        )
    return done.stdout


def launcher_words(ranks: int) -> list[str]:
    """mpiexec options of the cluster, narrowed to its first ``ranks`` hosts, one rank each."""
    words = (STATE / "mpiexec_args").read_text().split()
    hosts = [
        line.split()[0] for line in (STATE / "hostfile").read_text().splitlines() if line.strip()
    ]
    extra = list(MPI_EXTRA)
    if "mpi_yield_when_idle" in words:  # newer mini_cluster.sh sets it itself (twice is an error)
        extra = extra[len(YIELD) :]
    return [*words, *extra, "--host", ",".join(f"{h}:1" for h in hosts[:ranks])]


def tbf_summary() -> str:
    """The qdisc of host 1's link, as tc shows it (rate, burst, latency)."""
    done = subprocess.run(
        ["tc", "-n", "tmh1", "qdisc", "show", "dev", "eth0"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip()


# ---- load ---------------------------------------------------------------------------------


class LoadGate:
    """Waits for the 1-minute load to fall below ``limit`` (per call at most ``max_wait``
    seconds, in all at most ``budget``), and says what it saw."""

    def __init__(self, limit: float, max_wait: float, budget: float):
        self.limit, self.max_wait, self.budget = limit, max_wait, budget
        self.waited = 0.0

    def wait(self) -> dict:
        start = time.monotonic()
        first = os.getloadavg()
        while os.getloadavg()[0] > self.limit:
            spent = time.monotonic() - start
            if spent >= self.max_wait or self.waited + spent >= self.budget:
                break
            time.sleep(5)
        spent = time.monotonic() - start
        self.waited += spent
        return {
            "load_at_check": _load(first),
            "waited_s": round(spent, 1),
            "load_before": _load(os.getloadavg()),
        }


def _load(values) -> list[float]:
    return [round(v, 2) for v in values]


# ---- fit, run, predict --------------------------------------------------------------------


def fit(rate: str, binary: Path, gate: LoadGate) -> dict:
    """profiles/netns-<rate>.toml from the micro-benchmark on 2 emulated hosts."""
    name = f"netns-{rate}"
    profile = ROOT / "profiles" / f"{name}.toml"
    load = gate.wait()
    with tempfile.TemporaryDirectory(prefix="spikex-fit-") as work:
        raw = Path(work) / "model_parameters.json"
        command = [
            sys.executable, str(ROOT / "bench/fit_profile.py"), "--binary", str(binary), "--ranks", "2",
            "--launcher", "mpiexec", "--launcher-args", shlex.join(launcher_words(2)),
            "--output", str(profile), "--json", str(raw), "--name", name,
            "--description", (f"2 emulated hosts (network namespaces on one 2-core machine), TCP over veths "
                              f"limited to {rate} each way by tbf"),
            "--comment", f"Emulated cluster: scripts/mini_cluster.sh up --rate {rate} --slots 1, one rank per host,",
            "--comment", f"mpiexec {' '.join(MPI_EXTRA)}; fitted by bench/cluster_time_model.py.",
        ]  # fmt: skip
        done = subprocess.run(
            command, capture_output=True, text=True, stdin=subprocess.DEVNULL, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(f"fitting {name} failed:\n{done.stderr[-3000:]}")
        values = json.loads(raw.read_text())
    load["load_after"] = _load(os.getloadavg())
    return {"profile": str(profile.relative_to(ROOT)), "micro_benchmark": values, **load}


def measure(ranks: int, method: str, outdir: Path, gate: LoadGate) -> dict:
    """One run on ``ranks`` emulated hosts; the slowest rank's exchange time per interval."""
    load = gate.wait()
    sets = [
        word
        for item in (*OVERRIDES, *RUN_ONLY, f"exchange.method={method}")
        for word in ("--set", item)
    ]
    command = ["mpiexec", *launcher_words(ranks), "-np", str(ranks), str(SPIKEX), "run", str(CONFIG), *sets,
               "-o", str(outdir), "--progress", "none"]  # fmt: skip
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          env=child_environment(os.environ), timeout=900, check=False)  # fmt: skip
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(
            f"{method} on {ranks} hosts failed ({done.returncode}):\n{done.stderr[-3000:]}"
        )
    timeline = read_timeline(outdir / "timeline.h5")
    summary = json.loads((outdir / "summary.json").read_text())
    per_rank = timeline["exchange_s"]
    point_to_point = capability(method, "point_to_point")
    if point_to_point:
        per_rank = per_rank + timeline["send_s"]
    slowest = per_rank.max(axis=0)  # per interval, the slowest rank
    return {
        "interval_mean_s": float(slowest.mean()),
        "interval_median_s": float(np.median(slowest)),
        "intervals": int(slowest.size),
        "includes_send": point_to_point,
        "rounds_per_interval": float(timeline["rounds"].max(axis=0).mean()),
        "compute_s_per_interval": float(timeline["compute_s"].max(axis=0).mean()),
        "wait_s_per_interval": float(timeline["wait_s"].max(axis=0).mean()),
        "summary_time_s": {
            k: summary["time_s"][k] for k in ("exchange", "send", "compute", "wait", "simulate")
        },
        "spikes_sha256": summary.get("spikes_sha256"),
        "run_wall_s": round(wall, 2),
        **load,
        "load_after": _load(os.getloadavg()),
    }


def predict(ranks: int, methods: list[str], profiles: list[str], work: Path) -> dict:
    """``spikex model dryrun`` of the network for P = ``ranks`` with every profile."""
    output = work / f"dryrun-np{ranks}.json"
    sets = [word for item in OVERRIDES for word in ("--set", item)]
    profile_args = [word for p in profiles for word in ("--profile", str(ROOT / p))]
    command = [str(SPIKEX), "model", "dryrun", str(CONFIG), "--np", str(ranks), "--method", ",".join(methods),
               *sets, *profile_args, "-o", str(output)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          env=child_environment(os.environ), check=False)  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"dry run for P = {ranks} failed:\n{done.stderr[-3000:]}")
    result = json.loads(output.read_text())
    out = {
        "spikes": result["spike_train"]["spikes"],
        "command": shlex.join(command[1:]).replace(str(ROOT) + "/", ""),
    }
    out["methods"] = {}
    for label, method in result["methods"].items():
        rows = method["rows"]["max"]

        def mean(name: str, rows=rows) -> float:
            values = rows.get(name)
            return float(np.mean(values)) if values else 0.0

        out["methods"][label] = {
            "predicted_s": {
                name: p["methods"][label]["interval_mean_s"]
                for name, p in result["predictions"].items()
            },
            # per interval, the largest rank's counts (mean over intervals)
            "messages_sent": mean("messages_sent"),
            "bytes_sent": mean("bytes_sent"),
            "bytes_received": mean("bytes_received"),
            "rounds": mean("rounds"),
        }
    return out


def run(args: argparse.Namespace) -> dict:
    rates = args.rates.split(",")
    ranks_list = [int(p) for p in args.ranks.split(",")]
    methods = args.methods.split(",")
    binary = ROOT / "build/bench/cpp/bench_model_parameters"
    if not binary.is_file():
        sys.exit(f"cluster_time_model: {binary} not found: build it with `make bench-cpp`")
    gate = LoadGate(args.max_load, args.max_wait, args.wait_budget)
    machine = describe_machine(ROOT)
    data = {
        "question": "does the time model predict the exchange time per interval on a real TCP network?",
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{machine.cpu}, {machine.cores} cores, {machine.mpi}",
        "cores": machine.cores,
        "load_average_start": _load(os.getloadavg()),
        "config": str(CONFIG.relative_to(ROOT)),
        "overrides": list(OVERRIDES),
        "mpiexec_extra": list(MPI_EXTRA),
        "methods": methods,
        "ranks": ranks_list,
        "rates": rates,
        "repeats": args.repeats,
        "max_load": args.max_load,
        "measured": "per interval the slowest rank's exchange_s (+ send_s for point-to-point methods) from "
        "timeline.h5, mean over the intervals of a run; median over the repeats",
        "fits": {},
        "runs": {},
    }
    with tempfile.TemporaryDirectory(prefix="spikex-cluster-") as work:
        work = Path(work)
        for rate in rates:
            cluster("up", str(max(ranks_list)), "--rate", rate, "--slots", "1")
            try:
                data.setdefault("tbf", {})[rate] = tbf_summary()
                data["fits"][rate] = fit(rate, binary, gate)
                print(
                    f"cluster_time_model: fitted {data['fits'][rate]['profile']}",
                    file=sys.stderr,
                    flush=True,
                )
                for ranks in ranks_list:
                    for repeat in range(args.repeats):
                        for method in methods:
                            outdir = work / f"{rate}-np{ranks}-{method}-{repeat}"
                            row = measure(ranks, method, outdir, gate)
                            data["runs"].setdefault(rate, {}).setdefault(str(ranks), {}).setdefault(
                                method, []
                            ).append(row)
                            print(f"cluster_time_model: {rate} P={ranks} {method} #{repeat}: "
                                  f"{row['interval_mean_s'] * 1e6:.0f} us/interval, load {row['load_before']}",
                                  file=sys.stderr, flush=True)  # fmt: skip
            finally:
                cluster("down")
        profiles = [data["fits"][rate]["profile"] for rate in rates]
        data["dryrun"] = {str(p): predict(p, methods, profiles, work) for p in ranks_list}
    data["load_average_end"] = _load(os.getloadavg())
    data["load_waited_s"] = round(gate.waited, 1)
    data["table"] = table_rows(data)
    return data


def table_rows(data: dict) -> list[dict]:
    """One row per (rate, P, method): measured (median over repeats), predicted, ratio."""
    rows = []
    for rate in data["rates"]:
        name = f"netns-{rate}"
        for ranks in data["ranks"]:
            for method in data["methods"]:
                runs = data["runs"][rate][str(ranks)][method]
                measured = statistics.median(r["interval_mean_s"] for r in runs)
                dry = data["dryrun"][str(ranks)]["methods"][method]
                predicted = dry["predicted_s"][name]
                rows.append({
                    "rate": rate, "ranks": ranks, "method": method,
                    "measured_s": measured,
                    "measured_range_s": [min(r["interval_mean_s"] for r in runs), max(r["interval_mean_s"] for r in runs)],
                    "predicted_s": predicted,
                    "ratio": predicted / measured if measured else None,
                    "bytes_received": dry["bytes_received"], "bytes_sent": dry["bytes_sent"],
                    "messages_sent": dry["messages_sent"],
                    "rounds_predicted": dry["rounds"],
                    "rounds_measured": statistics.median(r["rounds_per_interval"] for r in runs),
                    "load_before": [r["load_before"][0] for r in runs],
                    "load_after": [r["load_after"][0] for r in runs],
                })  # fmt: skip
    return rows


EARLIER_FINDINGS = "*The analysis below is of the run of {date}, not of this one: re-read it against the table above and rewrite `findings` in the results file.*"  # fmt: skip


def keep_earlier_findings(earlier: dict, data: dict) -> bool:
    """The findings (why the model hits or misses) are written by hand into the results
    file after a run. A new run keeps the earlier run's, marked as such (once), rather than
    dropping them; True when it did."""
    findings = earlier.get("findings")
    if not findings:
        return False
    marked = findings[0].startswith(EARLIER_FINDINGS.split("{", 1)[0])
    data["findings"] = findings if marked else [EARLIER_FINDINGS.format(date=earlier.get("date")), "", *findings]
    return True


def write_docs(docs: Path, data: dict) -> None:
    """Rewrite docs/scaling.md from docs/scaling/validation.json and ``data``."""
    from spikex.scaling.report import write_report

    write_report(docs, json.loads(VALIDATION.read_text(encoding="utf-8")), cluster=data)


def main(argv=None) -> int:
    args = parse_arguments(argv)
    if args.docs_only:
        write_docs(args.docs, json.loads(args.output.read_text(encoding="utf-8")))
        print(f"cluster_time_model: wrote {args.docs}", file=sys.stderr)
        return 0
    if args.predict_only:
        data = json.loads(args.output.read_text(encoding="utf-8"))
        profiles = [data["fits"][rate]["profile"] for rate in data["rates"]]
        with tempfile.TemporaryDirectory(prefix="spikex-cluster-") as work:
            data["dryrun"] = {
                str(p): predict(p, data["methods"], profiles, Path(work)) for p in data["ranks"]
            }
        data["table"] = table_rows(data)
        args.output.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        write_docs(args.docs, data)
        print(f"cluster_time_model: wrote {args.output} and {args.docs}", file=sys.stderr)
        return 0
    # SIGTERM (a CI timeout, kill) unwinds like Ctrl-C, so the cluster is taken down.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        data = run(args)
    finally:
        cluster("down")
    earlier = json.loads(args.output.read_text(encoding="utf-8")) if args.output.is_file() else {}
    if keep_earlier_findings(earlier, data):
        print("cluster_time_model: the findings are those of the earlier run: rewrite them", file=sys.stderr)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    write_docs(args.docs, data)
    print(f"cluster_time_model: wrote {args.output} and {args.docs}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
