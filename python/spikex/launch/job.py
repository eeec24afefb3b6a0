"""A launched job (``mpiexec`` and its ranks) and how it is stopped.

The job runs in a session of its own, so a terminal's Ctrl-C reaches only spikex. While
spikex waits for it, SIGINT and SIGTERM (what a user, a batch system or a container
manager sends) stop the whole job:

* a job that can stop cleanly (``spikex run``: ``graceful``) gets SIGUSR1 at its launcher,
  which forwards it to every rank (``mpiexec`` ends the ranks at once on SIGTERM, but
  forwards SIGUSR1); the ranks finish the current chunk, write a checkpoint and partial
  outputs, and exit with ``run_control.STOPPED_EXIT_STATUS``. A second signal, or
  ``STOP_GRACE_SECONDS`` without an end, stops it the hard way;
* otherwise, and the hard way: SIGTERM to its process group, SIGKILL to what is left
  after a grace period, then ``RunError`` (exit status 3) naming the signal.

Without this, SIGTERM would end spikex at once and leave mpiexec and its ranks running
(docs/user/cli.md, "Stopping a run").
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from ..errors import RunError

# SIGTERM to SIGKILL: the ranks get this long to end after mpiexec forwards SIGTERM.
TERMINATE_GRACE_SECONDS = 3.0
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
# A clean stop (checkpoint and partial outputs) may take this long before a hard stop.
STOP_GRACE_SECONDS = 300.0
# What the launcher forwards to the ranks to ask for a clean stop.
CLEAN_STOP_SIGNAL = signal.SIGUSR1


class _Stopped(Exception):
    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def run_job(
    command: Sequence[str],
    log: Path,
    env: Mapping[str, str],
    wait: Callable[[subprocess.Popen], int] | None = None,
    graceful: bool = False,
    on_clean_stop: Callable[[str], None] | None = None,
) -> int:
    """Run `command` with its output in `log`; its exit status. `wait(process)` may poll it
    (progress display) and return its status; by default it is waited for. `graceful`:
    the first stop signal asks the job for a clean stop (module docstring), after telling
    `on_clean_stop` the signal's name (the ranks see only the relayed SIGUSR1)."""
    with open(log, "wb") as output:
        process = subprocess.Popen(
            list(command), stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env=dict(env), start_new_session=True,
        )  # fmt: skip
        previous = _catch_stop_signals(process if graceful else None, on_clean_stop)
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


# The signal that asked the last job for a clean stop (for the message), if any.
clean_stop_requested_by: str | None = None


class _CleanStop:
    """The first stop signal forwards CLEAN_STOP_SIGNAL to the launcher; the next one, or
    the end of the grace period, raises _Stopped (a hard stop)."""

    def __init__(self, process: subprocess.Popen, on_clean_stop: Callable[[str], None] | None):
        self.process = process
        self.on_clean_stop = on_clean_stop
        self.asked = False

    def __call__(self, signum, frame):
        if self.asked:
            raise _Stopped(signum)
        self.asked = True
        name = signal.Signals(signum).name
        global clean_stop_requested_by
        clean_stop_requested_by = name
        print(
            f"spikex run: {name}: the ranks finish the current chunk and write a checkpoint "
            f"(another {name} stops them at once)",
            file=sys.stderr,
            flush=True,
        )
        if self.on_clean_stop is not None:
            self.on_clean_stop(name)
        try:
            self.process.send_signal(CLEAN_STOP_SIGNAL)
        except ProcessLookupError:
            return
        timer = threading.Timer(STOP_GRACE_SECONDS, os.kill, (os.getpid(), signum))
        timer.daemon = True
        timer.start()


def _catch_stop_signals(
    clean_stop_of: subprocess.Popen | None = None,
    on_clean_stop: Callable[[str], None] | None = None,
) -> dict:
    """Turns SIGINT and SIGTERM into _Stopped while the job runs, after a clean-stop
    request to `clean_stop_of` if given (main thread only: Python delivers signals there;
    elsewhere they keep their handlers)."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    handler = _CleanStop(clean_stop_of, on_clean_stop) if clean_stop_of is not None else _raise_stopped
    previous = {}
    for signum in STOP_SIGNALS:
        previous[signum] = signal.signal(signum, handler)
    return previous


def _restore(previous: dict) -> None:
    for signum, handler in previous.items():
        signal.signal(signum, handler)
