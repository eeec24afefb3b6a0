"""How spikex starts MPI jobs: the one place that builds an ``mpiexec`` command line.

``spikex run``, the demo, the benchmarks and the multi-rank tests all launch through
``mpiexec_command`` so that every launch uses the same flags.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

# These machines have few cores: correctness runs oversubscribe them. CI containers
# run as root, which OpenMPI refuses without the explicit flag.
MPIEXEC_FLAGS = ("--oversubscribe", "--allow-run-as-root")

# Environment variables set by a running MPI job for its own processes. A child job
# started from inside one (e.g. a test run under mpiexec) must not inherit them, or it
# would try to join the parent's job.
_LAUNCHED_JOB_MARKERS = ("OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE")
_LAUNCHED_JOB_PREFIXES = ("OMPI_", "PMIX_", "PMI_")


# The size of the MPI job this process was started in, by the variable each launcher sets
# (OpenMPI's mpiexec, MPICH/hydra and srun --mpi=pmi2, srun --mpi=pmix).
_JOB_SIZE_VARIABLES = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS")


def enclosing_job_size(environment: Mapping[str, str] | None = None) -> int | None:
    """The number of ranks of the MPI job this process is one rank of (started by
    ``mpiexec``, ``mpirun``, ``srun`` or another PMI/PMIx launcher), or None when it was
    started on its own. Slurm's task count counts only inside a job step (``srun``)."""
    environment = os.environ if environment is None else environment
    if (
        not any(marker in environment for marker in _LAUNCHED_JOB_MARKERS)
        and "SLURM_STEP_ID" not in environment
    ):
        return None
    for name in _JOB_SIZE_VARIABLES:
        value = environment.get(name, "")
        if value.isdigit() and int(value) >= 1:
            return int(value)
    return None


class LauncherNotFound(ValueError):
    """``mpiexec`` is needed (more than one rank) but not on PATH."""


def find_mpiexec() -> str:
    """Absolute path of ``mpiexec``.

    Raises
    ------
    LauncherNotFound
        If it is not on PATH.
    """
    path = shutil.which("mpiexec")
    if path is None:
        raise LauncherNotFound(
            "more than one rank needs mpiexec (OpenMPI, Debian package openmpi-bin), "
            "which is not on PATH"
        )
    return path


def mpiexec_command(
    ranks: int, program: Sequence[str], *, always_mpiexec: bool = False
) -> list[str]:
    """Command line that runs ``program`` on ``ranks`` MPI ranks.

    Parameters
    ----------
    ranks : int
        Number of ranks (>= 1).
    program : sequence of str
        The program and its arguments, e.g. ``[sys.executable, "script.py"]``.
    always_mpiexec : bool
        Use ``mpiexec`` even for one rank (by default a single rank runs the program
        directly: the serial backend needs no launcher).

    Returns
    -------
    list of str
        ``program`` itself, or ``mpiexec --oversubscribe --allow-run-as-root -np P program``.
    """
    if ranks < 1:
        raise ValueError(f"ranks = {ranks}: must be an integer >= 1")
    if ranks == 1 and not always_mpiexec:
        return list(program)
    return [find_mpiexec(), *MPIEXEC_FLAGS, "-np", str(ranks), *program]


def worker_command(config_json: Path, outdir: Path, workdir: Path) -> list[str]:
    """The worker program (one rank's process) for ``spikex run``."""
    return [
        sys.executable, "-m", "spikex.launch.worker",
        "--config", str(config_json),
        "--outdir", str(outdir),
        "--workdir", str(workdir),
    ]  # fmt: skip


def thread_wait_policy(ranks: int, threads: int) -> str:
    """OMP_WAIT_POLICY for a job of ``ranks`` x ``threads`` on this machine.

    Threads meet at two barriers per time step. Spinning ("active") answers fastest when
    every thread has a core of its own; when the job over-subscribes the cores a spinning
    thread holds a core its partner needs ("passive" then). Measured by
    bench/thread_wait.py; the figures are in bench/results/thread_wait.json and
    docs/user/cli.md (``--threads``).
    """
    return "active" if ranks * threads <= len(os.sched_getaffinity(0)) else "passive"


def thread_limit_problem(threads: int, environment: Mapping[str, str] | None = None) -> str | None:
    """Why ``threads`` OpenMP threads per rank cannot start here, or None.

    OMP_THREAD_LIMIT caps the team of every parallel region: a rank would get fewer
    threads than it split its cells over (the core refuses to run then, exit 3). Checked
    before a run so that the user gets a configuration error instead.
    """
    value = (os.environ if environment is None else environment).get("OMP_THREAD_LIMIT", "").strip()
    if not value.isdigit() or int(value) < 1 or int(value) >= threads:
        return None  # unset, or a value OpenMP ignores, or enough
    return f"OMP_THREAD_LIMIT={value} in the environment allows at most {value} thread(s) per rank: unset it or use fewer threads"


def child_environment(
    environment: Mapping[str, str] | None = None, *, ranks: int | None = None, threads: int = 1
) -> dict[str, str]:
    """Environment for a launched job: ours, minus the variables of an enclosing MPI job.

    Parameters
    ----------
    environment : mapping, optional
        Base environment (default ``os.environ``).
    ranks, threads : int, optional
        The job's layout, when known: sets OMP_WAIT_POLICY (``thread_wait_policy``)
        unless the environment already has it (otherwise the ranks keep the package's
        safe default, passive).
    """
    environment = dict(os.environ if environment is None else environment)
    if ranks is not None:
        environment.setdefault("OMP_WAIT_POLICY", thread_wait_policy(ranks, threads))
    if not any(marker in environment for marker in _LAUNCHED_JOB_MARKERS):
        return environment
    return {
        name: value
        for name, value in environment.items()
        if not name.startswith(_LAUNCHED_JOB_PREFIXES)
    }
