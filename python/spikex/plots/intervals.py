"""Per-interval computation and total time: Hines et al. 2011, Figures 5-8.

One panel per run (per method in a comparison, at its largest rank count). The x axis is
simulated time (the end of each interval or sub-interval), the y axis milliseconds of
wall-clock time spent in it:

* thin black: computation time of rank 0,
* thick black: computation time, mean over ranks,
* dashed black: computation time, maximum over ranks,
* red: total time of the interval on rank 0 (computation + wait + exchange).

As in the paper, the sum of each series over the run is given (in the legend). The
series come from ``timeline.h5`` (``record.timeline = true``); a run without it has no
such figure. ``interval_series`` is the one place the series are computed, so that tests
can check they add up to the run totals of ``summary.json``.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from .figure_files import DPI, new_figure, save_figure
from .sources import PlotSource, RunOutput

FIGURE_NAME = "intervals"
PANEL_INCHES = (10.0, 3.0)
MAX_COLUMNS = 2


def interval_series(timeline: dict, dt_ms: float) -> dict[str, np.ndarray]:
    """The series of Figures 5-8 from a timeline (column -> ``(ranks, rows)`` array).

    Returns
    -------
    dict
        ``time_ms`` (end of each row), ``comp_rank0_s``, ``comp_mean_s``, ``comp_max_s``,
        ``total_rank0_s`` (row wall-clock time on rank 0) and ``total_mean_s``, in
        seconds per row.
    """
    compute = np.asarray(timeline["compute_s"], dtype=np.float64)
    wall = np.asarray(timeline["wall_s"], dtype=np.float64)
    steps = np.asarray(timeline["step"])
    return {
        "time_ms": steps[0].astype(np.float64) * dt_ms,
        "comp_rank0_s": compute[0],
        "comp_mean_s": compute.mean(axis=0),
        "comp_max_s": compute.max(axis=0),
        "total_rank0_s": wall[0],
        "total_mean_s": wall.mean(axis=0),
    }


def read_run_series(run: RunOutput) -> dict[str, np.ndarray]:
    """``interval_series`` of one run directory's ``timeline.h5``."""
    from ..io.timeline import read_timeline

    summary = run.summary()
    return interval_series(read_timeline(run.timeline_path), float(summary["dt_ms"]))


def runs_with_timeline(source: PlotSource) -> list[RunOutput]:
    """Per method, the first-repeat run at the largest rank count that has a timeline."""
    chosen = []
    for method in source.methods:
        candidates = [
            run
            for combination in source.combinations
            if combination.method == method
            for run in combination.runs
            if run.timeline_path.is_file()
        ]
        if candidates:
            chosen.append(max(candidates, key=lambda run: (run.ranks, -run.repeat)))
    return chosen


def figure_inches(panels: int) -> tuple[float, float]:
    """Size of the figure with ``panels`` panels (two columns from 3 panels on)."""
    columns = 1 if panels <= 2 else MAX_COLUMNS
    rows = math.ceil(panels / columns)
    width = PANEL_INCHES[0] * (1.0 if columns == 1 else 1.4)
    return width, PANEL_INCHES[1] * rows + 0.6


def figure_pixels(panels: int) -> tuple[int, int]:
    """Pixel size of the PNG with ``panels`` panels."""
    width, height = figure_inches(panels)
    return round(width * DPI), round(height * DPI)


def plot_intervals(source: PlotSource, outdir: Path) -> list[Path]:
    """Write ``intervals.png`` / ``.svg``; nothing when no run has ``timeline.h5``."""
    runs = runs_with_timeline(source)
    if not runs:
        return []
    columns = 1 if len(runs) <= 2 else MAX_COLUMNS
    rows = math.ceil(len(runs) / columns)
    figure, axes = new_figure(rows, columns, figure_inches(len(runs)), share_y=True)
    for index, run in enumerate(runs):
        _panel(axes[index // columns, index % columns], run, read_run_series(run))
    for index in range(len(runs), rows * columns):
        axes[index // columns, index % columns].set_visible(False)
    figure.suptitle(
        "Time per interval: computation rank 0 (thin), mean (thick), max (dashed); "
        "total on rank 0 (red) - cf. Hines et al. 2011, Figs. 5-8",
        fontsize=10,
    )
    figure.tight_layout(rect=(0, 0, 1, 0.96))
    return save_figure(figure, outdir, FIGURE_NAME)


def _panel(axis, run: RunOutput, series: dict[str, np.ndarray]) -> None:
    time_ms = series["time_ms"]
    lines = (
        ("comp_rank0_s", {"color": "black", "linewidth": 0.6}, "comp rank 0"),
        ("comp_mean_s", {"color": "black", "linewidth": 2.0}, "comp mean"),
        ("comp_max_s", {"color": "black", "linewidth": 0.8, "linestyle": "--"}, "comp max"),
        ("total_rank0_s", {"color": "red", "linewidth": 0.9}, "total rank 0"),
    )
    for name, style, label in lines:
        axis.plot(time_ms, series[name] * 1e3, label=f"{label} (sum {series[name].sum():.3g} s)",
                  **style)  # fmt: skip
    axis.set_title(f"{run.method}, {run.ranks} rank(s), {time_ms.size} (sub-)intervals", fontsize=9)
    axis.set_xlabel("simulated time (ms)")
    axis.set_ylabel("ms per interval")
    axis.set_ylim(bottom=0.0)
    axis.tick_params(labelleft=True)
    axis.legend(fontsize=7, loc="upper right")
