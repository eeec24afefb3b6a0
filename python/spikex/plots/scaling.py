"""Run time against rank count, one line per method: Hines et al. 2011, Figure 4.

Solid lines with markers: run time (median over repeats; bars from min to max). Dashed
lines in the same colour: computation time of rank 0 (the paper's "Comp"). The dotted grey
line is ideal scaling from the first method's smallest rank count: time / P for a strong
scaling sweep, constant for a weak one (``--per-rank``). Only for comparisons with more
than one rank count.
"""

from __future__ import annotations

from pathlib import Path

from .figure_files import new_figure, save_figure
from .sources import PlotSource

FIGURE_NAME = "scaling"


def plot_scaling(source: PlotSource, outdir: Path) -> list[Path]:
    """Write ``scaling.png`` / ``.svg``; nothing for a single rank count."""
    rank_counts = sorted({combination.ranks for combination in source.combinations})
    if len(rank_counts) < 2:
        return []
    figure, axes = new_figure()
    axis = axes[0, 0]
    cycle = [f"C{index}" for index in range(10)]
    for index, method in enumerate(source.methods):
        colour = cycle[index % len(cycle)]
        points = sorted(
            (c for c in source.combinations if c.method == method), key=lambda c: c.ranks
        )
        ranks = [c.ranks for c in points]
        run = [c.statistics["run_s"] for c in points]
        medians = [s["median"] for s in run]
        errors = [
            [s["median"] - s["min"] for s in run],
            [s["max"] - s["median"] for s in run],
        ]
        axis.errorbar(ranks, medians, yerr=errors, marker="o", color=colour, label=f"{method} run",
                      capsize=3)  # fmt: skip
        comp = [c.statistics["comp_rank0_s"]["median"] for c in points]
        if all(value is not None for value in comp):
            axis.plot(ranks, comp, linestyle="--", marker=".", color=colour,
                      label=f"{method} comp rank 0")  # fmt: skip
    _ideal(axis, source, rank_counts)
    axis.set_xscale("log", base=2)
    axis.set_yscale("log")
    axis.set_xticks(rank_counts, [str(p) for p in rank_counts])
    axis.set_xlabel("MPI ranks")
    axis.set_ylabel("seconds")
    kind = "weak" if source.weak_scaling else "strong"
    axis.set_title(f"Run time against ranks ({kind} scaling) - cf. Hines et al. 2011, Fig. 4")
    axis.legend(fontsize=7, ncol=2)
    axis.grid(True, which="both", alpha=0.3)
    return save_figure(figure, outdir, FIGURE_NAME)


def _ideal(axis, source: PlotSource, rank_counts: list[int]) -> None:
    first = min(
        (c for c in source.combinations if c.method == source.methods[0]), key=lambda c: c.ranks
    )
    start = first.statistics["run_s"]["median"]
    if start is None:
        return
    if source.weak_scaling:
        ideal = [start for _ in rank_counts]
    else:
        ideal = [start * first.ranks / ranks for ranks in rank_counts]
    axis.plot(rank_counts, ideal, linestyle=":", color="grey", label="ideal")
