"""``spikex gups``: HPCC MPIRandomAccess (giga-updates per second), two algorithms.

The benchmark Garg & Sabharwal optimised (sections 2, 4 and 6 of their paper): a table of
N = 2^k 64-bit words spread over P ranks, T[i] = i; the one global HPCC stream of 4 N
updates split into one contiguous piece per rank; each update a does
T[a & (N - 1)] ^= a on the rank owning that word; at most ``--budget`` (1024) updates
looked ahead or buffered per rank. ``--algorithm baseline`` keeps a bucket per destination
and sends the fullest when the budget is reached (the reference code's scheme);
``--algorithm routed`` routes updates through the route library's logical grid
(``--dims``). Verification regenerates the stream, re-applies it bulk-synchronously and
counts T[i] != i; it passes when at most 1% of the words are wrong.

The timed kernel is C++ (``spikex._core.gups_run``, cpp/spikex/gups/): this module
validates the arguments, launches the ranks (``python -m spikex.scaling.gups`` under ``mpiexec``
for P > 1, through ``spikex.launch.launcher``), and reports. Exit status: 0 verification passed
(or skipped), 1 verification failed, 2 invalid arguments, 3 a rank failed.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import socket
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigError, UserInputError
from ..launch.failures import CONFIG_ERROR_FILE, WORKER_LOG, job_failure
from ..launch.job import run_job
from ..launch.launcher import (
    Launcher,
    child_environment,
    enclosing_job_size,
    mpiexec_command,
    require_connected_job,
)
from ..runtime.allocation import memory_bytes, size_text
from ..version import __version__
from .routing_model import DEFAULT_LANES

ALGORITHMS = ("baseline", "routed")
DEFAULT_LOG2_TABLE = 20
DEFAULT_BUDGET = 1024  # the benchmark's look-ahead rule
MAX_LOG2_TABLE = 40
MAX_LANES = 255  # route/router.hpp router_options::lanes
PASS_FRACTION = 0.01  # HPCC: at most 1% of the table may be wrong
RESULT_FILE = "gups-result.json"
RANK_ERROR_PATTERN = "error.rank{rank}.json"


@dataclass(frozen=True)
class GupsPlan:
    """A validated ``spikex gups`` run, ready to launch."""

    ranks: int
    algorithm: str
    log2_table: int
    dims: str
    budget: int
    verify: bool
    corrupt_updates: int
    output: Path
    in_job: bool = False  # mode (b): this process is a rank of someone else's MPI job
    launcher: Launcher = field(default_factory=Launcher)
    huge_pages: bool = True  # ask for transparent huge pages for the table
    message_bytes: int | None = (
        None  # routed: a full bucket's message at most (None: the core's default)
    )
    lanes: int = 1  # routed: buckets per partner, filled in turn (route/router.hpp)
    # routed: ranks on one node through mailboxes (route/router.hpp); None: the default,
    # yes (gups/gups.hpp gups_options::shared_memory)
    shared_memory: bool | None = None
    # routed: how --profile chose the grid (routing_model.best_grid at that profile's costs),
    # None when --dims or the route library's auto chose it
    grid_choice: dict | None = None

    def kernel_options(self) -> dict:
        """Options of ``_core.gups_run``."""
        extra = {} if self.message_bytes is None else {"message_bytes": self.message_bytes}
        return {
            "lanes": self.lanes,
            "shared_memory": self.shared_memory,
            **extra,
            "log2_table": self.log2_table,
            "algorithm": self.algorithm,
            "dims": self.dims,
            "budget": self.budget,
            "verify": self.verify,
            "corrupt_updates": self.corrupt_updates,
            "huge_pages": self.huge_pages,
        }


# ---- validation ------------------------------------------------------------------------


def plan_gups(
    ranks: int | None = None,
    algorithm: str = "routed",
    log2_table: int | None = None,
    mem_fraction: float | None = None,
    dims: str | None = None,
    budget: int = DEFAULT_BUDGET,
    verify: bool = True,
    corrupt_updates: int = 0,
    output: Path | str = Path("spikex-out/gups.json"),
    launcher: Launcher | None = None,
    huge_pages: bool = True,
    message_bytes: int | None = None,
    lanes: int | None = None,
    shared_memory: bool | None = None,
    profile: Path | str | None = None,
) -> GupsPlan:
    """Check every argument before anything is started.

    Raises
    ------
    ConfigError
        Naming the option, the bad value and what is allowed (exit status 2).
    """
    from ..launch.run import check_ranks

    launcher = launcher or Launcher()
    job = enclosing_job_size()
    ranks = check_ranks(ranks, launcher, job)
    if algorithm not in ALGORITHMS:
        raise ConfigError("--algorithm", algorithm, "must be one of " + ", ".join(ALGORITHMS))
    log2_table = _table_size(ranks, log2_table, mem_fraction)
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise ConfigError("--budget", budget, "must be an integer >= 1 (updates buffered per rank)")
    if message_bytes is not None:
        if (
            isinstance(message_bytes, bool)
            or not isinstance(message_bytes, int)
            or message_bytes < 8
        ):
            raise ConfigError(
                "--message-bytes", message_bytes, "must be an integer >= 8 (one update)"
            )
        if algorithm != "routed":
            raise ConfigError(
                "--message-bytes", message_bytes, "only --algorithm routed caps its messages"
            )
    if lanes is not None:
        if isinstance(lanes, bool) or not isinstance(lanes, int) or not 1 <= lanes <= MAX_LANES:
            raise ConfigError("--lanes", lanes, f"must be an integer from 1 to {MAX_LANES}")
        if algorithm != "routed":
            raise ConfigError("--lanes", lanes, "only --algorithm routed has buckets per partner")
    else:
        lanes = DEFAULT_LANES if algorithm == "routed" else 1
    if shared_memory is not None and algorithm != "routed":
        raise ConfigError(
            "--shared-memory",
            bool(shared_memory),
            "only --algorithm routed has shared-memory mailboxes (the baseline sends MPI messages)",
        )
    if algorithm == "baseline" and dims is not None:
        raise ConfigError("--dims", dims, "only --algorithm routed uses a grid")
    grid_choice = None
    if profile is not None:
        grid_choice = _grid_from_profile(Path(profile), ranks, algorithm, dims, budget, message_bytes, lanes)
        dims = "x".join(str(d) for d in grid_choice["dims"])
    dims = dims or "auto"
    if algorithm == "routed":
        from .. import _core  # the route library decides what fits; one implementation

        plan = _core.route_plan(ranks, dims, budget, lanes)
        if plan["dims_error"]:
            raise ConfigError("--dims", dims, f"on {ranks} rank(s): {plan['dims_error']}")
        if plan["budget_error"]:
            raise ConfigError("--budget", budget, plan["budget_error"])
    if corrupt_updates < 0:
        raise ConfigError("--corrupt-updates", corrupt_updates, "must be >= 0")
    output = Path(output)
    if output.exists() and output.is_dir():
        raise ConfigError("-o/--output", str(output), "is a directory; give a file name")
    return GupsPlan(ranks, algorithm, log2_table, dims, budget, verify, corrupt_updates, output,
                    in_job=job is not None, launcher=launcher, huge_pages=bool(huge_pages),
                    message_bytes=message_bytes, lanes=lanes,
                    shared_memory=None if shared_memory is None or algorithm != "routed" else bool(shared_memory),
                    grid_choice=grid_choice)  # fmt: skip


def _grid_from_profile(path: Path, ranks: int, algorithm: str, dims: str | None, budget: int,
                       message_bytes: int | None, lanes: int) -> dict:  # fmt: skip
    """--profile: the grid the time model predicts fastest at the profile's costs
    (routing_model.best_grid, with the run's budget, message size and lanes)."""
    from .routing_model import MESSAGE_BYTES, best_grid
    from .time_model import load_profile

    if algorithm != "routed":
        raise ConfigError("--profile", str(path), "only --algorithm routed chooses a grid")
    if dims not in (None, "auto"):
        raise ConfigError("--dims", dims, "--profile chooses the grid: give one of --dims and --profile")
    machine = load_profile(path)
    choice = best_grid(ranks, machine, budget, message_bytes or MESSAGE_BYTES, lanes)
    if choice["best"] is None:
        raise ConfigError("--budget", budget, f"no grid on {ranks} rank(s) gives every bucket an update")
    return {
        "profile": machine.name,
        "profile_path": str(path),
        "dims": choice["best"]["dims"],
        "candidates": [{"dims": g["dims"], "bucket_capacity": g["capacity"], "hops": g["hops"],
                        "predicted_ns_per_update": g["seconds"] * 1e9} for g in choice["candidates"]],
    }  # fmt: skip


def _table_size(ranks: int, log2_table: int | None, mem_fraction: float | None) -> int:
    total, available = memory_bytes()
    if log2_table is not None and mem_fraction is not None:
        raise ConfigError(
            "--mem-fraction", mem_fraction, "give either --log2-table or --mem-fraction"
        )
    if mem_fraction is not None:
        if not (isinstance(mem_fraction, (int, float)) and 0 < mem_fraction <= 1):
            raise ConfigError("--mem-fraction", mem_fraction, "must be a number > 0 and <= 1")
        words = mem_fraction * total / 8
        if words < 1:
            raise ConfigError("--mem-fraction", mem_fraction, "leaves less than one word")
        log2_table = math.floor(math.log2(words))
        if 8 * 2**log2_table > available:
            raise ConfigError(
                "--mem-fraction",
                mem_fraction,
                f"a table of {size_text(8 * 2**log2_table)} is more than the "
                f"{size_text(available)} of memory available now; use a smaller fraction",
            )
    if log2_table is None:
        log2_table = DEFAULT_LOG2_TABLE
    smallest = max(0, math.ceil(math.log2(ranks)))
    if isinstance(log2_table, bool) or not isinstance(log2_table, int):
        raise ConfigError("--log2-table", log2_table, "must be an integer")
    if log2_table < smallest or log2_table > MAX_LOG2_TABLE:
        raise ConfigError(
            "--log2-table",
            log2_table,
            f"must be between {smallest} (one word per rank on {ranks} rank(s)) and {MAX_LOG2_TABLE}",
        )
    if 8 * 2**log2_table > available:
        largest = math.floor(math.log2(available / 8))
        raise ConfigError(
            "--log2-table",
            log2_table,
            f"the table needs {size_text(8 * 2**log2_table)}, more than the "
            f"{size_text(available)} of memory available; must be <= {largest}",
        )
    return log2_table


# ---- running -------------------------------------------------------------------------


def yield_when_idle(plan: GupsPlan) -> str:
    """OpenMPI's ``mpi_yield_when_idle`` for the ranks (unless the environment sets it):
    "1" when they share this machine's cores, else "0".

    With more ranks than cores, a rank polling inside a blocking MPI call (the collective
    set-up of the mailboxes, the barriers) holds a core that another rank needs: at P = 64
    on 2 cores the mailboxes' set-up took 9.7 s polling and 0.2 s yielding, and the timed
    part was faster too (P = 4: 0.13 against 0.11-0.13 GUPS; P = 16: 0.090 against 0.074).
    With a core per rank a yield on every empty poll only costs: P = 2 with MPI messages
    ran at 0.17 GUPS yielding and 0.20 polling (docs/user/gups.md)."""
    return "1" if plan.launcher.oversubscribes_here(plan.ranks) else "0"


def execute_gups(plan: GupsPlan) -> dict:
    """Launch the ranks, wait, and return (and write) the result.

    Raises
    ------
    UserInputError
        The kernel rejected an argument (exit status 2).
    RunError
        A rank failed (exit status 3).
    """
    if plan.in_job:
        return _gups_in_this_job(plan)
    # Next to the output: on a cluster the ranks must see it (a shared filesystem).
    plan.output.absolute().parent.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix=".spikex-gups-", dir=plan.output.absolute().parent))
    try:
        options = workdir / "options.json"
        options.write_text(json.dumps(plan.kernel_options()), encoding="utf-8")
        program = [
            sys.executable,
            "-m",
            "spikex.scaling.gups",
            "--options",
            str(options),
            "--workdir",
            str(workdir),
        ]
        command = mpiexec_command(plan.ranks, program, launcher=plan.launcher)
        environment = child_environment()
        environment.setdefault("OMPI_MCA_mpi_yield_when_idle", yield_when_idle(plan))
        status = run_job(command, workdir / WORKER_LOG, env=environment)
        result_path = workdir / RESULT_FILE
        if status != 0 or not result_path.exists():
            raise job_failure(workdir, status, plan.ranks, missing=RESULT_FILE)
        kernel = json.loads(result_path.read_text(encoding="utf-8"))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    result = describe_result(plan, kernel)
    _write_atomically(plan.output, json.dumps(result, indent=2) + "\n")
    return result


