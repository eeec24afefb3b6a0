"""Why a launched job failed, in one line naming the rank and its host, from what its
ranks left in the work directory and from the launcher's log.

Shared by ``spikex run`` (``launch.worker``) and ``spikex gups`` (``scaling.gups``), whose
ranks report the same way: ``error.json`` for a user error, ``error.rank<R>.json`` for a
rank that failed (``kind = "rank"``) or stopped exchanging (``kind = "stall"``), both
with the rank's host; the launcher's output is in ``worker.log``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sys
from pathlib import Path

from ..errors import RunError, UserInputError

CONFIG_ERROR_FILE = "error.json"
RANK_ERROR_GLOB = "error.rank*.json"
WORKER_LOG = "worker.log"
# Set to print the whole worker log (launcher and every rank) when a job fails.
DEBUG_VARIABLE = "SPIKEX_DEBUG"


def job_failure(workdir: Path, status: int, ranks: int, missing: str) -> Exception:
    """The exception that explains why the job failed (``UserInputError``, exit status 2,
    or ``RunError``, 3). ``missing`` names the result file a successful job writes."""
    log = _read_log(workdir)
    if os.environ.get(DEBUG_VARIABLE):
        sys.stderr.write(log)
    config_error = _read_json(workdir / CONFIG_ERROR_FILE)
    if config_error is not None:
        return UserInputError(config_error.get("message", "invalid configuration"))
    rank_errors = sorted(
        (error for error in map(_read_json, workdir.glob(RANK_ERROR_GLOB)) if error),
        key=lambda error: error.get("rank", 0),
    )
    failed = [error for error in rank_errors if error.get("kind") != "stall"]
    if failed:
        first = failed[0]
        return RunError(f"rank {first.get('rank')}{_on_host(first)} failed: {first.get('message')}")
    if rank_errors:
        return RunError(_describe_stall(rank_errors))
    if status == 0:
        return RunError(
            f"the job ended without writing {missing}: {_last_line(log) or 'no output'}"
        )
    return RunError(describe_dead_job(ranks, status, log) + _full_disk(workdir))


# Below this much free space, a job that left no error file probably could not write one.
FULL_DISK_BYTES = 1 << 20


def _full_disk(workdir: Path) -> str:
    """A note when the disk of the work directory (next to OUTDIR) is full: the ranks
    could not even write their error reports."""
    try:
        free = shutil.disk_usage(workdir).free
    except OSError:
        return ""
    if free >= FULL_DISK_BYTES:
        return ""
    return f" (the disk of {workdir.parent} is full: {free} bytes free)"


def _on_host(error: dict) -> str:
    return f" on host {error['host']}" if error.get("host") else ""


def _describe_stall(stalls: list[dict]) -> str:
    """The ranks whose watchdog fired, by host, and why (worker._stall_reporter)."""
    by_host: dict[str, list[int]] = {}
    for stall in stalls:
        by_host.setdefault(stall.get("host") or "?", []).append(int(stall.get("rank", 0)))
    where = "; ".join(
        f"rank{'s' if len(ranks) > 1 else ''} {', '.join(map(str, ranks))} on host {host}"
        for host, ranks in by_host.items()
    )
    return f"{where}: {stalls[0].get('message')}"


def describe_dead_job(ranks: int, status: int, log: str) -> str:
    """Name the rank and cause of a job that died without an error file."""
    if ranks == 1:
        return f"rank 0 failed: {_describe_status(status)}" + _suffix(_last_line(log))
    signalled = re.search(
        r"process rank (\d+) with PID \d+ on node (\S+) exited on signal (\d+)", log
    )
    if signalled:
        rank, host, number = signalled.groups()
        return (
            f"rank {rank} on host {host} failed: killed by signal {number} "
            f"({_signal_name(int(number))}) (mpiexec exit status {status})"
        )
    exited = re.search(r"Process name: \[\[\d+,\d+\],(\d+)\]\s+Exit code:\s+(\d+)", log)
    if exited:
        rank, code = exited.groups()
        return f"rank {rank} failed: exited with status {code} (mpiexec exit status {status})"
    return f"a rank failed (mpiexec exit status {status})" + _suffix(_last_line(log))


def _describe_status(status: int) -> str:
    if status < 0:
        return f"killed by signal {-status} ({_signal_name(-status)})"
    return f"exited with status {status}"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return "unknown signal"


def _suffix(line: str) -> str:
    return f": {line}" if line else ""


def _last_line(log: str) -> str:
    """Last meaningful line of the worker log (skipping mpiexec's banner rules)."""
    for line in reversed(log.splitlines()):
        line = line.strip()
        if line and not set(line) <= set("-="):
            return line
    return ""


def _read_log(workdir: Path) -> str:
    try:
        return (workdir / WORKER_LOG).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
