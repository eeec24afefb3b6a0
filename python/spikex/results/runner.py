"""Run the papers' experiments: every sweep of the manifest through ``spikex compare``.

Each sweep runs through ``spikex.compare.comparison`` (the code path of ``spikex compare`` and so
of ``spikex run``) into ``WORKDIR/<sweep key>``, is plotted by ``spikex.plots`` and its
chosen figures are copied as PNG into the documentation's figure directory. A sweep that
fails (a run error, an invalid configuration) is recorded with its message and the
others go on: the report says what failed instead of stopping.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..compare.comparison import COMPARE_FILE, execute_comparison, plan_comparison
from ..errors import RunError
from ..plots import plot_directory
from .experiments import Experiment, Sweep


@dataclass
class SweepResult:
    """What one sweep produced.

    Attributes
    ----------
    sweep : Sweep
        The sweep.
    outdir : Path
        Its comparison directory.
    comparison : dict or None
        ``compare.json`` content; None when it failed.
    error : str
        Why it failed ("" otherwise).
    figures : dict
        Figure name -> PNG path under the documentation's figure directory.
    seconds : float
        Wall-clock time of the sweep.
    """

    sweep: Sweep
    outdir: Path
    comparison: dict | None = None
    error: str = ""
    figures: dict[str, Path] = field(default_factory=dict)
    seconds: float = 0.0


def run_experiment(
    experiment: Experiment, workdir: Path, figure_dir: Path, log=sys.stderr
) -> list[SweepResult]:
    """Run, plot and collect every sweep of one experiment."""
    results = []
    for sweep in experiment.sweeps:
        outdir = workdir / sweep.key
        print(f"results: {sweep.key}: {sweep.command_line(outdir)}", file=log, flush=True)
        result = SweepResult(sweep=sweep, outdir=outdir)
        start = time.perf_counter()
        try:
            plan = plan_comparison(
                sweep.config, sweep.methods, sweep.ranks, repeat=sweep.repeat,
                overrides=sweep.overrides, per_rank=sweep.per_rank, outdir=outdir,
            )  # fmt: skip
            result.comparison = execute_comparison(plan)
        except (ValueError, RunError) as error:
            result.error = " ".join(str(error).split())
            print(f"results: {sweep.key} FAILED: {result.error}", file=log, flush=True)
        result.seconds = time.perf_counter() - start
        if result.comparison is not None and _figures_wanted(experiment, sweep):
            result.figures = _collect_figures(experiment, sweep, outdir, figure_dir)
        results.append(result)
    return results


def load_experiment(experiment: Experiment, workdir: Path, figure_dir: Path) -> list[SweepResult]:
    """The results of an earlier ``run_experiment`` from its ``compare.json`` files.

    A sweep without ``compare.json`` is reported as not run. Figures are plotted again.
    """
    results = []
    for sweep in experiment.sweeps:
        outdir = workdir / sweep.key
        result = SweepResult(sweep=sweep, outdir=outdir)
        try:
            result.comparison = json.loads((outdir / COMPARE_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            result.error = f"not run (no readable {outdir / COMPARE_FILE}: {error})"
        else:
            result.seconds = float(result.comparison.get("wall_seconds", 0.0))
        if result.comparison is not None and _figures_wanted(experiment, sweep):
            result.figures = _collect_figures(experiment, sweep, outdir, figure_dir)
        results.append(result)
    return results


def _figures_wanted(experiment: Experiment, sweep: Sweep) -> bool:
    return not experiment.figure_variants or sweep.variant in experiment.figure_variants


def _collect_figures(
    experiment: Experiment, sweep: Sweep, outdir: Path, figure_dir: Path
) -> dict[str, Path]:
    written, _ = plot_directory(outdir)
    figures = {}
    figure_dir.mkdir(parents=True, exist_ok=True)
    for path in written:
        if path.suffix == ".png" and path.stem in experiment.figures:
            target = figure_dir / f"{sweep.key}-{path.stem}.png"
            shutil.copyfile(path, target)
            figures[path.stem] = target
    return figures
