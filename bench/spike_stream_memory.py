"""Does streaming the spikes keep rank 0's memory bounded by one chunk? (issue 20)

Gathering every spike of the run and writing ``spikes.h5`` at the end
(``write_sonata_spikes``) needs memory that grows with the number of spikes. ``spikex
run`` appends them one chunk at a time to its spike log (``io/spike_log.py``) and makes
``spikes.h5`` from the log, a block at a time, at the end (``io/spike_stream.py``). For
N = 1e5, 1e6, ... spikes (two populations, chunks of a fixed number of spikes) this script
runs, each in a fresh subprocess, (a) the stream: generate a chunk, append it to the log,
and so on, then the SONATA file from the log; (b) the gather: the same chunks into arrays
of all N spikes, then ``write_sonata_spikes``. Then (c) whole ``spikex run`` runs (2
ranks) of one network for longer and longer times: peak RSS (max over ranks, from
summary.json) against the spikes of the run. It
records each subprocess's peak RSS (``resource.getrusage`` maxrss), its RSS after the
imports (the baseline), the wall time, and checks that both files hold the same spikes
(``spikes_sha256``). Sizes go up while the whole sweep stays within ``--budget-s``
(the next size is expected to take ten times the last) and the gather fits in half the
available memory. Writes ``bench/results/spike_stream_memory.json``::

    python bench/spike_stream_memory.py [--max-spikes 1e8] [--chunk 1000000] [--budget-s 60]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from spikex_runs import machine

HERE = Path(__file__).resolve().parent
OUTPUT = HERE / "results" / "spike_stream_memory.json"
DT_MS = 0.1
CELLS = (80_000, 20_000)  # two populations, E and I, as in the hpc_benchmark
SPIKES_PER_STEP = 100  # 100,000 cells at 10 Hz and dt = 0.1 ms fire 100 spikes per step
BYTES_PER_GATHERED_SPIKE = 64  # gather: steps, gids, times, and write_sonata_spikes' copies


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def chunk_of(index: int, chunk: int, size: int):
    """Chunk ``index`` of the run (``size`` spikes, SPIKES_PER_STEP random cells per step) in
    canonical order: the same in both modes, made without holding more than the chunk."""
    import numpy as np

    rng = np.random.default_rng(index)
    first_step = index * chunk // SPIKES_PER_STEP
    steps = first_step + np.arange(size, dtype=np.int64) // SPIKES_PER_STEP
    gids = np.sort(rng.integers(0, sum(CELLS), size=size).reshape(-1, SPIKES_PER_STEP), axis=1)
    return steps, gids.reshape(-1)


def child(mode: str, spikes: int, chunk: int, path: Path) -> dict:
    """One measurement, in this (fresh) process."""
    import numpy as np
    import spikex as sx
    from spikex.io.output import read_sonata_spikes, spikes_sha256, write_sonata_spikes
    from spikex.io.spike_log import SpikeLog, write_sonata

    populations = [
        sx.Population(0, CELLS[0], "iaf_psc_alpha", "E"),
        sx.Population(CELLS[0], CELLS[1], "iaf_psc_alpha", "I"),
    ]
    baseline = peak_rss_mb()
    chunks = [(k, min(chunk, spikes - k * chunk)) for k in range(-(-spikes // chunk))]
    start = time.perf_counter()
    if mode == "stream":
        log = SpikeLog(path.with_suffix(".log"), populations)
        for index, size in chunks:
            log.append(*chunk_of(index, chunk, size))
        log.close()
        sha256 = log.sha256()
        write_sonata(log.path, log.rows, path, populations, DT_MS)
        log.path.unlink()
    else:
        steps = np.empty(spikes, dtype=np.int64)
        gids = np.empty(spikes, dtype=np.int64)
        for index, size in chunks:
            at = index * chunk
            steps[at : at + size], gids[at : at + size] = chunk_of(index, chunk, size)
        write_sonata_spikes(path, populations, gids, steps * DT_MS)
    seconds = time.perf_counter() - start
    peak = peak_rss_mb()  # before the check below, which needs memory of its own
    if mode == "gather":
        sha256 = spikes_sha256(steps, gids) if spikes <= 10_000_000 else None
    if mode == "stream" and spikes <= 1_000_000:  # the file holds what was streamed
        gids_read, times_read = read_sonata_spikes(path)
        steps_read = np.rint(times_read / DT_MS).astype(np.int64)
        assert spikes_sha256(steps_read, gids_read.astype(np.int64)) == sha256
    return {
        "mode": mode,
        "spikes": spikes,
        "seconds": round(seconds, 3),
        "baseline_rss_mb": round(baseline, 1),
        "peak_rss_mb": round(peak, 1),
        "above_baseline_mb": round(peak - baseline, 1),
        "file_mb": round(path.stat().st_size / 2**20, 1),
        "spikes_sha256": sha256,
    }


def measure(mode: str, spikes: int, chunk: int, directory: Path) -> dict:
    path = directory / f"{mode}-{spikes}.h5"
    command = [sys.executable, __file__, "--child", mode, str(spikes), str(chunk), str(path)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    path.unlink(missing_ok=True)
    if done.returncode != 0:
        sys.exit(f"spike_stream_memory: {' '.join(command)} failed:\n{done.stderr}")
    return json.loads(done.stdout)


def available_mb() -> float:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) / 1024.0
    return float("inf")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-spikes", type=float, default=1e8)
    parser.add_argument("--chunk", type=int, default=1_000_000, help="spikes per chunk")
    parser.add_argument("--budget-s", type=float, default=60.0, help="wall time of the sweep")
    parser.add_argument("--run-budget-s", type=float, default=120.0, help="wall time of the spikex runs")
    parser.add_argument(
        "--child", nargs=4, metavar=("MODE", "N", "CHUNK", "PATH"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.chunk % SPIKES_PER_STEP:
        parser.error(f"--chunk must be a multiple of {SPIKES_PER_STEP}")
    if args.child:
        mode, spikes, chunk, path = args.child
        print(json.dumps(child(mode, int(spikes), int(chunk), Path(path))))
        return 0

    load_start = [round(value, 2) for value in os.getloadavg()]
    rows, skipped = [], []
    began = time.perf_counter()
    spikes, last_seconds = 100_000, 0.0
    with tempfile.TemporaryDirectory(prefix="spikex-bench-stream-") as scratch:
        while spikes <= args.max_spikes:
            elapsed = time.perf_counter() - began
            if rows and elapsed + 10 * last_seconds > args.budget_s:
                skipped.append(
                    {"spikes": spikes, "why": f"expected beyond --budget-s {args.budget_s:g}"}
                )
                break
            modes = ["stream", "gather"]
            if spikes * BYTES_PER_GATHERED_SPIKE / 2**20 > available_mb() / 2:
                modes = ["stream"]
                skipped.append(
                    {"spikes": spikes, "mode": "gather", "why": "beyond half the available memory"}
                )
            started = time.perf_counter()
            measured = {mode: measure(mode, spikes, args.chunk, Path(scratch)) for mode in modes}
            last_seconds = time.perf_counter() - started
            hashes = {row["spikes_sha256"] for row in measured.values()} - {None}
            if len(hashes) > 1:
                sys.exit(f"spike_stream_memory: {spikes} spikes: the stream and the gather hash differently")
            rows.extend(measured.values())
            by_mode = {mode: row["peak_rss_mb"] for mode, row in measured.items()}
            print(f"{spikes:>11,} spikes: " + ", ".join(f"{m} {v:8.1f} MB" for m, v in by_mode.items()),
                  file=sys.stderr, flush=True)  # fmt: skip
            spikes *= 10
    result = {
        "question": "peak RSS of rank 0 writing N spikes: streamed in chunks (spike log, then "
        "SpikeStream) against gathered and written at the end (write_sonata_spikes); and of "
        "whole spikex runs against their spikes",
        "date_utc": datetime.now(UTC).strftime("%Y-%m-%d %H:%M"),
        "machine": {
            **machine(),
            "load_average_start": load_start,
            "memory_available_mb": round(available_mb()),
        },
        "settings": {
            "chunk_spikes": args.chunk,
            "dt_ms": DT_MS,
            "populations": {"E": CELLS[0], "I": CELLS[1]},
            "spikes_per_step": SPIKES_PER_STEP,
            "budget_s": args.budget_s,
            "max_spikes": int(args.max_spikes),
        },
        "rows": rows,
        "skipped": skipped,
        "runs": whole_runs(args.run_budget_s),
    }
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(json.dumps(result, indent=2) + "\n")
    print(table(rows))
    print(run_table(result["runs"]))
    return 0


# (c): one network (interval_fire, about 2e5 spikes per simulated second) run longer and
# longer on 2 ranks.
RUN_NETWORK = """
[simulation]
tstop_ms = {tstop_ms}
seed = 3