def _gups_in_this_job(plan: GupsPlan) -> dict:
    """Mode (b): every rank of the enclosing job runs the kernel; rank 0 writes the JSON.
    A failing rank says so in one line and aborts the whole job."""
    from .. import _core

    _, rank = require_connected_job(plan.ranks)
    try:
        kernel = _core.gups_run(plan.kernel_options())
    except ValueError as error:
        print(f"spikex: config error: {error}", file=sys.stderr, flush=True)
        _end_job(2)
    except Exception as error:  # noqa: BLE001 - any failure ends the whole job
        print(f"spikex gups: rank {rank} on host {socket.gethostname()} failed: {type(error).__name__}: {error}",
              file=sys.stderr, flush=True)  # fmt: skip
        _end_job(3)
    result = describe_result(plan, kernel)
    if rank == 0:
        _write_atomically(plan.output, json.dumps(result, indent=2) + "\n")
    return result


def describe_result(plan: GupsPlan, kernel: dict) -> dict:
    """The JSON of a run: the kernel's counts plus the derived figures."""
    updates, seconds = kernel["updates"], kernel["seconds"]
    remote = updates - kernel["local_updates"]
    gups = updates / seconds / 1e9 if seconds > 0 else 0.0
    messages = kernel["messages_sent"]
    tests = kernel["send_tests"]
    return {
        "spikex_version": __version__,
        "benchmark": "HPCC MPIRandomAccess",
        "algorithm": plan.algorithm,
        "ranks": kernel["ranks"],
        "dims": kernel["dims"] if plan.algorithm == "routed" else None,
        "grid_choice": plan.grid_choice,
        "budget": plan.budget,
        "bucket_capacity": kernel["bucket_capacity"],
        "lanes": kernel["lanes"] if plan.algorithm == "routed" else None,
        "log2_table": plan.log2_table,
        "table_size": kernel["table_size"],
        "table_bytes": 8 * kernel["table_size"],
        "huge_pages_requested": plan.huge_pages,
        "huge_pages": kernel["huge_pages"],
        "updates": updates,
        "time_s": seconds,
        "gups": gups,
        "gups_per_rank": gups / kernel["ranks"],
        "verified": kernel["verified"],
        "errors": kernel["errors"],
        "error_fraction": kernel["errors"] / kernel["table_size"],
        "passed": kernel["passed"] if kernel["verified"] else None,
        "messages_sent": messages,
        "messages_per_rank": messages / kernel["ranks"],
        "shared_memory_requested": plan.shared_memory,
        "shared_memory": kernel["shared_memory"],
        "oversubscribed": kernel["oversubscribed"],
        "shared_memory_messages": kernel["shared_memory_messages"],
        "bytes_sent": kernel["bytes_sent"],
        "updates_sent": kernel["updates_sent"],
        "mean_updates_per_message": kernel["updates_sent"] / messages if messages else 0.0,
        "local_updates": kernel["local_updates"],
        "mean_hops": kernel["updates_sent"] / remote if remote else 0.0,
        "forwarded": kernel["forwarded"],
        "send_blocking_factor": kernel["send_tests_pending"] / tests if tests else 0.0,
        "termination_rounds": kernel["rounds"],
        "buffered_high_water": kernel["buffered_high_water"],
        # where the timed part went: rank-seconds summed over the ranks (gups.hpp gups_phase)
        "time_split_s": kernel["phase_seconds"],
        "cpu_s": kernel["cpu_seconds"],
        "context_switches": {
            "voluntary": kernel["voluntary_switches"],
            "involuntary": kernel["involuntary_switches"],
        },
        "init_s": kernel["init_seconds"],
        "verify_s": kernel["verify_seconds"],
        "corrupt_updates": plan.corrupt_updates,
    }


