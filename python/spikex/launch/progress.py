"""Progress bar of a run on the terminal: simulated ms out of the total."""

from __future__ import annotations

from typing import Self

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn


class ProgressDisplay:
    """A rich progress bar on stderr, used as a context manager.

    Parameters
    ----------
    total_ms : float
        Simulated time of the run.
    label : str
        Text shown in front of the bar.
    """

    def __init__(self, total_ms: float, label: str = "") -> None:
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.completed:.1f} / {task.total:.1f} ms simulated"),
            TimeElapsedColumn(),
            console=Console(stderr=True),
        )
        self._task = self._progress.add_task(label or "simulating", total=max(total_ms, 1e-9))

    def __enter__(self) -> Self:
        self._progress.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._progress.stop()

    def update(self, simulated_ms: float) -> None:
        """Show ``simulated_ms`` as done."""
        self._progress.update(self._task, completed=simulated_ms)
