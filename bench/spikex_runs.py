"""What the spikex benchmark scripts (methods.py, hines2011.py, gups.py) share: how to
call the ``spikex`` command of this venv, one ``spikex run`` with overrides, and a
description of the machine for the result JSON."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path


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
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "load_average": [round(value, 2) for value in os.getloadavg()],
    }
