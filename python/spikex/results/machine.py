"""Which machine the results were measured on (the preamble of ``docs/results.md``)."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ..version import __version__


@dataclass(frozen=True)
class MachineDescription:
    """CPU, cores, memory, MPI, load and software version of a results run."""

    date: str
    cpu: str
    cores: int
    memory_gb: float
    mpi: str
    load_average: str
    spikex_version: str
    commit: str


def describe_machine(repository: Path) -> MachineDescription:
    """Describe this machine now (best effort: unknown items say so)."""
    return MachineDescription(
        date=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        cpu=cpu_model(),
        cores=os.cpu_count() or 0,
        memory_gb=_memory_gb(),
        mpi=_first_line([shutil.which("mpiexec") or "mpiexec", "--version"]) or "MPI unknown",
        load_average=load_average_now(),
        spikex_version=__version__,
        commit=_commit(repository),
    )


def load_average_now() -> str:
    """The 1, 5 and 15-minute load averages, e.g. ``"0.6, 1.4, 0.9"``."""
    return ", ".join(f"{value:.1f}" for value in os.getloadavg())


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo (else the platform's processor name)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gb() -> float:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 1024 / 1024
    except OSError:
        pass
    return 0.0


def _first_line(command: list[str], cwd: Path | None = None) -> str:
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=30, cwd=cwd, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    return lines[0].strip() if done.returncode == 0 and lines else ""


def _commit(repository: Path) -> str:
    commit = _first_line(["git", "rev-parse", "--short", "HEAD"], repository)
    if not commit:
        return "no git commit"
    dirty = _first_line(["git", "status", "--porcelain", "--untracked-files=no"], repository)
    return f"commit {commit}" + (" with local changes" if dirty else "")
