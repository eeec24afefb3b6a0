"""How many ranks and how much memory the place a job is launched into has: this
machine's cores and memory, a hostfile's slots, a Slurm allocation's tasks.

Used before anything starts: P beyond a hostfile or an allocation is a user error
(exit 2); P beyond this machine's cores only asks OpenMPI to oversubscribe
(``launcher.Launcher.command``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

# `host slots=N` (OpenMPI) or `host:N` (MPICH); `#` starts a comment.
_OPENMPI_SLOTS = re.compile(r"\bslots\s*=\s*(\d+)")
_MPICH_SLOTS = re.compile(r"^\S+:(\d+)$")


def local_cores() -> int:
    """Physical cores this process may run on: what OpenMPI counts as a machine's slots
    (hardware threads of one core count once)."""
    cpus = os.sched_getaffinity(0)
    cores = set()
    for cpu in cpus:
        topology = Path(f"/sys/devices/system/cpu/cpu{cpu}/topology")
        try:
            package = (topology / "physical_package_id").read_text().strip()
            core = (topology / "core_id").read_text().strip()
        except OSError:
            return len(cpus)  # no topology (a container without /sys): count CPUs
        cores.add((package, core))
    return max(len(cores), 1)


def hostfile_slots(path: Path) -> int | None:
    """Total slots of a hostfile, or None when a host line gives none (the launcher then
    decides, e.g. from each host's cores).

    Raises
    ------
    OSError
        The file cannot be read.
    """
    total = 0
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        slots = _OPENMPI_SLOTS.search(line) or _MPICH_SLOTS.match(line)
        if slots is None:
            return None
        total += int(slots.group(1))
    return total


def hostfile_hosts(path: Path) -> list[str]:
    """Host names of a hostfile, in order."""
    hosts = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            hosts.append(line.split()[0].split(":")[0])
    return hosts


def slurm_allocation_tasks(environment: Mapping[str, str] | None = None) -> int | None:
    """Tasks of the Slurm allocation this process runs in (a batch script or salloc
    shell), or None outside Slurm."""
    environment = os.environ if environment is None else environment
    if "SLURM_JOB_ID" not in environment:
        return None
    for name in ("SLURM_NTASKS", "SLURM_NPROCS"):
        value = environment.get(name, "")
        if value.isdigit() and int(value) >= 1:
            return int(value)
    return None


def memory_bytes() -> tuple[int, int]:
    """(total, available) physical memory of this host in bytes (MemAvailable)."""
    total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    available = total
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                available = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return total, available


def size_text(size: float) -> str:
    """Bytes as ``512 B``, ``1.5 GiB``."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if size < 1024 or unit == "PiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} PiB"


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


# When a second thread pays (issue 60): a step's work on a rank must be large enough that
# splitting it beats what handing parts to the team and the serial part of the step cost,
# and the second thread needs a core nobody else is using (on a busy core it only slows
# the first). A rank's work per step grows with its cells and with the synapses ending on
# them (deliveries). CELLS_PER_THREAD and SYNAPSES_PER_THREAD are each thread's least share.
# Measured 2026-11-29 22:45 UTC on 2 cores at load about 0.8 (bench/results/thread_rule.json,
# the Brunel network at other sizes, runs of at least 15 M cell updates): 2 threads took
# 0.98x one thread's time at 250 cells, 0.91-0.93x at 500-1,000, 0.80x at 2,000 (8 us per
# step), 0.72x at 4,000 and 0.63x at 5,000; 0.77x at 1,000 cells with 500 inputs each
# (0.5 M synapses). Below 2,000 cells the gain is within a host's noise, so the shares
# below give 2 threads from 2,000 cells or 0.5 M synapses (VA CUBA's 4,000 cells: 2).
CELLS_PER_THREAD = 1000
SYNAPSES_PER_THREAD = 250_000


def _environment_int(environment: Mapping[str, str], name: str) -> int | None:
    value = environment.get(name, "").strip().split(",")[0]
    return int(value) if value.isdigit() and int(value) >= 1 else None


def auto_threads(
    cells: float,
    synapses: float,
    ranks_here: int = 1,
    environment: Mapping[str, str] | None = None,
    cores: int | None = None,
    load: float | None = None,
) -> int:
    """Threads per rank when the user did not say (``threads`` not given).

    ``cells`` and ``synapses`` are the rank's share. One thread per CELLS_PER_THREAD cells
    or SYNAPSES_PER_THREAD synapses, whichever gives more, at most this host's cores
    shared by its ``ranks_here`` ranks (a rank alone on its host: less the cores that the
    1-minute ``load`` says are busy), and at most the user's OMP_NUM_THREADS and
    OMP_THREAD_LIMIT when set (the user's cap for the process's threads).
    """
    environment = os.environ if environment is None else environment
    cores = len(os.sched_getaffinity(0)) if cores is None else cores
    wanted = max(1, int(cells // CELLS_PER_THREAD), int(synapses // SYNAPSES_PER_THREAD))
    limit = max(1, cores // max(1, ranks_here))
    if ranks_here == 1 and load is None:
        load = os.getloadavg()[0]
    if ranks_here == 1:
        # Cores busy with other work (the 1-minute load less this process's own): a thread
        # there would wait for its core at every step's meeting.
        limit = max(1, min(limit, cores - max(0, round(load - 1.0))))
    for name in ("OMP_NUM_THREADS", "OMP_THREAD_LIMIT"):
        cap = _environment_int(environment, name)
        if cap is not None:
            limit = min(limit, cap)
    return max(1, min(wanted, limit))
