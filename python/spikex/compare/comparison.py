"""``spikex compare``: one network, every (method, rank count, repeat), same spikes?

A comparison is a sweep of runs of one configuration. Each run goes through exactly the
code path of ``spikex run`` (``run.plan_run`` then ``run.execute_run``) into its own
directory ``OUTDIR/runs/<method>/np<P>-r<k>``. Every run is planned (validated) before
the first starts, so a bad method, key or rank count costs nothing (exit status 2).

Runs are ordered repeat by repeat (all methods and rank counts once, then again), so a
slow drift of the machine spreads over all combinations instead of biasing one.

At the end the runs of the same network must all have the same ``spikes_sha256`` (the
contract: same network and seed, same spikes, whatever the method and rank count; see
``spikex.compare.spike_agreement``: one network, or one per rank count with ``--per-rank``).
``compare.json`` holds every run's numbers (``spikex.compare.run_metrics``), the median / min /
max / spread over repeats of each (method, ranks) combination, and the hash check.
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from ..config import KEYS, parse_override
from ..errors import ConfigError, RunError, UserInputError
from ..io.output import write_summary
from ..launch.launcher import Launcher, enclosing_job_size
from ..launch.run import RunPlan, execute_run, plan_run
from ..version import __version__
from .method_variants import METHOD_KEY, MethodVariant, parse_method_variants
from .run_metrics import METRICS, repeat_statistics, run_metrics
from .spike_agreement import mismatch_report, network_groups
from .spike_perturbation import drop_last_spike, drop_requested
from .sweep_progress import SweepProgress

COMPARE_FILE = "compare.json"
RUNS_DIRECTORY = "runs"


@dataclass(frozen=True)
class SweepRun:
    """One run of a comparison.

    Attributes
    ----------
    variant : MethodVariant
        Exchange method and its options.
    ranks : int
        MPI ranks.
    repeat : int
        1-based repeat index.
    plan : RunPlan
        The validated ``spikex run`` plan.
    """

    variant: MethodVariant
    ranks: int
    repeat: int
    plan: RunPlan

    @property
    def name(self) -> str:
        """``multisend:subintervals=2 np=4 r1``, as messages and compare.json name it."""
        return f"{self.variant.label} np={self.ranks} r{self.repeat}"


@dataclass(frozen=True)
class ComparePlan:
    """A validated comparison, ready to run.

    Attributes
    ----------
    config_path : Path
        The configuration file.
    variants : tuple of MethodVariant
        ``--methods``.
    ranks : tuple of int
        ``--np``.
    repeat : int
        ``--repeat``.
    overrides : tuple of str
        ``--set`` items (applied to every run).
    per_rank : tuple of str
        ``--per-rank`` items (``KEY=VALUE``, value multiplied by the rank count).
    outdir : Path
        Output directory of ``compare.json`` and ``runs/``.
    runs : tuple of SweepRun
        Every run in execution order.
    """

    config_path: Path
    variants: tuple[MethodVariant, ...]
    ranks: tuple[int, ...]
    repeat: int
    overrides: tuple[str, ...]
    per_rank: tuple[str, ...]
    outdir: Path
    runs: tuple[SweepRun, ...] = field(repr=False)

    def writes_here(self) -> bool:
        """This process writes compare.json and answers: always, except on the ranks
        other than 0 of an enclosing MPI job (launch mode b)."""
        if not any(run.plan.in_job for run in self.runs):
            return True
        from .. import _core

        return _core.comm_rank() == 0


DEFAULT_RANKS = "1,2,4"


def default_compare_outdir(config_path: Path) -> Path:
    """``./spikex-out/<config stem>-compare``."""
    return Path("spikex-out") / f"{Path(config_path).stem}-compare"


def parse_rank_list(text: str | list[int] | tuple[int, ...]) -> tuple[int, ...]:
    """``"1,2,4"`` -> ``(1, 2, 4)``; ConfigError naming ``--np`` otherwise."""
    if isinstance(text, str):
        try:
            values = [int(part) for part in text.split(",") if part.strip()]
        except ValueError:
            values = []
    else:
        values = list(text)
    if not values or any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in values):
        raise ConfigError("--np", text, "must be comma-separated integers >= 1, e.g. 1,2,4,8")
    if len(set(values)) != len(values):
        raise ConfigError("--np", text, "lists a rank count twice; list each once")
    return tuple(values)


def per_rank_overrides(per_rank: tuple[str, ...] | list[str], ranks: int) -> list[str]:
    """``network.cells=1024`` on 4 ranks -> ``network.cells=4096`` (weak scaling).

    Raises
    ------
    ConfigError
        Malformed item, unknown key, a key that is not an integer, or a value < 1.
    """
    overrides = []
    for text in per_rank:
        key, value = parse_override(text)
        if key not in KEYS or KEYS[key].kind != "int":
            integer_keys = ", ".join(path for path, item in KEYS.items() if item.kind == "int")
            raise ConfigError(
                "--per-rank", text, f"needs an integer configuration key, one of {integer_keys}"
            )
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError("--per-rank", text, "the value per rank must be an integer >= 1")
        overrides.append(f"{key}={value * ranks}")
    return overrides


def plan_comparison(
    config_path: Path,
    methods: str | list[str] | tuple[str, ...],
    ranks: str | list[int] | tuple[int, ...],
    repeat: int = 1,
    overrides: tuple[str, ...] | list[str] = (),
    per_rank: tuple[str, ...] | list[str] = (),
    outdir: Path | None = None,
    launcher: Launcher | None = None,
) -> ComparePlan:
    """Validate every run of a comparison without starting any.

    Raises
    ------
    ConfigError
        Invalid ``--methods``, ``--np``, ``--repeat``, ``--set``, ``--per-rank`` or any
        configuration key of any run (exit status 2).
    """
    config_path = Path(config_path)
    variants = parse_method_variants(methods)
    job = enclosing_job_size()
    # Inside an MPI job (mode b) every run has that job's ranks.
    rank_list = parse_rank_list(
        ranks if ranks is not None else (str(job) if job else DEFAULT_RANKS)
    )
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise ConfigError("--repeat", repeat, "must be an integer >= 1")
    for item in overrides:
        if parse_override(item)[0] == METHOD_KEY:
            raise ConfigError("--set", item, "compare takes the methods from --methods")
    outdir = Path(outdir) if outdir is not None else default_compare_outdir(config_path)
    if outdir.exists() and not outdir.is_dir():
        raise ConfigError("-o/--outdir", str(outdir), "exists and is not a directory")
    runs = []
    for repeat_index in range(1, repeat + 1):
        for variant in variants:
            for rank_count in rank_list:
                run_outdir = (
                    outdir / RUNS_DIRECTORY / variant.slug / f"np{rank_count}-r{repeat_index}"
                )
                sets = (
                    *overrides,
                    *per_rank_overrides(per_rank, rank_count),
                    *variant.run_overrides(),
                )
                plan = _plan_one(config_path, variant, rank_count, sets, run_outdir, launcher)
                runs.append(SweepRun(variant, rank_count, repeat_index, plan))
    return ComparePlan(
        config_path=config_path,
        variants=variants,
        ranks=rank_list,
        repeat=repeat,
        overrides=tuple(overrides),
        per_rank=tuple(per_rank),
        outdir=outdir,
        runs=tuple(runs),
    )


def _plan_one(
    config_path: Path, variant: MethodVariant, ranks: int, sets: tuple[str, ...], outdir: Path,
    launcher: Launcher | None,
) -> RunPlan:  # fmt: skip
    """``plan_run``; an error caused by a variant's option names the variant. The run
    directories are the comparison's own: a new sweep replaces the runs of the last one."""
    try:
        return plan_run(
            config_path, ranks=ranks, overrides=sets, outdir=outdir, launcher=launcher,
            overwrite=True,
        )  # fmt: skip
    except ConfigError as error:
        variant_keys = {item.partition("=")[0] for item in variant.overrides}
        if error.key not in variant_keys:
            raise
        subject = (error.key, error.value) if error.has_value else (error.key,)
        context = f"{error.allowed} (in --methods {variant.label}, --np {ranks})"
        raise ConfigError(*subject, allowed=context) from None


