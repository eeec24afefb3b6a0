"""The parent side of ``spikex run``: validate, launch the ranks, watch, report.

Everything that can be checked is checked here, before any process is started or any
file is written. Then the worker (``spikex.launch.worker``) runs on P ranks, directly for
P = 1 and under ``mpiexec`` otherwise, with a private work directory next to the
output directory. The work directory is removed whatever happens.

An output directory holding a run's results (``summary.json`` or ``spikes.h5``) is not
replaced without a word: an explicit ``-o DIR`` is refused (exit 2) unless ``overwrite``;
the default ``spikex-out/<config stem>`` is renamed ``<outdir>.previous-<N>`` first (so
that repeated runs into the default directory go on working and lose nothing); with
``overwrite`` the old files are removed.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..api.run_control import STOPPED_EXIT_STATUS
from ..config import get, resolved_config
from ..errors import ConfigError, RunError, UserInputError
from ..io.checkpoint import DEFAULT_DIR_NAME, LATEST_FILE
from ..io.output import SPIKES_FILE, STATE_FILE, SUMMARY_FILE
from ..io.timeline import TIMELINE_FILE
from .failures import CONFIG_ERROR_FILE, RANK_ERROR_GLOB, WORKER_LOG, job_failure
from .job import run_job, stop_job
from .launcher import (
    Launcher,
    child_environment,
    enclosing_job_size,
    mpiexec_command,
    require_connected_job,
    worker_command,
)
from ..runtime.allocation import thread_limit_problem
from .progress import DEFAULT_LINE_SECONDS, ProgressSample, progress_reporter
from .spike_output import SpikeOutput
from .worker import PROGRESS_FILE, STOP_REQUEST_FILE

POLL_SECONDS = 0.2
# Files whose presence means a directory holds the results of a run.
RESULT_FILES = (SUMMARY_FILE, SPIKES_FILE)
PREVIOUS_SUFFIX = ".previous-"
# After a rank reported an error: how long the launcher may take to end the job itself.
ERROR_GRACE_SECONDS = 5.0


@dataclass(frozen=True)
class RunPlan:
    """A validated run, ready to launch.

    Attributes
    ----------
    config : dict
        Resolved, validated configuration.
    ranks : int
        Number of MPI ranks.
    outdir : Path
        Output directory (created at the end of a successful run).
    in_job : bool
        This process is one rank of an MPI job someone else launched (``mpiexec``,
        ``srun``): it runs as that rank, SPMD, and launches nothing.
    launcher : Launcher
        How the ranks are started otherwise (mode a: mpiexec here; mode c: the user's).
    overwrite : bool
        Results of an earlier run in ``outdir`` are removed; otherwise they are kept in
        ``<outdir>.previous-<N>`` (``plan_run`` refuses an explicit ``-o`` holding them).
    """

    config: dict
    ranks: int
    outdir: Path
    in_job: bool = False
    launcher: Launcher = field(default_factory=Launcher)
    overwrite: bool = False
    resume: Path | None = None  # a verified checkpoint to go on from
    continues: bool = False  # resuming into the checkpoint's own OUTDIR: its files stay until replaced
    stop_at: float | None = None  # time.time() at which the run stops with a checkpoint

    @property
    def tstop_ms(self) -> float:
        """Simulated time of the run."""
        return get(self.config, "simulation.tstop_ms")


def default_outdir(config_path: Path) -> Path:
    """``./spikex-out/<config stem>``; for a SONATA simulation config (``.json``) its
    ``output.output_dir`` when it names one (as BMTK writes there)."""
    if Path(config_path).suffix.lower() == ".json":
        from ..sonata.config import load_config as load_sonata

        output_dir = load_sonata(config_path).output.get("output_dir")
        if output_dir:
            return Path(output_dir)
    return Path("spikex-out") / Path(config_path).stem


def plan_run(
    config_path: Path,
    ranks: int | None = 1,
    threads: int | None = None,
    overrides: tuple[str, ...] | list[str] = (),
    outdir: Path | None = None,
    launcher: Launcher | None = None,
    overwrite: bool = False,
    resume: Path | None = None,
    stop_after_s: float | None = None,
) -> RunPlan:
    """Validate everything about a run without starting it.

    With ``resume`` (a checkpoint, or a directory of them) the configuration is the
    checkpoint's, with ``overrides`` that may change only the layout, tstop_ms and
    checkpointing (``config.checkpoint.RESUMABLE``); the checkpoint's files are verified
    here (``CheckpointError``, exit status 2); ``outdir`` defaults to the checkpoint's
    run's, whose partial results the run continues. ``stop_after_s``: wall-clock seconds
    after which the run stops with a checkpoint (``--stop-after``).

    ``outdir=None`` is the default ``spikex-out/<config stem>``, whose earlier results are
    kept in ``<outdir>.previous-<N>`` when the run starts. A given ``outdir`` that holds
    results is refused unless ``overwrite`` (callers that reuse their own directories on
    purpose, like ``compare`` and ``demo``, pass it).

    Raises
    ------
    ConfigError
        Invalid configuration, override, rank or thread count, or a launcher, hostfile
        or allocation that cannot hold the ranks (exit status 2).
    UserInputError
        ``outdir`` was given and holds the results of a run, without ``overwrite``
        (exit status 2).
    """
    launcher = launcher or Launcher()
    job = enclosing_job_size()
    ranks = check_ranks(ranks, launcher, job)
    if threads is not None:
        if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= 1024:
            raise ConfigError("--threads", threads, "must be an integer between 1 and 1024")
        overrides = (*overrides, f"simulation.threads={threads}")
    checkpoint = None
    if resume is not None:
        from ..api.checkpointing import resumed_config
        from ..io.checkpoint import open_checkpoint
        from ..version import __version__

        checkpoint = open_checkpoint(resume, __version__)
        config = resumed_config(checkpoint, tuple(overrides), ranks=ranks)
        tstop, reached = get(config, "simulation.tstop_ms"), float(checkpoint.manifest["time_ms"])
        if tstop < reached:
            raise ConfigError(
                "simulation.tstop_ms",
                tstop,
                f"is earlier than the checkpoint's time, {reached:g} ms ({checkpoint.path}): "
                f"a resume runs on to tstop_ms >= {reached:g}",
            )
    else:
        config = resolved_config(config_path, tuple(overrides), ranks=ranks)
    problem = thread_limit_problem(_threads(config))
    if problem:
        raise ConfigError("simulation.threads", _threads(config), problem)
    given = outdir is not None
    if given:
        outdir = Path(outdir)
    elif checkpoint is not None:
        outdir = Path(checkpoint.manifest["spikes"].get("outdir") or default_outdir(Path("resumed")))
    else:
        outdir = default_outdir(config_path)
    if outdir.exists() and not outdir.is_dir():
        raise ConfigError("-o/--outdir", str(outdir), "exists and is not a directory")
    continues = checkpoint is not None and outdir.absolute() == Path(
        checkpoint.manifest["spikes"].get("outdir", "")
    ).absolute()
    held = [] if continues else results_in(outdir)
    if given and held and not overwrite:
        raise UserInputError(
            f"output directory {outdir} already holds the results of a run "
            f"({', '.join(held)}); give --overwrite to replace them, or another -o"
        )
    directory = get(config, "checkpoint.dir")
    if checkpoint is None and directory and (Path(directory) / LATEST_FILE).exists() and not overwrite:
        raise UserInputError(
            f"checkpoint.dir {directory} holds the checkpoints of an earlier run: resume it with "
            "--resume, give --overwrite to start anew, or choose another checkpoint.dir"
        )
    stop_at = None if stop_after_s is None else time.time() + stop_after_s
    return RunPlan(
        config=config, ranks=ranks, outdir=outdir, in_job=job is not None, launcher=launcher,
        overwrite=overwrite and not continues, resume=checkpoint.path if checkpoint else None,
        continues=continues, stop_at=stop_at,
    )  # fmt: skip


def results_in(outdir: Path) -> list[str]:
    """The result files (``RESULT_FILES``) in ``outdir``, and checkpoints or a partial
    spike file of a run that was stopped or killed: non-empty when it holds a run's
    results."""
    outdir = Path(outdir)
    held = [name for name in RESULT_FILES if (outdir / name).exists()]
    if (outdir / DEFAULT_DIR_NAME / LATEST_FILE).exists():
        held.append(f"{DEFAULT_DIR_NAME}/ (resume them with --resume)")
    if (outdir / SpikeOutput.LOG).exists():
        held.append(SpikeOutput.LOG)
    return held


def previous_results_name(outdir: Path) -> Path:
    """``<outdir>.previous-<N>`` with the smallest N >= 1 not taken."""
    number = 1
    while True:
        candidate = outdir.with_name(f"{outdir.name}{PREVIOUS_SUFFIX}{number}")
        if not os.path.lexists(candidate):
            return candidate
        number += 1


def check_ranks(ranks: int | None, launcher: Launcher, job: int | None) -> int:
    """The job's rank count: ``ranks`` (default 1), or the enclosing job's size in mode
    (b), checked against the launcher, its hostfile and the allocation.

    Raises
    ------
    ConfigError
        Naming the option, its value and what is allowed (exit status 2).
    """
    if job is not None:
        if ranks is not None and ranks != job:
            raise ConfigError(
                "--np", ranks,
                f"this process is one of the {job} ranks of an MPI job started by mpiexec, srun or "
                f"another launcher, so the job has {job}: leave --np out or give {job}",
            )  # fmt: skip
        if not launcher.is_default:
            option = (
                "--hostfile"
                if launcher.hostfile is not None and not launcher.words
                else "--launcher"
            )
            raise ConfigError(
                option, launcher.description if option == "--launcher" else str(launcher.hostfile),
                f"this process is already one of the {job} ranks of an MPI job, which launches "
                "nothing more: leave the launcher options out",
            )  # fmt: skip
        return job
    ranks = 1 if ranks is None else ranks
    if isinstance(ranks, bool) or not isinstance(ranks, int) or ranks < 1:
        raise ConfigError("--np", ranks, "must be an integer >= 1")
    if ranks > 1 or not launcher.is_default:
        problem = launcher.problem(ranks)
        if problem is not None:
            raise ConfigError(*problem)
    return ranks


def execute_run(
    plan: RunPlan,
    show_progress: bool | None = None,
    label: str = "",
    progress: str = "auto",
    progress_every_s: float = DEFAULT_LINE_SECONDS,
    allow_partial: bool = False,
) -> dict:
    """Launch the ranks, wait for them and return the summary. A run stopped by a signal
    or its deadline returns its partial summary with `allow_partial` (``spikex run``), and
    raises RunError otherwise (a sweep must not take it for a result).

    Parameters
    ----------
    plan : RunPlan
        From ``plan_run``.
    show_progress : bool, optional
        False: no progress report (as ``progress="none"``); True: a bar.
    label : str
        Text in front of the progress report.
    progress : str
        ``auto`` (a bar on a terminal, plain lines elsewhere), ``bar``, ``lines`` or
        ``none`` (``progress.PROGRESS_MODES``).
    progress_every_s : float
        Seconds between plain lines.

    Returns
    -------
    dict
        The run's ``summary.json``.

    Raises
    ------
    UserInputError
        The core rejected the configuration (exit status 2).
    RunError
        A rank failed or the run was interrupted (exit status 3).
    """
    if show_progress is not None:
        progress = "bar" if show_progress else "none"
    if plan.in_job:
        # Rank 0 reports, in lines: a job's output is a log, even on a terminal.
        summary = _run_in_this_job(plan, progress != "none", label, progress_every_s)
        if summary.get("partial") and not allow_partial:
            raise RunError(f"run stopped by {summary.get('stopped_by')}")
        return summary
    try:
        _set_aside_previous_results(plan)
        workdir = _make_workdir(plan.outdir)
    except OSError as error:
        raise UserInputError(
            f"-o {plan.outdir}: cannot write there: {error.strerror or error}"
        ) from None
    try:
        reporter = progress_reporter(progress, plan.tstop_ms, label, progress_every_s)
        status = _launch_and_wait(plan, workdir, reporter)
        summary_path = plan.outdir / SUMMARY_FILE
        if status in (0, STOPPED_EXIT_STATUS) and summary_path.exists():
            summary = json.loads(summary_path.read_text(encoding="utf-8"))
            if summary.get("partial") and not allow_partial:
                raise RunError(
                    f"run stopped by {summary.get('stopped_by')} at {summary['simulated_ms']:g} ms "
                    f"(its checkpoint: {summary.get('checkpoint')})"
                )
            return summary
        raise job_failure(workdir, status, plan.ranks, missing=SUMMARY_FILE)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _run_in_this_job(plan: RunPlan, report: bool, label: str, progress_every_s: float) -> dict:
    """This process's rank of an enclosing MPI job (launch mode b, docs/user/cluster.md):
    no launcher; rank 0 writes the outputs. A failing rank reports in one line and aborts
    the whole job (the others may wait in a collective)."""
    from .worker import run_rank

    size, rank = require_connected_job(plan.ranks)
    try:
        if rank == 0:
            _set_aside_previous_results(plan)
            workdir = _make_workdir(plan.outdir)
        else:
            workdir = Path(tempfile.mkdtemp(prefix=".spikex-rank-"))
    except OSError as error:
        _abort_job(
            size,
            2,
            f"spikex: error: -o {plan.outdir}: cannot write there: {error.strerror or error}",
        )
        raise UserInputError(
            f"-o {plan.outdir}: cannot write there: {error.strerror or error}"
        ) from None
    reporter = None
    if report and rank == 0:
        reporter = progress_reporter("lines", plan.tstop_ms, label, progress_every_s)
    try:
        return run_rank(
            plan.config, plan.outdir.absolute(), workdir, reporter, plan.resume, plan.stop_at,
            own_launcher=False,
        )  # fmt: skip
    except ValueError as error:
        _abort_job(size, 2, f"spikex: config error: {error}")
        raise UserInputError(str(error)) from None
    except Exception as error:  # noqa: BLE001 - any failure ends the whole job
        message = (
            f"rank {rank} on host {socket.gethostname()} failed: {type(error).__name__}: {error}"
        )
        _abort_job(size, 3, f"spikex: error: {message}")
        raise RunError(message) from None
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _abort_job(size: int, status: int, line: str) -> None:
    """With several ranks: say why, then end every rank of the job (MPI_Abort)."""
    if size > 1:
        from .. import _core

        print(line, file=sys.stderr, flush=True)
        _core.comm_abort(status)


def _set_aside_previous_results(plan: RunPlan) -> None:
    """Before the run: results in OUTDIR must always be those of the last run (a failed run
    leaves none). Earlier ones are removed with ``overwrite``, else the directory is
    renamed ``<outdir>.previous-<N>`` and one line on stderr says so."""
    outdir = plan.outdir
    if plan.continues:
        return  # the run goes on: its partial outputs are replaced at the end
    if not plan.overwrite and results_in(outdir):
        kept = previous_results_name(outdir)
        os.rename(outdir, kept)
        message = f"spikex run: kept the previous results of {outdir} in {kept}"
        print(message, file=sys.stderr, flush=True)
        return
    for name in (SUMMARY_FILE, SPIKES_FILE, STATE_FILE, TIMELINE_FILE, SpikeOutput.LOG):
        (outdir / name).unlink(missing_ok=True)
    if plan.resume is None:  # a new run's checkpoints must not mix with an old run's
        shutil.rmtree(outdir / DEFAULT_DIR_NAME, ignore_errors=True)


def _make_workdir(outdir: Path) -> Path:
    # Next to OUTDIR, so that the worker's final renames stay on one filesystem.
    outdir.absolute().parent.mkdir(parents=True, exist_ok=True)
    return Path(
        tempfile.mkdtemp(prefix=f".spikex-tmp-{outdir.name}-", dir=outdir.absolute().parent)
    )


def _launch_and_wait(plan: RunPlan, workdir: Path, reporter) -> int:
    config_json = workdir / "config.json"
    config_json.write_text(json.dumps(plan.config), encoding="utf-8")
    program = worker_command(config_json, plan.outdir.absolute(), workdir)
    if plan.resume is not None:
        program += ["--resume", str(plan.resume)]
    if plan.stop_at is not None:
        program += ["--stop-at", repr(plan.stop_at)]
    try:
        command = mpiexec_command(plan.ranks, program, launcher=plan.launcher)
    except ValueError as error:
        raise UserInputError(f"--np {plan.ranks}: {error}") from None
    return run_job(
        command, workdir / WORKER_LOG,
        env=child_environment(ranks=plan.ranks, threads=_threads(plan.config)),
        wait=lambda process: _wait(process, workdir, reporter), graceful=True,
        on_clean_stop=lambda name: (workdir / STOP_REQUEST_FILE).write_text(name, encoding="utf-8"),
    )  # fmt: skip


def _threads(config: dict) -> int:
    return int(config.get("simulation", {}).get("threads", 1))


def _wait(process, workdir: Path, reporter) -> int:
    """Wait for the job, feeding the progress reporter. Once a rank has reported an error,
    the launcher gets ERROR_GRACE_SECONDS to end the job; then spikex ends it (mpiexec
    can wait for ever for the daemon of a host that lost its link)."""
    error_seen_at = None
    with reporter or contextlib.nullcontext():
        while process.poll() is None:
            sample = _read_progress(workdir / PROGRESS_FILE)
            if reporter is not None and sample is not None:
                reporter.update(sample)
            if error_seen_at is None and _rank_reported_error(workdir):
                error_seen_at = time.monotonic()
            elif (
                error_seen_at is not None and time.monotonic() - error_seen_at > ERROR_GRACE_SECONDS
            ):
                stop_job(process)
                break
            time.sleep(POLL_SECONDS)
        sample = _read_progress(workdir / PROGRESS_FILE)
        if reporter is not None and process.returncode == 0 and sample is not None:
            reporter.update(sample)  # the last chunk: the run is complete
    return process.returncode


def _rank_reported_error(workdir: Path) -> bool:
    return (workdir / CONFIG_ERROR_FILE).exists() or any(workdir.glob(RANK_ERROR_GLOB))


def _read_progress(path: Path) -> ProgressSample | None:
    try:
        simulated_ms, _, spikes = path.read_text(encoding="utf-8").split()[:3]
        return ProgressSample(float(simulated_ms), int(spikes))
    except (OSError, ValueError):
        return None
