"""How should a rank's threads wait at the per-step barriers? (issue 6, item 5)

Historical: since issue 60 the step loop's threads are spikex's own
(cpp/spikex/core/worker_team.hpp) and OMP_WAIT_POLICY no longer reaches them; this script
and bench/results/thread_wait.json record the OpenMP measurements that led there.

The threads of a rank meet at two barriers per time step (10,000 per biological second at
dt = 0.1 ms). A waiting thread can spin (OMP_WAIT_POLICY=active: reacts in nanoseconds,
burns its core) or sleep (passive: a futex wake-up per barrier, microseconds, but the
core is free for someone else). spikex chooses per run (python/spikex/__init__.py,
launcher.py): spin when the job's ranks × threads fit the free cores, sleep otherwise.
This script measures both policies on the hpc_benchmark (static, K = 3,750, scale 1,
300 ms) for layouts that fit the machine and layouts that over-subscribe it, and writes
bench/results/thread_wait.json::

    python bench/thread_wait.py [--indegree 3750] [--tstop 300] [--repeat 2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from spikex_runs import machine, spikex_command

HERE = Path(__file__).resolve().parent
CONFIG = HERE.parent / "examples" / "hpc_benchmark.toml"
LAYOUTS = ((1, 2), (2, 1), (1, 4), (2, 2), (4, 2))  # ranks x threads
POLICIES = ("active", "passive")


def one_run(ranks: int, threads: int, policy: str, args, outdir: Path) -> dict:
    command = [
        *spikex_command(), "run", str(CONFIG), "--np", str(ranks), "--threads", str(threads),
        "-o", str(outdir), "--set", f"network.indegree_e={int(args.indegree * 0.8)}",
        "--set", f"network.indegree_i={args.indegree - int(args.indegree * 0.8)}",
        "--set", f"simulation.tstop_ms={args.tstop}",
    ]  # fmt: skip
    env = dict(os.environ, OMP_WAIT_POLICY=policy)
    done = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"thread_wait: {' '.join(command)} failed:\n{done.stderr}")
    summary = json.loads((outdir / "summary.json").read_text())
    return {"simulate_s": summary["time_s"]["simulate"], "spikes_sha256": summary["spikes_sha256"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--indegree", type=int, default=3750)
    parser.add_argument("--tstop", type=float, default=300.0)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for ranks, threads in LAYOUTS:
            for policy in POLICIES:
                runs = [
                    one_run(ranks, threads, policy, args, Path(tmp) / f"r{ranks}t{threads}{policy}{k}")
                    for k in range(args.repeat)
                ]
                best = min(r["simulate_s"] for r in runs)
                rows.append(
                    {
                        "ranks": ranks,
                        "threads": threads,
                        "oversubscribed": ranks * threads > cores,
                        "policy": policy,
                        "simulate_s": [r["simulate_s"] for r in runs],
                        "best_simulate_s": best,
                        "spikes_sha256": runs[0]["spikes_sha256"],
                    }
                )
                print(f"{ranks} x {threads} {policy:8s} best {best:7.2f} s", file=sys.stderr, flush=True)
    result = {
        "question": "OMP_WAIT_POLICY active vs passive for the per-step barriers, by layout",
        "date_utc": datetime.now(UTC).strftime("%Y-%m-%d %H:%M"),
        "machine": {**machine(), "cores_available": cores},
        "settings": {"config": CONFIG.name, "indegree": args.indegree, "tstop_ms": args.tstop, "repeat": args.repeat},
        "rows": rows,
    }
    out = HERE / "results" / "thread_wait.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
