"""A rank that stops exchanging spikes ends the job instead of hanging it.

MPI over TCP does not notice a host whose link went down, or one that stopped answering:
every other rank waits in the next exchange for ever. A thread in each rank watches the
core's heartbeat (``_core.heartbeat``: exchanges completed, inside a run or not; it needs
neither the GIL nor MPI). When a running simulation completes no exchange for the stall
timeout, the rank reports (``on_stall``) and ends itself; the launcher then ends the rest.

The timeout is ``--stall-timeout`` (default ``DEFAULT_STALL_TIMEOUT_S``), and never less
than ``STALL_FACTOR`` times the longest gap between two exchanges seen so far, so that a
network whose intervals legitimately take seconds is not cut off (docs/user/cluster.md).
The wait for the first exchange is no such gap: it holds the first run's set-up.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from collections.abc import Callable
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
    """Default ``on_stall``: one line naming the rank and host, then exit status 3 at once
    (the main thread is inside MPI: no clean exit exists); the launcher ends the rest."""
    from .. import _core

    print(f"spikex: rank {_core.comm_rank()} on host {socket.gethostname()}: {stall_message(seconds)}",
          file=sys.stderr, flush=True)  # fmt: skip
    os._exit(STALL_EXIT_STATUS)