def _transport_text(result: dict) -> str:
    shared, messages = result["shared_memory_messages"], result["messages_sent"]
    if messages == 0:
        return "none (nothing sent)"
    if shared == 0:
        if result.get("shared_memory"):
            return "MPI messages (this MPI cannot share windows: no mailboxes)"
        return "MPI messages"
    if shared == messages:
        return "shared-memory mailboxes (every rank on one node)"
    return f"shared-memory mailboxes for {shared:,} messages on a node, MPI messages for {messages - shared:,}"


# The phases' names come from the kernel (gups.hpp gups_phase_names); printed with spaces.
PHASE_TEXT = {"generate_inject": "generate and inject"}


def _time_split_text(result: dict) -> str:
    """Each phase's share of the ranks' timed wall time, and how much of it they ran."""
    total = result["time_s"] * result["ranks"]
    if total <= 0:
        return "-"
    split = result["time_split_s"]
    shares = ", ".join(
        f"{PHASE_TEXT.get(name, name.replace('_', ' '))} {100 * s / total:.0f}%"
        for name, s in split.items()
    )
    switches = result["context_switches"]
    return (f"{shares}; on a core {100 * result['cpu_s'] / total:.0f}% "
            f"({switches['voluntary'] + switches['involuntary']:,} context switches)")  # fmt: skip


