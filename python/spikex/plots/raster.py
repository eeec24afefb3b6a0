"""Spike raster of a run: Hines et al. 2011, Figure 3 (uniform firing) and Figure 9 (bursts).

Figure 3 shows 256 cells; so does this one. Without bursts they are the first 256 gids.
With burst groups (contiguous gids) the 256 cells are spread evenly over all gids, so
that every group appears, bursting in turn as in Figure 9.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..io.output import read_sonata_spikes
from .figure_files import new_figure, save_figure
from .sources import PlotSource

RASTER_CELLS = 256
FIGURE_NAME = "raster"


def shown_cells(cells: int, burst_groups: int, count: int = RASTER_CELLS) -> np.ndarray:
    """Gids shown: the first ``count``, or ``count`` spread evenly when there are bursts."""
    if cells <= count:
        return np.arange(cells)
    if burst_groups > 0:
        return np.unique(np.linspace(0, cells - 1, count).round().astype(np.int64))
    return np.arange(count)


def plot_raster(source: PlotSource, outdir: Path) -> list[Path]:
    """Write ``raster.png`` / ``.svg`` of the source's first run; returns the paths."""
    run = source.first_run
    summary = run.summary()
    config = summary.get("config") or {}
    network = config.get("network", {})
    cells = int(summary.get("cells", network.get("cells", 0)))
    groups = int(network.get("burst", {}).get("groups", 0))
    tstop_ms = float(summary.get("simulated_ms", config.get("simulation", {}).get("tstop_ms", 0)))
    gids, times_ms = read_sonata_spikes(run.spikes_path)
    shown = shown_cells(cells, groups)
    row_of_gid = np.full(max(cells, 1), -1, dtype=np.int64)
    row_of_gid[shown] = np.arange(shown.size)
    rows = row_of_gid[gids.astype(np.int64)] if gids.size else np.empty(0, dtype=np.int64)
    visible = rows >= 0
    figure, axes = new_figure()
    axis = axes[0, 0]
    axis.scatter(times_ms[visible], rows[visible], s=4.0, marker=".", color="black", linewidths=0)
    axis.set_xlim(0.0, max(tstop_ms, 1e-9))
    axis.set_ylim(-1, shown.size)
    axis.set_xlabel("time (ms)")
    if groups > 0 and cells > RASTER_CELLS:
        axis.set_ylabel(f"cell ({shown.size} of {cells}, evenly spaced gids)")
        reference = f"{groups} burst groups; cf. Hines et al. 2011, Fig. 9"
    else:
        axis.set_ylabel("cell (gid)")
        reference = "cf. Hines et al. 2011, Fig. 3" if groups == 0 else "cf. Fig. 9"
    axis.set_title(
        f"Spike raster, {shown.size} of {cells} cells, {run.method} on {run.ranks} rank(s) "
        f"({reference})"
    )
    return save_figure(figure, outdir, FIGURE_NAME)
