"""Where the run time went, per phase, per method and rank count: Jordan et al. 2018, Fig. 12.

NEST's Figure 12 splits the simulation time into neuron update, collocation of the send
buffer, MPI communication and delivery. spikex measures (``summary.json`` ``time_s`` and
``computation_s``) computation inside the intervals (stepping cells and delivering
spikes; for point-to-point methods also sending), waiting for the slowest rank and the
exchange itself. One stacked bar per (method, ranks):

* computation: mean over ranks,
* wait and exchange: maximum over ranks,
* other: what remains of the run time (loop overhead; 0 when the maxima of different
  ranks add up to more than the run time),

and a black tick at the run time (maximum over ranks). Medians over repeats.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .figure_files import new_figure, save_figure
from .grouped_bars import grouped_positions, label_groups
from .sources import Combination, PlotSource

FIGURE_NAME = "breakdown"
SEGMENTS = (
    ("computation (mean)", "tab:red"),
    ("wait (max)", "tab:purple"),
    ("exchange (max)", "tab:green"),
    ("other", "lightgrey"),
)


def phase_seconds(combination: Combination) -> dict[str, float]:
    """The stacked segments of one bar and its run time, in seconds (medians)."""
    statistics = combination.statistics

    def median(name: str) -> float:
        value = statistics.get(name, {}).get("median")
        return float(value) if value is not None else 0.0

    computation = median("comp_mean_s") or median("comp_max_s")
    wait, exchange, run = median("wait_s"), median("exchange_s"), median("run_s")
    other = max(run - computation - wait - exchange, 0.0)
    return {
        "computation (mean)": computation,
        "wait (max)": wait,
        "exchange (max)": exchange,
        "other": other,
        "run": run,
    }


def plot_breakdown(source: PlotSource, outdir: Path) -> list[Path]:
    """Write ``breakdown.png`` / ``.svg``; returns the paths."""
    combinations = list(source.combinations)
    phases = [phase_seconds(combination) for combination in combinations]
    positions, centres = grouped_positions(combinations)
    figure, axes = new_figure()
    axis = axes[0, 0]
    bottom = np.zeros(len(combinations))
    for name, colour in SEGMENTS:
        heights = np.array([phase[name] for phase in phases])
        axis.bar(positions, heights, bottom=bottom, color=colour, label=name, width=0.7)
        bottom += heights
    axis.scatter(positions, [phase["run"] for phase in phases], marker="_", s=400,
                 color="black", label="run time", zorder=3)  # fmt: skip
    label_groups(axis, combinations, positions, centres)
    axis.set_ylabel("seconds")
    axis.set_title("Run time by phase - cf. Jordan et al. 2018, Fig. 12")
    axis.legend(fontsize=8)
    figure.subplots_adjust(bottom=0.2)
    return save_figure(figure, outdir, FIGURE_NAME)