def execute_comparison(plan: ComparePlan, show_progress: bool | None = None) -> dict:
    """Run every run of the plan, check the spikes agree, write ``compare.json``.

    Parameters
    ----------
    plan : ComparePlan
        From ``plan_comparison``.
    show_progress : bool, optional
        Progress bar over the whole sweep on stderr; default: only on a terminal.

    Returns
    -------
    dict
        The content of ``compare.json`` (``spikes_agree`` says whether all hashes agree).

    Raises
    ------
    RunError
        A run failed (exit status 3); the message names the run.
    UserInputError
        The core rejected a run's configuration (exit status 2); the message names the run.
    """
    writer = plan.writes_here()
    if show_progress is None:
        show_progress = sys.stderr.isatty() and writer
    # compare.json describes the last complete sweep only.
    if writer:
        (plan.outdir / COMPARE_FILE).unlink(missing_ok=True)
    records = []
    start = time.perf_counter()
    with SweepProgress(len(plan.runs), show_progress) as progress:
        for run in plan.runs:
            progress.starting(run.name)
            records.append(_execute_one(run))
            progress.finished()
    comparison = build_comparison(plan, records)
    comparison["wall_seconds"] = time.perf_counter() - start
    if writer:
        plan.outdir.mkdir(parents=True, exist_ok=True)
        write_summary(plan.outdir / COMPARE_FILE, comparison)
    return comparison


