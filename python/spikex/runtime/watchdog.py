"""A rank that stops exchanging spikes ends the job instead of hanging it.

MPI over TCP does not notice a host whose link went down, or one that stopped answering:
every other rank waits in the next exchange for ever. A thread in each rank watches the
core's heartbeat (``_core.heartbeat``: exchanges completed, inside a run or not; it needs
neither the GIL nor MPI). When a running simulation completes no exchange for the stall
timeout, the rank reports (``on_stall``) and ends itself; spikex's parent then ends the
launcher (launch modes a, c), or, under a launcher spikex does not own, the rank ends the
job itself (``abort_stalled_job``; docs/user/cluster.md, "When something fails").

The timeout is ``--stall-timeout`` (default ``DEFAULT_STALL_TIMEOUT_S``), and never less
than ``STALL_FACTOR`` times the longest gap between two exchanges seen so far, so that a
network whose intervals legitimately take seconds is not cut off (docs/user/cluster.md).
The wait for the first exchange is no such gap: it holds the first run's set-up.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Self

DEFAULT_STALL_TIMEOUT_S = 10.0  # the default of simulation.stall_timeout_s
STALL_FACTOR = 20.0
POLL_SECONDS = 0.25


class StallWatchdog:
    """Calls ``on_stall(seconds)`` once when a run inside this process completes no
    exchange for the timeout. Use as a context manager around the simulation.

    Parameters
    ----------
    timeout_s : float
        Shortest stall that counts (> 0).
    on_stall : callable
        Called from the watchdog thread with the stall's length in seconds; it should end
        the process (it must not call MPI: the main thread may be inside it).
    heartbeat : callable, optional
        Returns (exchanges completed, running); default ``spikex._core.heartbeat``.
    """

    def __init__(
        self,
        timeout_s: float,
        on_stall: Callable[[float], None],
        heartbeat: Callable[[], tuple[int, bool]] | None = None,
    ) -> None:
        if heartbeat is None:
            from .. import _core

            heartbeat = _core.heartbeat
        self._timeout_s = float(timeout_s)
        self._on_stall = on_stall
        self._heartbeat = heartbeat
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="spikex-watchdog", daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._stop.set()
        self._thread.join()

    def _watch(self) -> None:
        last_count, _ = self._heartbeat()
        last_change = time.monotonic()
        longest_gap = 0.0
        # Whether an exchange has been seen. The stretch before the first one also holds
        # the set-up of the network's first run (the exchange's buffers and windows, MPI's
        # first connections between hosts): not a gap between exchanges. Counted as one, a
        # slow set-up stretched the timeout 20-fold. Later runs (the chunks of one) start
        # the clock again where they start, so their first exchange's gap is an interval.
        seen_exchange = False
        while not self._stop.wait(POLL_SECONDS):
            count, running = self._heartbeat()
            now = time.monotonic()
            if count != last_count:
                if seen_exchange:
                    # Mean gap over this poll: a poll period is no gap between exchanges.
                    longest_gap = max(longest_gap, (now - last_change) / abs(count - last_count))
                seen_exchange = True
                last_count, last_change = count, now
            elif not running:
                last_change = now  # between runs (writing outputs, Python code): no clock
            elif now - last_change >= max(self._timeout_s, STALL_FACTOR * longest_gap):
                self._on_stall(now - last_change)
                return


STALL_EXIT_STATUS = 3


def stall_message(seconds: float) -> str:
    """Why a stalled rank ends (the same words for the CLI's report and a script's)."""
    return (
        f"no spike exchange completed for {seconds:.1f} s: a rank, host or network link of "
        "the job was lost (simulation.stall_timeout_s)"
    )


def end_stalled_rank(seconds: float) -> None:
    """Default ``on_stall`` (a user's script under a launcher of the user's): one line
    naming the rank and host, then the whole job ends (``abort_stalled_job``)."""
    from .. import _core

    print(f"spikex: rank {_core.comm_rank()} on host {socket.gethostname()}: {stall_message(seconds)}",
          file=sys.stderr, flush=True)  # fmt: skip
    abort_stalled_job(end_launcher=True)


# How long MPI_Abort may take before the rank exits by itself.
ABORT_GRACE_SECONDS = 3.0
# Time for the launcher to forward the rank's report line before it is ended.
REPORT_FORWARD_SECONDS = 1.0
# The processes of MPI launchers that start ranks (OpenMPI's mpiexec and its daemons,
# PRRTE's, MPICH's Hydra proxy). A batch system's step daemon (slurmstepd) is not one:
# it ends the job itself when a node is lost.
LAUNCHER_PROCESSES = frozenset(
    {"mpiexec", "mpirun", "orterun", "orted", "prterun", "prte", "prted", "hydra_pmi_proxy",
     "mpiexec.hydra", "mpiexec.openmpi", "mpirun.openmpi"}
)  # fmt: skip


def abort_stalled_job(end_launcher: bool) -> None:
    """End the whole job from the watchdog thread.

    With `end_launcher` (launch mode b, a user's script: a launcher spikex does not own),
    first the launcher process that started this rank on this host is ended, if it is one
    (``LAUNCHER_PROCESSES``): ``mpiexec`` waits for ever for the daemon of a lost host (it
    did so even after MPI_Abort), so the rank on mpiexec's own host ends mpiexec, whose
    daemons on the reachable hosts then end their ranks, and the ranks of a lost host end
    their daemon there, so that nothing of the job is left anywhere. Then MPI_Abort (the
    main thread is inside MPI, so the abort may not return or may not finish: the rank
    exits with STALL_EXIT_STATUS after ABORT_GRACE_SECONDS whatever happens)."""
    from .. import _core

    timer = threading.Timer(
        ABORT_GRACE_SECONDS + (REPORT_FORWARD_SECONDS if end_launcher else 0.0),
        os._exit, (STALL_EXIT_STATUS,),
    )  # fmt: skip
    timer.daemon = True
    timer.start()
    if end_launcher:
        time.sleep(REPORT_FORWARD_SECONDS)
        end_launcher_parent()
    _core.comm_abort(STALL_EXIT_STATUS)
    os._exit(STALL_EXIT_STATUS)


# SIGTERM to SIGKILL for the launcher process: on SIGTERM it ends the ranks it started
# (frozen ones too: OpenMPI sends them SIGCONT, SIGTERM, SIGKILL), then waits for its
# daemons, which for a lost host is for ever.
LAUNCHER_KILL_AFTER_SECONDS = 2.0


def end_launcher_parent() -> str | None:
    """End this process's parent if it is an MPI launcher process: SIGTERM now, SIGKILL
    LAUNCHER_KILL_AFTER_SECONDS later from a detached shell (this rank may be gone by
    then: the launcher ends it). Its name, or None when the parent is no launcher."""
    parent = os.getppid()
    try:
        name = Path(f"/proc/{parent}/comm").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if name not in LAUNCHER_PROCESSES:
        return None
    try:
        subprocess.Popen(
            ["sh", "-c", f"sleep {LAUNCHER_KILL_AFTER_SECONDS:g}; kill -KILL {parent} 2>/dev/null"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        os.kill(parent, signal.SIGTERM)
    except OSError:
        return None
    return name
