"""When a long run writes checkpoints and when it stops early (``Network.simulate(control=)``).

A run is cut into chunks of whole min-delay intervals, about ``CHUNK_WALL_S`` seconds of
wall time each (measured on the go), so that a stop request is seen within seconds
whatever the run's length. After every chunk the ranks agree (one small allgather) on:

* stop: a stop signal reached some rank (SIGTERM, what Slurm sends at a time limit, or
  SIGUSR1, what ``mpiexec`` forwards to the ranks and ``spikex run`` sends it when it is
  itself told to stop), or the wall-clock deadline of ``--stop-after`` has passed;
* the next chunk's length (the shortest any rank proposes).

Every ``every_steps`` steps, and at a stop, every rank writes its part of a checkpoint.
"""

from __future__ import annotations

import signal
import threading
import time
from dataclasses import dataclass, field
from typing import Self

import numpy as np

from .. import _core
from ..runtime.collective import int64_per_rank

# Signals that stop a run with a checkpoint (rank processes).
STOP_SIGNALS = (signal.SIGTERM, signal.SIGUSR1)
# Wall time aimed at per chunk: the delay before a stop request is acted on.
CHUNK_WALL_S = 2.0
# The shortest chunk worth its cost: after every chunk the ranks gather its spikes, sum
# their counts for the progress report and agree on the next one (about 1 ms on 2 ranks
# of the 2-core host of 2026-11-27); one per interval, as 100 progress steps gave a 1 s
# run, cost it 10-15 % of its simulate time (docs/user/cluster.md).
MIN_CHUNK_WALL_S = 0.25
# A chunk is at most this many times the last one: a pace measured on a quiet start (the
# first chunk is one interval) may be far faster than the run's.
CHUNK_GROWTH = 4
# Exit status of a run stopped by a signal or --stop-after (sysexits' EX_TEMPFAIL: try
# again — resume from the checkpoint).
STOPPED_EXIT_STATUS = 75


# The first stop signal received while the handlers are installed (None: none).
_stop_signal: str | None = None
_previous_handlers: dict = {}


def catch_stop_signals() -> bool:
    """Note stop signals from now on instead of dying of them (main thread only; the
    ``spikex run`` worker calls it first thing, so that a stop asked for during the build
    is acted on at the first chunk). False when they were noted already."""
    global _stop_signal
    if _previous_handlers or threading.current_thread() is not threading.main_thread():
        return False
    _stop_signal = None
    for signum in STOP_SIGNALS:
        _previous_handlers[signum] = signal.signal(signum, _note_signal)
    return True


def release_stop_signals() -> None:
    """The handlers from before ``catch_stop_signals``."""
    for signum, handler in _previous_handlers.items():
        signal.signal(signum, handler)
    _previous_handlers.clear()


def _note_signal(signum, frame) -> None:
    global _stop_signal
    _stop_signal = _stop_signal or signal.Signals(signum).name


@dataclass
class RunControl:
    """Checkpoint interval and stop conditions of one ``simulate`` call.

    Parameters
    ----------
    checkpoint_every_ms : float
        Simulated time between checkpoints (0: none, except at a stop).
    checkpoint : callable or None
        ``checkpoint(reason)`` writes a checkpoint (collective); None: never.
    deadline : float or None
        ``time.monotonic()`` value after which the run stops (``--stop-after``).
    """

    checkpoint_every_ms: float = 0.0
    checkpoint: object = None
    deadline: float | None = None
    stop_reason: str | None = None
    checkpoints_written: list = field(default_factory=list)
    _installed: bool = False

    def __enter__(self) -> Self:
        self._installed = catch_stop_signals()
        return self

    def __exit__(self, *exc) -> None:
        if self._installed:
            release_stop_signals()

    def agree(self, proposed_steps: int) -> tuple[str | None, int]:
        """(stop reason or None, next chunk length): the same on every rank (collective)."""
        code = 0
        if _stop_signal:
            code = 1 if _stop_signal == "SIGTERM" else 2
        elif self.deadline is not None and time.monotonic() >= self.deadline:
            code = 3
        if _core.comm_size() > 1:
            rows = int64_per_rank([code, proposed_steps], in_run=True)  # a lost rank is a stall
            codes = rows[:, 0]
            code = int(codes[np.flatnonzero(codes)[0]]) if codes.any() else 0
            proposed_steps = int(rows[:, 1].min())
        reason = {0: None, 1: "SIGTERM", 2: "SIGUSR1", 3: "stop-after"}[code]
        return reason, proposed_steps


def chunk_steps(steps_done: int, seconds: float, interval: int, cap: int) -> int:
    """Steps for the next chunk, in whole intervals (at least one): about CHUNK_WALL_S of
    wall time at the last chunk's pace, at most `cap` (the progress report's step) unless
    that is less than MIN_CHUNK_WALL_S of wall time, and at most CHUNK_GROWTH times the
    last chunk."""
    if steps_done <= 0 or seconds <= 0:
        wanted = cap
    else:
        pace = steps_done / seconds
        wanted = min(
            int(pace * CHUNK_WALL_S),
            max(cap, int(pace * MIN_CHUNK_WALL_S)),
            CHUNK_GROWTH * steps_done,
        )
    wanted = max(interval, wanted)
    return wanted - wanted % interval