def _execute_one(run: SweepRun) -> dict:
    try:
        summary = execute_run(run.plan, show_progress=False)
    except RunError as error:
        raise RunError(f"compare run {run.name} ({run.plan.outdir}): {error}") from None
    except UserInputError as error:
        raise UserInputError(f"compare run {run.name}: {error}") from None
    if drop_requested(run.variant.label, run.ranks, run.repeat):
        summary = drop_last_spike(run.plan.outdir, summary)  # TEST-ONLY perturbation
    return {"run": run, "summary": summary}


def build_comparison(plan: ComparePlan, records: list[dict]) -> dict:
    """The ``compare.json`` content from the finished runs (see module docstring)."""
    runs = [_run_entry(plan, record["run"], record["summary"]) for record in records]
    networks = network_groups(runs, [record["summary"].get("config") for record in records])
    first = records[0]["summary"] if records else {}
    return {
        "spikex_version": __version__,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "config_file": str(plan.config_path),
        "overrides": list(plan.overrides),
        "per_rank": list(plan.per_rank),
        "methods": [
            {"label": v.label, "method": v.method, "overrides": list(v.overrides)}
            for v in plan.variants
        ],
        "ranks": list(plan.ranks),
        "repeat": plan.repeat,
        "config": first.get("config"),
        "spikes_agree": all(network["spikes_agree"] for network in networks),
        "spikes_sha256": networks[0]["spikes_sha256"] if len(networks) == 1 else None,
        "networks": networks,
        "metrics": {metric.name: {"unit": metric.unit, "doc": metric.doc} for metric in METRICS},
        "combinations": _combinations(plan, runs),
        "runs": runs,
    }


def _run_entry(plan: ComparePlan, run: SweepRun, summary: dict) -> dict:
    try:
        outdir = str(run.plan.outdir.relative_to(plan.outdir))
    except ValueError:
        outdir = str(run.plan.outdir)
    entry = {
        "name": run.name,
        "method": run.variant.label,
        "exchange_method": run.variant.method,
        "ranks": run.ranks,
        "repeat": run.repeat,
        "outdir": outdir,
        "cells": summary.get("cells"),
        "connections": summary.get("connections"),
        "spikes_total": summary.get("spikes_total"),
        "spikes_sha256": summary.get("spikes_sha256"),
        "timeline": bool(summary.get("timeline")),
        "metrics": run_metrics(summary),
        "memory_bytes": summary.get("memory_bytes", {}),
    }
    if summary.get("test_dropped_spikes"):
        entry["test_dropped_spikes"] = summary["test_dropped_spikes"]
    return entry


def _combinations(plan: ComparePlan, runs: list[dict]) -> list[dict]:
    by_key = defaultdict(list)
    for run in runs:
        by_key[(run["method"], run["ranks"])].append(run)
    combinations = []
    for variant in plan.variants:
        for ranks in plan.ranks:
            group = by_key.get((variant.label, ranks), [])
            if not group:
                continue
            combinations.append(
                {
                    "method": variant.label,
                    "exchange_method": variant.method,
                    "ranks": ranks,
                    "cells": group[0]["cells"],
                    "connections": group[0]["connections"],
                    "runs": [run["name"] for run in group],
                    "metrics": {
                        metric.name: repeat_statistics(
                            [run["metrics"][metric.name] for run in group]
                        )
                        for metric in METRICS
                    },
                }
            )
    return combinations


def compare_command(
    config_path: Path,
    methods: str,
    ranks: str,
    repeat: int,
    overrides: tuple[str, ...],
    per_rank: tuple[str, ...],
    outdir: Path | None,
    launcher: Launcher | None = None,
) -> int:
    """``spikex compare``: plan, run, print the table; 0 if all spikes agree, else 1."""
    from rich.console import Console

    from .table import comparison_table

    plan = plan_comparison(
        config_path, methods, ranks, repeat=repeat, overrides=overrides, per_rank=per_rank,
        outdir=outdir, launcher=launcher,
    )  # fmt: skip
    comparison = execute_comparison(plan)
    if not plan.writes_here():
        return 0 if comparison["spikes_agree"] else 1  # rank 0 of the job answers
    console = Console()
    if not console.is_terminal or plan.runs[0].plan.in_job:
        # Off a terminal rich assumes 80 columns; mpiexec's pseudo-terminal is not the user's.
        console = Console(width=200, color_system=None)
    console.print(comparison_table(comparison))
    console.print(f"compare.json: {plan.outdir / COMPARE_FILE}", markup=False, highlight=False)
    report = mismatch_report(comparison["networks"])
    if not report:
        return 0
    errors = Console(stderr=True)
    for line in report:
        errors.print(line, style="bold red", markup=False, highlight=False, soft_wrap=True)
    return 1
