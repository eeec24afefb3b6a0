"""What the spikex benchmark scripts (methods.py, hines2011.py, gups.py) share: how to
call the ``spikex`` command of this venv, one ``spikex run`` with overrides, one ``spikex
gups``, and a description of the machine for the result JSON."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from spikex.results.machine import cpu_model


def spikex_command() -> list[str]:
    """The ``spikex`` next to this Python (same venv), else ``python -m spikex``."""
    script = Path(sys.executable).with_name("spikex")
    return [str(script)] if script.exists() else [sys.executable, "-m", "spikex"]


def spikex_run(config: Path, ranks: int, outdir: Path, overrides: list[str]) -> dict:
    """One ``spikex run CONFIG --np ranks --set ...``; its summary, or exit with its error.
    ``outdir`` is the script's own scratch directory: an earlier run's results there are
    replaced (``--overwrite``)."""
    command = [*spikex_command(), "run", str(config), "--np", str(ranks), "-o", str(outdir)]
    command.append("--overwrite")
    for override in overrides:
        command += ["--set", override]
    print(f"np={ranks}: {' '.join(command)}", file=sys.stderr, flush=True)
    completed = subprocess.run(
        command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    if completed.returncode != 0:
        sys.exit(f"bench: {' '.join(command)} failed:\n{completed.stderr}")
    return json.loads((outdir / "summary.json").read_text(encoding="utf-8"))


def machine() -> dict:
    """This machine for a result JSON, with the load average (1, 5, 15 min) when called:
    the scripts call it after their runs, so that the report can state the load the runs
    saw instead of assuming it."""
    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu": cpu_model(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "load_average": [round(value, 2) for value in os.getloadavg()],
    }


def result_header(question: str, load_start: list[float], started: float) -> dict:
    """The first keys of a result JSON: the question, when (UTC), the machine with the load
    average at the start (``load_start``, from ``machine()`` before the runs) and at the
    end, and the seconds since ``started`` (``time.perf_counter()``)."""
    return {
        "question": question,
        "date_utc": datetime.now(UTC).strftime("%Y-%m-%d %H:%M"),
        "machine": {**machine(), "load_average_start": load_start},
        "seconds": round(time.perf_counter() - started, 1),
    }


def spikex_gups(
    ranks: int,
    algorithm: str,
    log2_table: int,
    budget: int = 1024,
    dims: str | None = None,
    extra: tuple[str, ...] = (),
) -> dict:
    """One ``spikex gups`` run (the command users run); its JSON, or exit with its error.
    Verification is on: exit status 1 (more than 1 % of the words wrong) still gives the
    JSON, whose ``errors`` the caller judges."""
    with tempfile.TemporaryDirectory() as directory:
        output = Path(directory) / "gups.json"
        command = [
            *spikex_command(), "gups", "--np", str(ranks), "--algorithm", algorithm,
            "--log2-table", str(log2_table), "--budget", str(budget), "-o", str(output),
        ]  # fmt: skip
        if dims is not None:
            command += ["--dims", dims]
        command += extra
        print(" ".join(command[1:]), file=sys.stderr, flush=True)
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode not in (0, 1) or not output.exists():
            sys.exit(
                f"bench: {' '.join(command)} failed ({done.returncode}): {done.stderr.strip()}"
            )
        return json.loads(output.read_text(encoding="utf-8"))
