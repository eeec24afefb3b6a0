"""How spikex starts MPI jobs: the one place that builds a launcher's command line.

``spikex run``, ``compare``, ``gups``, the demo, the benchmarks and the multi-rank tests
all launch through ``mpiexec_command`` (a ``Launcher``) so that every launch uses the
same flags. Launch modes (docs/user/cluster.md): (a) spikex starts ``mpiexec`` on this
machine; (b) spikex is already a rank of someone else's job (``enclosing_job_size``) and
starts nothing; (c) the user's launcher, hostfile and options (``Launcher``).
"""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError
from ..runtime.allocation import hostfile_slots, local_cores, slurm_allocation_tasks

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


def require_connected_job(ranks: int) -> tuple[int, int]:
    """(size, rank) of this process's MPI job in launch mode (b), after checking that MPI
    connects the ``ranks`` tasks the launcher started: ``srun`` without an MPI plugin
    starts P jobs of one rank each, which would each run the whole network.

    Raises
    ------
    ConfigError
        Naming ``--np`` (exit status 2).
    """
    from .. import _core

    size = _core.comm_size()
    if size != ranks:
        raise ConfigError(
            "--np", ranks,
            f"the launcher started {ranks} tasks but MPI connects {size} of them: the launcher and "
            "spikex's MPI do not talk (with srun, give --mpi=pmix or --mpi=pmi2)",
        )  # fmt: skip
    return size, _core.comm_rank()


class LauncherNotFound(ValueError):
    """The launcher (``mpiexec`` or the user's) is needed but not on PATH."""


LAUNCHER_VARIABLE = "SPIKEX_LAUNCHER"


@dataclass(frozen=True)
class LauncherFamily:
    """How one kind of launcher takes the rank count and a hostfile.

    Attributes
    ----------
    name : str
        ``openmpi``, ``mpich``, ``slurm`` or ``generic``.
    ranks_flag : str
        Option before the rank count (``-np``, ``-n``).
    hostfile_flag : str or None
        Option before a hostfile; None: this launcher takes its hosts elsewhere.
    oversubscribe_flag, root_flag : str or None
        OpenMPI refuses more ranks than a host's cores, and root, unless told.
    """

    name: str
    ranks_flag: str
    hostfile_flag: str | None = None
    oversubscribe_flag: str | None = None
    root_flag: str | None = None


LAUNCHER_FAMILIES = {
    family.name: family
    for family in (
        LauncherFamily("openmpi", "-np", "--hostfile", "--oversubscribe", "--allow-run-as-root"),
        LauncherFamily("mpich", "-n", "-f"),
        LauncherFamily("slurm", "-n"),
        LauncherFamily("generic", "-n"),
    )
}
# How a launcher's resolved program name (/usr/bin/mpiexec -> mpiexec.openmpi) tells its
# family; names that say nothing (mpiexec, mpirun) are asked for --version.
_FAMILY_BY_NAME = (("srun", "slurm"), ("openmpi", "openmpi"), ("orterun", "openmpi"),
                   ("prterun", "openmpi"), ("hydra", "mpich"), ("mpich", "mpich"))  # fmt: skip
_FAMILY_BY_VERSION = (("Open MPI", "openmpi"), ("OpenRTE", "openmpi"), ("HYDRA", "mpich"))


