"""Progress bar of a sweep of runs (``spikex compare``): runs done out of the total.

Each run of the sweep is launched without its own bar; this one bar names the run going
on and counts finished runs. Off a terminal it shows nothing.
"""

from __future__ import annotations

from typing import Self


class SweepProgress:
    """A rich progress bar over the runs of a sweep (or nothing, off a terminal).

    Parameters
    ----------
    total_runs : int
        Runs in the sweep.
    enabled : bool
        Show the bar (on stderr); when False every method does nothing.
    """

    def __init__(self, total_runs: int, enabled: bool) -> None:
        self._progress = None
        if enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("runs"),
                TimeElapsedColumn(),
                console=Console(stderr=True),
            )
            self._task = self._progress.add_task("compare", total=total_runs)

    def __enter__(self) -> Self:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(self, *exc_info) -> None:
        if self._progress is not None:
            self._progress.stop()

    def starting(self, name: str) -> None:
        """Show which run is going on."""
        if self._progress is not None:
            self._progress.update(self._task, description=f"compare: {name}")

    def finished(self) -> None:
        """Count one more run as done."""
        if self._progress is not None:
            self._progress.advance(self._task)
            task = self._progress.tasks[0]
            if task.completed >= task.total:
                self._progress.update(self._task, description="compare: all runs done")
