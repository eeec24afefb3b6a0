"""A launched job (``mpiexec`` and its ranks) and how it is stopped.

The job runs in a session of its own, so a terminal's Ctrl-C reaches only spikex. While
spikex waits for it, SIGINT and SIGTERM (what a user, a batch system or a container
manager sends) stop the whole job: SIGTERM to its process group (mpiexec forwards it to
the ranks), SIGKILL to what is left after a grace period, then ``RunError`` (exit status
3) naming the signal. Without this, SIGTERM would end spikex at once and leave mpiexec and
its ranks running (docs/user/cli.md, "Stopping a run").
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from ..errors import RunError

# SIGTERM to SIGKILL: the ranks get this long to end after mpiexec forwards SIGTERM.
TERMINATE_GRACE_SECONDS = 3.0
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class _Stopped(Exception):
    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def run_job(
    command: Sequence[str],
    log: Path,
    env: Mapping[str, str],
    wait: Callable[[subprocess.Popen], int] | None = None,
) -> int:
    """Run `command` with its output in `log`; its exit status. `wait(process)` may poll it
    (progress display) and return its status; by default it is waited for."""
    with open(log, "wb") as output:
        process = subprocess.Popen(
            list(command), stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env=dict(env), start_new_session=True,
        )  # fmt: skip
        previous = _catch_stop_signals()
        try:
            return (wait or subprocess.Popen.wait)(process)
        except (_Stopped, KeyboardInterrupt) as stop:
            stop_job(process)
            name = signal.Signals(getattr(stop, "signum", signal.SIGINT)).name
            raise RunError(f"run stopped by {name}; all ranks were stopped") from None
        finally:
            _restore(previous)
            _kill_leftovers(process)


def stop_job(process: subprocess.Popen) -> None:
    """SIGTERM to the job's process group, SIGKILL after the grace period."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=TERMINATE_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    except ProcessLookupError:
        pass


def _kill_leftovers(process: subprocess.Popen) -> None:
    """After the launcher ended: SIGKILL whatever of its job is left in its process group
    (a rank mpiexec could not reach, a daemon of a host that lost its link)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _raise_stopped(signum, frame):
    raise _Stopped(signum)


def _catch_stop_signals() -> dict:
    """Turns SIGINT and SIGTERM into _Stopped while the job runs (main thread only: Python
    delivers signals there; elsewhere they keep their handlers)."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    previous = {}
    for signum in STOP_SIGNALS:
        previous[signum] = signal.signal(signum, _raise_stopped)
    return previous


def _restore(previous: dict) -> None:
    for signum, handler in previous.items():
        signal.signal(signum, handler)