def format_result(result: dict) -> str:
    """The printed report (one ``name: value`` per line)."""
    grid = f", grid {result['dims']}" if result["dims"] else ""
    if result.get("grid_choice"):
        grid += f" (fastest at profile {result['grid_choice']['profile']})"
    verdict = (
        "skipped" if result["passed"] is None else ("PASSED" if result["passed"] else "FAILED")
    )
    setup = f"{result['algorithm']}{grid}, budget {result['budget']}"
    rows = [
        ("algorithm", f"{setup}, bucket capacity {result['bucket_capacity']}"
                      + (f" x {result['lanes']} lanes" if (result.get("lanes") or 1) > 1 else "")),
        ("ranks", result["ranks"]),
        ("table", (f"2^{result['log2_table']} words ({size_text(result['table_bytes'])}), "
                   f"huge pages {'yes' if result['huge_pages'] else 'no'}")),
        ("updates", f"{result['updates']:,}"),
        ("time", f"{result['time_s']:.4f} s"),
        ("GUPS", f"{result['gups']:.6f}"),
        ("GUPS per rank", f"{result['gups_per_rank']:.6f}"),
        ("messages sent", f"{result['messages_sent']:,} ({result['messages_per_rank']:,.1f} per rank)"),
        ("mean updates per message", f"{result['mean_updates_per_message']:.2f}"),
        ("transport", _transport_text(result)),
        ("mean hops per remote update", f"{result['mean_hops']:.2f}"),
        ("time of the ranks", _time_split_text(result)),
        ("errors", f"{result['errors']:,} of {result['table_size']:,} words"),
        ("verification", verdict + (f" (at most {PASS_FRACTION:.0%} allowed)" if result["verified"] else "")),
    ]  # fmt: skip
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write_atomically(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}")
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    except OSError as error:
        raise UserInputError(f"-o {path}: cannot write there: {error.strerror or error}") from None