@dataclass(frozen=True)
class Launcher:
    """How a job of P ranks is started (docs/user/cluster.md).

    Attributes
    ----------
    words : tuple of str
        The launcher and its own options, e.g. ``("srun", "--mpi=pmix")``; empty: mode
        (a), ``mpiexec`` on this machine.
    hostfile : Path or None
        Hosts to run on (``--hostfile``).
    extra : tuple of str
        More launcher options, passed through before the program.
    origin : str
        Where ``words`` came from, for messages: ``--launcher`` or ``SPIKEX_LAUNCHER``.
    """

    words: tuple[str, ...] = ()
    hostfile: Path | None = None
    extra: tuple[str, ...] = ()
    origin: str = "--launcher"

    @property
    def is_default(self) -> bool:
        """Mode (a): spikex's own mpiexec on this machine."""
        return not self.words and self.hostfile is None and not self.extra

    @property
    def description(self) -> str:
        """The launcher as the user gave it, for messages."""
        return shlex.join(self.words) if self.words else "mpiexec"

    def executable(self) -> str:
        """Absolute path of the launcher program.

        Raises
        ------
        LauncherNotFound
            It is not on PATH.
        """
        if not self.words:
            return find_mpiexec()
        path = shutil.which(self.words[0])
        if path is None:
            raise LauncherNotFound(f"{self.words[0]} is not on PATH")
        return path

    def family(self) -> LauncherFamily:
        """What kind of launcher this is (LAUNCHER_FAMILIES)."""
        return LAUNCHER_FAMILIES[_family_name(self.executable())]

    def command(self, ranks: int, program: Sequence[str]) -> list[str]:
        """The command line running ``program`` on ``ranks`` ranks."""
        family = self.family()
        command = [self.executable(), *self.words[1:]]
        if family.root_flag and os.geteuid() == 0:
            command.append(family.root_flag)
        if self.hostfile is not None:
            command += [family.hostfile_flag or "--hostfile", str(self.hostfile)]
        elif family.oversubscribe_flag and self.oversubscribes_here(ranks):
            command.append(family.oversubscribe_flag)  # correctness runs on a small machine
        return [*command, *self.extra, family.ranks_flag, str(ranks), *program]

    def problem(self, ranks: int) -> tuple[str, object, str] | None:
        """(option, value, what is wrong) when ``ranks`` ranks cannot start with this
        launcher, before anything starts; None when they can."""
        try:
            family = self.family()
        except LauncherNotFound as error:
            if self.is_default:
                return ("--np", ranks, str(error))
            return (self.origin, self.description, str(error))
        if self.hostfile is not None:
            if family.hostfile_flag is None:
                return ("--hostfile", str(self.hostfile),
                        (f"{self.description} takes its hosts from the allocation, not a "
                         "hostfile: leave --hostfile out (or pass the launcher's own option "
                         "with --launcher-args)"))  # fmt: skip
            try:
                slots = hostfile_slots(self.hostfile)
            except OSError as error:
                return (
                    "--hostfile",
                    str(self.hostfile),
                    f"cannot be read: {error.strerror or error}",
                )
            if slots == 0:
                return ("--hostfile", str(self.hostfile), "names no host")
            if slots is not None and ranks > slots and not self._oversubscribes():
                return ("--np", ranks,
                        (f"the hostfile {self.hostfile} has {slots} slot(s): give --np <= {slots}, "
                         "add slots, or pass --launcher-args=--oversubscribe"))  # fmt: skip
        allocation = slurm_allocation_tasks()
        if allocation is not None and ranks > allocation and self.hostfile is None:
            return ("--np", ranks,
                    (f"the Slurm allocation has {allocation} task(s) (SLURM_NTASKS): give "
                     f"--np <= {allocation} or ask sbatch/salloc for more"))  # fmt: skip
        return None

    def oversubscribes_here(self, ranks: int) -> bool:
        """Whether ``ranks`` ranks would share this machine's cores (no hostfile, no batch
        allocation, more ranks than cores)."""
        return self.hostfile is None and self._runs_here() and ranks > local_cores()

    def _runs_here(self) -> bool:
        # OpenMPI on this machine alone: no hostfile, no batch allocation to spread over.
        return slurm_allocation_tasks() is None and not any(
            word.startswith(("--host", "-H", "--hostfile", "--machinefile")) for word in self.extra
        )

    def _oversubscribes(self) -> bool:
        return any(word.startswith("--oversubscribe") for word in (*self.words, *self.extra))


