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
from .collective import int64_per_rank

# Signals that stop a run with a checkpoint (rank processes).
STOP_SIGNALS = (signal.SIGTERM, signal.SIGUSR1)
# Wall time aimed at per chunk: the delay before a stop request is acted on.
CHUNK_WALL_S = 2.0
# Exit status of a run stopped by a signal or --stop-after (sysexits' EX_TEMPFAIL: try
# again — resume from the checkpoint).
STOPPED_EXIT_STATUS = 75


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
    _signalled: str | None = None
    _previous: dict = field(default_factory=dict)

    def __enter__(self) -> Self:
        if threading.current_thread() is threading.main_thread():
            for signum in STOP_SIGNALS:
                self._previous[signum] = signal.signal(signum, self._on_signal)
        return self

    def __exit__(self, *exc) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()

    def _on_signal(self, signum, frame) -> None:
        self._signalled = self._signalled or signal.Signals(signum).name

    def agree(self, proposed_steps: int) -> tuple[str | None, int]:
        """(stop reason or None, next chunk length): the same on every rank (collective)."""
        code = 0
        if self._signalled:
            code = 1 if self._signalled == "SIGTERM" else 2
        elif self.deadline is not None and time.monotonic() >= self.deadline:
            code = 3
        if _core.comm_size() > 1:
            rows = int64_per_rank([code, proposed_steps])
            codes = rows[:, 0]
            code = int(codes[np.flatnonzero(codes)[0]]) if codes.any() else 0
            proposed_steps = int(rows[:, 1].min())
        reason = {0: None, 1: "SIGTERM", 2: "SIGUSR1", 3: "stop-after"}[code]
        return reason, proposed_steps


def chunk_steps(steps_done: int, seconds: float, interval: int, cap: int) -> int:
    """Steps for the next chunk: about CHUNK_WALL_S of wall time at the last chunk's pace,
    in whole intervals, between one interval and `cap`."""
    if steps_done <= 0 or seconds <= 0:
        wanted = cap
    else:
        wanted = int(steps_done * CHUNK_WALL_S / seconds)
    wanted = max(interval, min(cap, wanted))
    return wanted - wanted % interval if wanted >= interval else interval