[network]
cells = 4000
indegree = 100
indegree_spread = 10
weight = 0.002
"""


def whole_runs(budget_s: float) -> list[dict]:
    """peak RSS of `spikex run` (max over 2 ranks) for runs of 10x more spikes each."""
    runs, tstop_ms, last = [], 500.0, 0.0
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="spikex-bench-runs-") as scratch:
        while not runs or time.perf_counter() - began + 10 * last <= budget_s:
            config = Path(scratch) / "run.toml"
            config.write_text(RUN_NETWORK.format(tstop_ms=tstop_ms))
            outdir = Path(scratch) / f"out-{int(tstop_ms)}"
            started = time.perf_counter()
            done = subprocess.run(
                [str(Path(sys.executable).parent / "spikex"), "run", str(config), "--np", "2", "-o", str(outdir)],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            last = time.perf_counter() - started
            if done.returncode != 0:
                sys.exit(f"spike_stream_memory: spikex run failed:\n{done.stderr}")
            summary = json.loads((outdir / "summary.json").read_text())
            runs.append({
                "tstop_ms": tstop_ms,
                "spikes": summary["spikes_total"],
                "peak_rss_mb_max": summary["peak_rss_mb"]["max"],
                "peak_rss_mb_mean": summary["peak_rss_mb"]["mean"],
                "seconds": round(last, 2),
                "spikes_file_mb": round((outdir / "spikes.h5").stat().st_size / 2**20, 1),
            })  # fmt: skip
            print(f"spikex run {tstop_ms:>9g} ms: {summary['spikes_total']:>11,} spikes, peak RSS "
                  f"{summary['peak_rss_mb']['max']:.1f} MB", file=sys.stderr, flush=True)  # fmt: skip
            tstop_ms *= 10
    return runs


def run_table(runs: list[dict]) -> str:
    lines = [f"{'spikex run ms':>14} {'spikes':>12} {'peak RSS MB (max)':>18} {'seconds':>8}"]
    for run in runs:
        lines.append(
            f"{run['tstop_ms']:>14g} {run['spikes']:>12,} {run['peak_rss_mb_max']:>18.1f} {run['seconds']:>8.2f}"
        )
    return "\n".join(lines)


def table(rows: list[dict]) -> str:
    lines = [
        f"{'spikes':>12} {'mode':>7} {'peak RSS MB':>12} {'above baseline MB':>18} {'seconds':>8} {'file MB':>8}"
    ]
    for row in rows:
        lines.append(
            f"{row['spikes']:>12,} {row['mode']:>7} {row['peak_rss_mb']:>12.1f} "
            f"{row['above_baseline_mb']:>18.1f} {row['seconds']:>8.2f} {row['file_mb']:>8.1f}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
