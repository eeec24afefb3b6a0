"""``spikex plot``: the papers' figures from a run's or a comparison's output directory.

=============  ===========================================================  ==============
file           what                                                         needs
=============  ===========================================================  ==============
raster         spike raster of 256 cells (Hines 2011 Figs. 3, 9)            spikes.h5
intervals      computation / total time per interval (Hines Figs. 5-8)      timeline.h5
scaling        run time against ranks per method (Hines Fig. 4)             a comparison
breakdown      run time by phase per method and ranks (Jordan Fig. 12)      summary.json
memory         bytes per data structure, peak RSS (Jordan Figs. 4B, 7D)     summary.json
=============  ===========================================================  ==============

Each figure is written as PNG and SVG into the output directory (default
``DIRECTORY/plots``). A figure whose input is missing is skipped with a note.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .breakdown import plot_breakdown
from .intervals import plot_intervals
from .memory import plot_memory
from .raster import plot_raster
from .scaling import plot_scaling
from .sources import PlotSource, load_plot_source

PLOTS_DIRECTORY = "plots"


def plot_directory(directory: Path, outdir: Path | None = None) -> tuple[list[Path], list[str]]:
    """Write every figure that the directory's content allows.

    Parameters
    ----------
    directory : Path
        A run directory (``summary.json``) or a comparison directory (``compare.json``).
    outdir : Path, optional
        Where to write; default ``directory/plots``.

    Returns
    -------
    (list of Path, list of str)
        Files written, and one note per figure skipped (with the reason).

    Raises
    ------
    ConfigError
        ``directory`` is neither kind of output (exit status 2).
    """
    source = load_plot_source(directory)
    outdir = Path(outdir) if outdir is not None else Path(directory) / PLOTS_DIRECTORY
    written: list[Path] = []
    notes: list[str] = []
    if source.first_run.spikes_path.is_file():
        written += plot_raster(source, outdir)
    else:
        notes.append(f"raster: skipped, no {source.first_run.spikes_path}")
    intervals = plot_intervals(source, outdir)
    written += intervals
    if not intervals:
        notes.append(
            "intervals: skipped, no run has timeline.h5 (run with --set record.timeline=true)"
        )
    scaling = plot_scaling(source, outdir)
    written += scaling
    if not scaling and source.kind == "compare":
        notes.append("scaling: skipped, the comparison has a single rank count")
    written += plot_breakdown(source, outdir)
    memory = plot_memory(source, outdir)
    written += memory
    if not memory:
        notes.append("memory: skipped, no run reports memory_bytes")
    return written, notes


def plot_command(directory: Path, outdir: Path | None) -> int:
    """``spikex plot``: write the figures, print their paths (stdout) and notes (stderr)."""
    written, notes = plot_directory(directory, outdir)
    for path in written:
        print(path)
    for note in notes:
        print(f"spikex plot: {note}", file=sys.stderr)
    return 0


__all__ = ["PlotSource", "load_plot_source", "plot_command", "plot_directory"]
