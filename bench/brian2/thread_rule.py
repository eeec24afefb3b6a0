"""When does a second thread pay? (issue 60, item 3: the rule behind ``threads`` not given)

The issue's Brunel network (networks.py) at several sizes and in-degrees, spikex's
Python API at 1 and 2 threads, best loop (``time_s.simulate``) of ``--repeat`` runs
each, interleaved. Each size runs at least ``--tstop`` ms and at least CELL_STEPS cell
updates (250 cells: 6 s), so that a small network's loop lasts tens of milliseconds:
one-off costs of milliseconds (numpy's OpenBLAS threads spin for about 0.1 s after
``import numpy``; a worker's first wake-up) would otherwise decide a 3 ms run. The rule in ``spikex.runtime.allocation.auto_threads`` (one thread
per CELLS_PER_THREAD neurons or SYNAPSES_PER_THREAD synapses) is read off the sizes where
2 threads became faster than 1. Writes bench/results/thread_rule.json::

    python bench/brian2/thread_rule.py [--repeat 3] [--tstop 300]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from spikex_runs import machine  # noqa: E402

CELL_STEPS = 1.5e7  # the 5,000 cells x 3,000 steps
SIZES = ((250, 50), (500, 50), (1000, 100), (2000, 200), (4000, 100), (5000, 500), (250, 500), (1000, 500))


def tstop_for(cells: int, tstop: float, dt_ms: float = 0.1) -> float:
    return max(tstop, round(CELL_STEPS / cells) * dt_ms)


def one(cells: int, indegree: int, threads: int, tstop: float) -> dict:
    cmd = [sys.executable, str(HERE / "run_spikex.py"), "brunel5k", "--cells", str(cells),
           "--indegree", str(indegree), "--threads", str(threads), "--tstop", str(tstop)]  # fmt: skip
    load = os.getloadavg()[0]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"thread_rule: {' '.join(cmd)} failed:\n{done.stderr[-2000:]}")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    out["load_1min"] = round(load, 2)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tstop", type=float, default=300.0)
    args = parser.parse_args()
    load_start = [round(v, 2) for v in os.getloadavg()]
    started = time.perf_counter()
    runs: dict[tuple, list[dict]] = {}
    for _ in range(args.repeat):
        for cells, indegree in SIZES:
            for threads in (1, 2):
                out = one(cells, indegree, threads, tstop_for(cells, args.tstop))
                runs.setdefault((cells, indegree, threads), []).append(out)
                print(f"{cells:6d} cells K={indegree:4d} T={threads} loop {out['loop_s']:.4f} s "
                      f"load {out['load_1min']}", file=sys.stderr, flush=True)  # fmt: skip
    rows = []
    for cells, indegree in SIZES:
        one_t, two_t = runs[(cells, indegree, 1)], runs[(cells, indegree, 2)]
        best1, best2 = min(r["loop_s"] for r in one_t), min(r["loop_s"] for r in two_t)
        steps = tstop_for(cells, args.tstop) / 0.1
        rows.append({
            "cells": cells, "indegree": indegree, "synapses": one_t[0]["connections"],
            "tstop_ms": tstop_for(cells, args.tstop),
            "rate_e_hz": one_t[0]["rates_hz"].get("E"),
            "best_loop_s": {"1": best1, "2": best2}, "us_per_step": {"1": 1e6 * best1 / steps, "2": 1e6 * best2 / steps},
            "two_over_one": round(best2 / best1, 3),
            "loads": [r["load_1min"] for r in one_t + two_t],
            "same_spikes": len({r["spikes_sha256"] for r in one_t + two_t}) == 1,
        })  # fmt: skip
    result = {
        "question": "issue 60: from which size does a second thread make spikex's loop faster?",
        "date_utc": datetime.now(UTC).strftime("%Y-%m-%d %H:%M"),
        "machine": {**machine(), "load_average_start": load_start, "cores_available": len(os.sched_getaffinity(0))},
        "seconds": round(time.perf_counter() - started, 1),
        "settings": {"repeat": args.repeat, "tstop_ms_at_least": args.tstop, "cell_steps_at_least": CELL_STEPS,
                     "network": "brunel (networks.py)"},
        "rows": rows,
    }
    out = HERE.parent / "results" / "thread_rule.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    for r in rows:
        print(f"{r['cells']:6d} cells K={r['indegree']:4d} {r['synapses']:9d} syn  "
              f"1T {r['us_per_step']['1']:7.1f} us/step  2T {r['us_per_step']['2']:7.1f}  2/1 {r['two_over_one']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