def launcher_from_options(
    launcher: str | None = None,
    hostfile: Path | str | None = None,
    launcher_args: Sequence[str] = (),
    environment: Mapping[str, str] | None = None,
) -> Launcher:
    """The launcher of ``--launcher``, ``--hostfile`` and ``--launcher-args`` (each
    split as a shell would), or of SPIKEX_LAUNCHER when --launcher is not given and this
    process is not already a rank of a job.

    Raises
    ------
    ConfigError
        An option that cannot be split or is empty (exit status 2).
    """
    environment = os.environ if environment is None else environment
    text = launcher
    if text is None and enclosing_job_size(environment) is None:
        text = environment.get(LAUNCHER_VARIABLE)  # a job's own ranks launch nothing
    key = "--launcher" if launcher is not None else LAUNCHER_VARIABLE
    words = _split(key, text) if text is not None else ()
    if text is not None and not words:
        raise ConfigError(key, text, 'must name a launcher program, e.g. "srun --mpi=pmix"')
    extra = tuple(word for args in launcher_args for word in _split("--launcher-args", args))
    return Launcher(words, Path(hostfile) if hostfile is not None else None, extra, origin=key)


def _split(key: str, text: str) -> tuple[str, ...]:
    try:
        return tuple(shlex.split(text))
    except ValueError as error:
        raise ConfigError(
            key, text, f"cannot be split into words as a shell would: {error}"
        ) from None


@functools.cache
def _family_name(executable: str) -> str:
    resolved = Path(os.path.realpath(executable)).name
    for fragment, family in _FAMILY_BY_NAME:
        if fragment in resolved:
            return family
    if resolved in ("mpiexec", "mpirun"):
        try:
            version = subprocess.run([executable, "--version"], capture_output=True, text=True,
                                     timeout=30, stdin=subprocess.DEVNULL, check=False)  # fmt: skip
        except (OSError, subprocess.TimeoutExpired):
            return "generic"
        for fragment, family in _FAMILY_BY_VERSION:
            if fragment in version.stdout + version.stderr:
                return family
    return "generic"


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
    ranks: int,
    program: Sequence[str],
    *,
    always_mpiexec: bool = False,
    launcher: Launcher | None = None,
) -> list[str]:
    """Command line that runs ``program`` on ``ranks`` MPI ranks.

    Parameters
    ----------
    ranks : int
        Number of ranks (>= 1).
    program : sequence of str
        The program and its arguments, e.g. ``[sys.executable, "script.py"]``.
    always_mpiexec : bool
        Use the launcher even for one rank (by default a single rank on this machine
        runs the program directly: the serial backend needs no launcher).
    launcher : Launcher, optional
        Mode (c): the user's launcher, hostfile and options [default: ``mpiexec`` here].

    Returns
    -------
    list of str
        ``program`` itself, or e.g. ``mpiexec --allow-run-as-root -np P program`` (with
        ``--oversubscribe`` when P exceeds this machine's cores).
    """
    if ranks < 1:
        raise ValueError(f"ranks = {ranks}: must be an integer >= 1")
    launcher = launcher or Launcher()
    if ranks == 1 and not always_mpiexec and launcher.is_default:
        return list(program)
    return launcher.command(ranks, program)


def worker_command(config_json: Path, outdir: Path, workdir: Path) -> list[str]:
    """The worker program (one rank's process) for ``spikex run``."""
    return [
        sys.executable, "-m", "spikex.launch.worker",
        "--config", str(config_json),
        "--outdir", str(outdir),
        "--workdir", str(workdir),
    ]  # fmt: skip


def child_environment(
    environment: Mapping[str, str] | None = None, *, ranks: int | None = None, threads: int = 1
) -> dict[str, str]:
    """Environment for a launched job: ours, minus the variables of an enclosing MPI job.

    Parameters
    ----------
    environment : mapping, optional
        Base environment (default ``os.environ``).
    ranks, threads : int, optional
        The job's layout, when known. No OMP_* variable is set from it: a rank's threads
        are spikex's own and wait as spikex chooses (core/worker_team.hpp); the user's
        OMP_* settings pass through unchanged.
    """
    environment = dict(os.environ if environment is None else environment)
    # The ranks' cores belong to their own threads: numpy's bundled OpenBLAS would start
    # a thread per core in every rank, and those spin (6% of a 2-rank GUPS run's cycles).
    environment.setdefault("OPENBLAS_NUM_THREADS", "1")
    if not any(marker in environment for marker in _LAUNCHED_JOB_MARKERS):
        return environment
    return {
        name: value
        for name, value in environment.items()
        if not name.startswith(_LAUNCHED_JOB_PREFIXES)
    }
