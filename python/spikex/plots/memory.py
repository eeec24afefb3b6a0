"""Memory per data structure (``summary.json`` ``memory_bytes``): cf. Jordan et al. 2018, Fig. 4B/7D.

Left: one stacked bar per (method, ranks) of the bytes each data structure holds on one
rank (mean over ranks; container capacities, as the core reports them), in MiB. Right:
peak resident memory of the largest rank (MB), which also holds Python, MPI and the
libraries. First repeat of each combination (memory does not change between repeats).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..compare.run_metrics import MEBIBYTE
from .figure_files import new_figure, save_figure
from .grouped_bars import grouped_positions, label_groups
from .sources import PlotSource

FIGURE_NAME = "memory"


def structure_names(source: PlotSource) -> list[str]:
    """Every structure any run reports, sorted."""
    names = set()
    for combination in source.combinations:
        names.update(combination.runs[0].memory_bytes)
    return sorted(names)


def plot_memory(source: PlotSource, outdir: Path) -> list[Path]:
    """Write ``memory.png`` / ``.svg``; nothing when no run reports ``memory_bytes``."""
    names = structure_names(source)
    if not names:
        return []
    combinations = list(source.combinations)
    positions, centres = grouped_positions(combinations)
    figure, axes = new_figure(1, 2)
    left, right = axes[0, 0], axes[0, 1]
    bottom = np.zeros(len(combinations))
    for index, name in enumerate(names):
        heights = np.array(
            [c.runs[0].memory_bytes.get(name, {}).get("mean", 0.0) / MEBIBYTE for c in combinations]
        )
        left.bar(positions, heights, bottom=bottom, label=name, color=f"C{index % 10}", width=0.7)
        bottom += heights
    label_groups(left, combinations, positions, centres)
    left.set_ylabel("MiB per rank (mean over ranks)")
    left.set_title("Data structures per rank", fontsize=10)
    left.legend(fontsize=7, loc="best", framealpha=0.9)
    rss = [c.statistics.get("peak_rss_mb", {}).get("median") or 0.0 for c in combinations]
    right.bar(positions, rss, color="grey", width=0.7)
    label_groups(right, combinations, positions, centres)
    right.set_ylabel("MB")
    right.set_title("Peak resident memory, largest rank", fontsize=10)
    figure.suptitle("Memory - cf. Jordan et al. 2018, Figs. 4B and 7D", fontsize=11)
    figure.subplots_adjust(bottom=0.2, wspace=0.3)
    return save_figure(figure, outdir, FIGURE_NAME)
