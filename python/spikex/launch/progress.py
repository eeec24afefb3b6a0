"""Progress of a run for the person waiting: simulated time, wall time, time left, spikes
per second of wall time.

On a terminal a live bar (``ProgressBar``); elsewhere, e.g. a batch job's log, a plain
line every ``--progress-every`` seconds and one at the end (``ProgressLines``). The
worker's rank 0 reports after every chunk of the run (``worker._progress_callback``).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Self, TextIO

PROGRESS_MODES = ("auto", "bar", "lines", "none")
DEFAULT_LINE_SECONDS = 60.0


@dataclass(frozen=True)
class ProgressSample:
    """One report of the worker: simulated ms so far and spikes of every rank so far."""

    simulated_ms: float = 0.0
    spikes: int = 0


class _Rates:
    """Speed since the first report (after the build): simulated ms and spikes per wall
    second, and the wall time left at that speed."""

    def __init__(self, total_ms: float) -> None:
        self.total_ms = total_ms
        self.start = time.monotonic()
        self._first: tuple[float, ProgressSample] | None = None

    def update(self, sample: ProgressSample) -> tuple[float | None, float | None]:
        """(seconds left, spikes per second), None while unknown."""
        now = time.monotonic()
        if self._first is None:
            self._first = (now, sample)
            return None, None
        then, first = self._first
        elapsed = now - then
        advanced = sample.simulated_ms - first.simulated_ms
        if elapsed <= 0 or advanced <= 0:
            return None, None
        left = (self.total_ms - sample.simulated_ms) * elapsed / advanced
        return max(left, 0.0), (sample.spikes - first.spikes) / elapsed


class ProgressBar:
    """A rich progress bar on stderr, used as a context manager.

    Parameters
    ----------
    total_ms : float
        Simulated time of the run.
    label : str
        Text shown in front of the bar.
    """

    def __init__(self, total_ms: float, label: str = "") -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._rates = _Rates(total_ms)
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.completed:.1f} / {task.total:.1f} ms simulated"),
            TimeElapsedColumn(),
            TextColumn("left"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[rate]}"),
            console=Console(stderr=True),
        )
        self._task = self._progress.add_task(
            label or "simulating", total=max(total_ms, 1e-9), rate=""
        )

    def __enter__(self) -> Self:
        self._progress.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._progress.stop()

    def update(self, sample: ProgressSample) -> None:
        """Show ``sample`` as the state of the run."""
        _, rate = self._rates.update(sample)
        text = f"{_count(rate)} spikes/s" if rate is not None else ""
        self._progress.update(self._task, completed=sample.simulated_ms, rate=text)


class ProgressLines:
    """Plain progress lines (for logs): one every ``every_s`` seconds while the run
    advances, and one when it is complete if there was one before (a short run prints
    nothing).

    Parameters
    ----------
    total_ms : float
        Simulated time of the run.
    label : str
        Text in front of every line (``spikex`` by default).
    every_s : float
        Seconds between lines.
    stream : file, optional
        Where to write [default: stderr].
    """

    def __init__(
        self, total_ms: float, label: str = "", every_s: float = DEFAULT_LINE_SECONDS,
        stream: TextIO | None = None,
    ) -> None:  # fmt: skip
        self._rates = _Rates(total_ms)
        self._label = label or "spikex"
        self._every_s = every_s
        self._stream = stream
        self._last_line = time.monotonic()
        self._last_sample = ProgressSample()
        self._lines = 0

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info) -> None:
        pass

    def update(self, sample: ProgressSample) -> None:
        """Note ``sample``; write a line when it is time, or when the run is complete."""
        left, rate = self._rates.update(sample)
        now = time.monotonic()
        complete = sample.simulated_ms >= self._rates.total_ms
        if complete and not self._lines:
            return  # a run shorter than one period stays silent, as without progress
        if sample == self._last_sample or (now - self._last_line < self._every_s and not complete):
            return
        self._lines += 1
        self._last_line, self._last_sample = now, sample
        print(self.line(sample, now - self._rates.start, left, rate),
              file=self._stream or sys.stderr, flush=True)  # fmt: skip

    def line(
        self, sample: ProgressSample, wall_s: float, left_s: float | None, rate: float | None
    ) -> str:
        """``spikex: 12.5 % 125.0 / 1000.0 ms simulated, wall 0:00:04, left ~0:00:28,
        1.20e+05 spikes/s``."""
        total = self._rates.total_ms
        percent = 100.0 * sample.simulated_ms / total if total > 0 else 100.0
        parts = [
            f"{self._label}: {percent:5.1f} % {sample.simulated_ms:.1f} / {total:.1f} ms simulated",
            f"wall {_clock(wall_s)}",
        ]
        if left_s is not None:
            parts.append(f"left ~{_clock(left_s)}")
        if rate is not None:
            parts.append(f"{_count(rate)} spikes/s")
        return ", ".join(parts)


def progress_reporter(
    mode: str, total_ms: float, label: str = "", every_s: float = DEFAULT_LINE_SECONDS
) -> ProgressBar | ProgressLines | None:
    """The reporter of ``--progress MODE``: ``auto`` is a bar on a terminal and lines
    elsewhere; ``none`` is None."""
    if mode == "auto":
        mode = "bar" if sys.stderr.isatty() else "lines"
    if mode == "bar":
        return ProgressBar(total_ms, label)
    if mode == "lines":
        return ProgressLines(total_ms, label, every_s)
    return None


def _clock(seconds: float) -> str:
    seconds = round(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def _count(rate: float) -> str:
    return f"{rate:.3g}" if rate < 1e4 else f"{rate:.2e}"
