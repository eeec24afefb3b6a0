"""What ``spikex plot`` reads: a run directory or a comparison directory, as one shape.

A run directory has ``summary.json`` (and ``spikes.h5``, maybe ``timeline.h5``); a
comparison directory has ``compare.json`` and the run directories it names. Both become a
``PlotSource``: a list of (method, ranks) combinations with their statistics
(``spikex.compare.run_metrics``) and run directories, so every figure is written once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..compare.comparison import COMPARE_FILE
from ..compare.run_metrics import METRICS, repeat_statistics, run_metrics
from ..errors import ConfigError
from ..io.output import SPIKES_FILE, SUMMARY_FILE
from ..io.timeline import TIMELINE_FILE


@dataclass(frozen=True)
class RunOutput:
    """One run directory.

    Attributes
    ----------
    directory : Path
        The run's output directory.
    method : str
        Method (variant) label.
    ranks : int
        MPI ranks.
    repeat : int
        1-based repeat index (1 for a single run).
    memory_bytes : dict
        ``summary.json`` ``memory_bytes`` (structure -> {max, mean}).
    """

    directory: Path
    method: str
    ranks: int
    repeat: int
    memory_bytes: dict

    @property
    def spikes_path(self) -> Path:
        """``spikes.h5`` of the run."""
        return self.directory / SPIKES_FILE

    @property
    def timeline_path(self) -> Path:
        """``timeline.h5`` of the run (exists only with ``record.timeline = true``)."""
        return self.directory / TIMELINE_FILE

    def summary(self) -> dict:
        """The run's ``summary.json``."""
        return json.loads((self.directory / SUMMARY_FILE).read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Combination:
    """One (method, ranks) cell of a comparison, over its repeats.

    Attributes
    ----------
    method : str
        Method (variant) label.
    ranks : int
        MPI ranks.
    cells : int
        Network size of these runs.
    statistics : dict
        Metric name -> ``repeat_statistics`` (median, min, max, spread, count).
    runs : tuple of RunOutput
        Its runs, repeat 1 first.
    """

    method: str
    ranks: int
    cells: int
    statistics: dict
    runs: tuple[RunOutput, ...]


@dataclass(frozen=True)
class PlotSource:
    """Everything the figures need from one output directory.

    Attributes
    ----------
    directory : Path
        The directory given to ``spikex plot``.
    kind : str
        ``"run"`` or ``"compare"``.
    combinations : tuple of Combination
        In method order, then rank order.
    weak_scaling : bool
        The comparison scaled the network with the rank count (``--per-rank``).
    config : dict
        Resolved configuration of the (first) run.
    """

    directory: Path
    kind: str
    combinations: tuple[Combination, ...]
    weak_scaling: bool
    config: dict

    @property
    def methods(self) -> list[str]:
        """Method labels in order of first appearance."""
        return list(dict.fromkeys(combination.method for combination in self.combinations))

    @property
    def first_run(self) -> RunOutput:
        """The first run (its spikes stand for all: every run has the same)."""
        return self.combinations[0].runs[0]


def load_plot_source(directory: Path) -> PlotSource:
    """Read a run or comparison directory.

    Raises
    ------
    ConfigError
        The directory has neither ``summary.json`` nor ``compare.json`` (exit status 2).
    """
    directory = Path(directory)
    if (directory / COMPARE_FILE).is_file():
        return _comparison_source(directory)
    if (directory / SUMMARY_FILE).is_file():
        return _run_source(directory)
    raise ConfigError(
        "DIRECTORY",
        str(directory),
        f"has neither {SUMMARY_FILE} (output of spikex run) nor {COMPARE_FILE} "
        "(output of spikex compare)",
    )


def _run_source(directory: Path) -> PlotSource:
    summary = json.loads((directory / SUMMARY_FILE).read_text(encoding="utf-8"))
    metrics = run_metrics(summary)
    run = RunOutput(
        directory=directory,
        method=str(summary.get("method", "?")),
        ranks=int(summary.get("ranks", 1)),
        repeat=1,
        memory_bytes=summary.get("memory_bytes", {}),
    )
    combination = Combination(
        method=run.method,
        ranks=run.ranks,
        cells=int(summary.get("cells", 0)),
        statistics={metric.name: repeat_statistics([metrics[metric.name]]) for metric in METRICS},
        runs=(run,),
    )
    return PlotSource(directory, "run", (combination,), False, summary.get("config") or {})


def _comparison_source(directory: Path) -> PlotSource:
    comparison = json.loads((directory / COMPARE_FILE).read_text(encoding="utf-8"))
    runs = {}
    for entry in comparison["runs"]:
        run_directory = Path(entry["outdir"])
        if not run_directory.is_absolute():
            run_directory = directory / run_directory
        runs[entry["name"]] = RunOutput(
            directory=run_directory,
            method=entry["method"],
            ranks=int(entry["ranks"]),
            repeat=int(entry["repeat"]),
            memory_bytes=entry.get("memory_bytes", {}),
        )
    combinations = tuple(
        Combination(
            method=item["method"],
            ranks=int(item["ranks"]),
            cells=int(item.get("cells") or 0),
            statistics=item["metrics"],
            runs=tuple(sorted((runs[name] for name in item["runs"]), key=lambda r: r.repeat)),
        )
        for item in comparison["combinations"]
    )
    return PlotSource(
        directory,
        "compare",
        combinations,
        bool(comparison.get("per_rank")),
        comparison.get("config") or {},
    )
