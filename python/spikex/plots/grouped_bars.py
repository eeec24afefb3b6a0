"""Bar positions grouped by method: one bar per rank count, a gap between methods.

Used by the breakdown and memory figures so that a comparison of many (method, ranks)
combinations stays readable: the tick under each bar is its rank count, and the method
label is written once, centred under its group (long labels broken at ':').
"""

from __future__ import annotations

import numpy as np

from .sources import Combination

GROUP_GAP = 0.8
MIN_SPAN = 4.0  # x range of at least this many bars, so that one bar is not a wall


def grouped_positions(
    combinations: list[Combination],
) -> tuple[np.ndarray, list[tuple[str, float]]]:
    """x position of each combination's bar, and ``(method, centre)`` of each group."""
    positions = []
    groups: list[tuple[str, list[float]]] = []
    x = 0.0
    for combination in combinations:
        if groups and groups[-1][0] != combination.method:
            x += GROUP_GAP
        if not groups or groups[-1][0] != combination.method:
            groups.append((combination.method, []))
        positions.append(x)
        groups[-1][1].append(x)
        x += 1.0
    centres = [(method, float(np.mean(xs))) for method, xs in groups]
    return np.asarray(positions), centres


def label_groups(axis, combinations: list[Combination], positions: np.ndarray, centres) -> None:
    """Rank counts as ticks, each method's label once under its group."""
    axis.set_xticks(positions, [str(c.ranks) for c in combinations], fontsize=7)
    for method, centre in centres:
        axis.text(
            centre, -0.07, method.replace(":", ":\n"), transform=axis.get_xaxis_transform(),
            ha="center", va="top", fontsize=7,
        )  # fmt: skip
    axis.set_xlabel("MPI ranks, grouped by method", fontsize=8, labelpad=26)
    low, high = float(positions.min()), float(positions.max())
    margin = max(1.0, (MIN_SPAN - (high - low)) / 2)
    axis.set_xlim(low - margin, high + margin)
