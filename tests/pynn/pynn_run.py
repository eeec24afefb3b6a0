"""Runs one scenario in its own subprocess and gives its outcome.

A subprocess per scenario because a scenario may hang, crash the interpreter, leave the
backend's global state (MPI, threads) behind, or call MPI. It runs with the given Python
(the venv's), in a fresh temporary directory (scenarios write files into their cwd), with
OMP_NUM_THREADS=1 and in a session of its own, so that a timeout kills it together with
anything it started.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from pynn_collect import Scenario

CHILD = Path(__file__).resolve().parent / "pynn_child.py"
RESULTS = ("pass", "fail", "not-supported", "skipped")


@dataclass
class Outcome:
    id: str
    result: str  # one of RESULTS
    reason: str  # "" for pass
    seconds: float
    output: str = ""  # the end of the child's stdout + stderr (not in the reports)

    def record(self) -> dict:
        entry = asdict(self)
        entry.pop("output")
        return entry


def run_scenario(
    scenario: Scenario, parent: Path, backend: str, timeout: float, python: str = sys.executable
) -> Outcome:
    workdir = Path(tempfile.mkdtemp(prefix="pynn-scenario-"))
    result_path = workdir / ".outcome.json"
    log_path = workdir / ".output.log"
    command = [
        python,
        str(CHILD),
        str(parent),
        scenario.package,
        scenario.module,
        scenario.function,
        backend,
        str(result_path),
    ]
    environment = dict(os.environ, OMP_NUM_THREADS="1", MPLBACKEND="Agg")
    start = time.monotonic()
    try:
        with open(log_path, "w") as log:
            process = subprocess.Popen(
                command,
                cwd=workdir,
                env=environment,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
            try:
                exit_code = process.wait(timeout=timeout)
                timed_out = False
            except subprocess.TimeoutExpired:
                timed_out = True
            finally:
                _kill_session(process)
        seconds = time.monotonic() - start
        recorded = json.loads(result_path.read_text()) if result_path.is_file() else None
        output = _tail(log_path)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    if timed_out:
        result, reason = "fail", f"timeout (after {timeout:g} s)"
        if recorded:  # the scenario returned, the interpreter did not exit
            reason += f" at exit; the scenario itself: {_said(recorded)}"
    elif recorded and exit_code == 0:
        result, reason = recorded["result"], recorded["reason"]
    else:
        result, reason = "fail", f"crashed (exit {exit_code})"
        if recorded:
            reason += f" at exit; the scenario itself: {_said(recorded)}"
        elif output.strip():
            reason += f": {output.strip().splitlines()[-1][:200]}"
    return Outcome(scenario.id, result, reason, round(seconds, 2), output)


def _kill_session(process: subprocess.Popen) -> None:
    # The child leads its own session (start_new_session): its process group is ours alone.
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def _said(recorded: dict) -> str:
    return recorded["result"] + (f" ({recorded['reason']})" if recorded["reason"] else "")


def _tail(path: Path, lines: int = 40) -> str:
    if not path.is_file():
        return ""
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