# ---- one rank ------------------------------------------------------------------------


def worker_main(argv: list[str] | None = None) -> int:
    """One rank: ``python -m spikex.scaling.gups --options FILE --workdir DIR`` (internal)."""
    parser = argparse.ArgumentParser(
        prog="python -m spikex.scaling.gups", description="One rank of `spikex gups`."
    )
    parser.add_argument("--options", required=True)
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args(argv)
    workdir = Path(args.workdir)
    rank = 0
    try:
        from .. import _core

        rank = _core.comm_rank()
        options = json.loads(Path(args.options).read_text(encoding="utf-8"))
        result = _core.gups_run(options)
        if rank == 0:
            _write_atomically(workdir / RESULT_FILE, json.dumps(result))
    except ValueError as error:
        _write_atomically(
            workdir / CONFIG_ERROR_FILE, json.dumps({"kind": "config", "message": str(error)})
        )
        _end_job(2)
    except Exception as error:  # noqa: BLE001 - any other failure must end the whole job
        message = f"{type(error).__name__}: {error}"
        _write_atomically(
            workdir / RANK_ERROR_PATTERN.format(rank=rank),
            json.dumps(
                {"kind": "rank", "rank": rank, "host": socket.gethostname(), "message": message}
            ),
        )
        print(
            f"spikex gups: rank {rank} on host {socket.gethostname()} failed: {message}",
            file=sys.stderr,
            flush=True,
        )
        _end_job(3)
    return 0


def _end_job(status: int) -> None:
    """Exit this rank; with several ranks abort them all (they may be in a collective)."""
    from .. import _core

    if _core.comm_size() > 1:
        sys.stderr.flush()
        _core.comm_abort(status)
    sys.exit(status)


if __name__ == "__main__":
    sys.exit(worker_main())
