"""One rank of ``spikex run``: ``python -m spikex.launch.worker`` (under ``mpiexec`` for P > 1).

Reads the resolved configuration (JSON) the parent wrote, builds the network, simulates
it and, on rank 0, writes ``spikes.h5`` and ``summary.json`` into the output directory.
The files are written in the private work directory and renamed into the output
directory only at the end (spikes first, summary last), so ``summary.json`` exists only
for a complete run.

Failures are reported to the parent through files in the work directory:

* a user error (``ValueError``, including ``spikex._core.UserError``) on a rank:
  ``error.json`` ``{"kind": "config", "message": ...}``, exit status 2;
* anything else: ``error.rank<R>.json`` ``{"kind": "rank", "rank": R, "message": ...}``
  and ``comm_abort(3)``, which ends every rank, so nothing hangs.

* a rank that completes no spike exchange for ``simulation.stall_timeout_s`` (a lost host
  or link; ``watchdog.StallWatchdog``): ``error.rank<R>.json`` ``{"kind": "stall", ...}``
  and exit status 3 at once, from the watchdog thread (the main thread is stuck in MPI).

Every rank error names the rank and its host (``socket.gethostname()``).

Test hooks (tests only): with ``SPIKEX_TEST_KILL_RANK=R`` and ``SPIKEX_TEST_KILL_AT_MS=T``
in the environment, rank R sends itself SIGKILL once the simulation reaches T ms, as a
crashed process would (no error file, no clean-up; ``SPIKEX_TEST_KILL_SIGNAL=SIGSTOP``
freezes it instead, as a lost host would look to the others); with
``SPIKEX_TEST_FAIL_BUILD_RANK=R``, rank R raises an error while the others build.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import sys
from pathlib import Path

from .failures import CONFIG_ERROR_FILE
from .watchdog import STALL_EXIT_STATUS, stall_message

PROGRESS_FILE = "progress"
RANK_ERROR_PATTERN = "error.rank{rank}.json"
KILL_RANK_VARIABLE = "SPIKEX_TEST_KILL_RANK"
KILL_AT_MS_VARIABLE = "SPIKEX_TEST_KILL_AT_MS"
KILL_SIGNAL_VARIABLE = "SPIKEX_TEST_KILL_SIGNAL"
FAIL_BUILD_RANK_VARIABLE = "SPIKEX_TEST_FAIL_BUILD_RANK"


def main(argv: list[str] | None = None) -> int:
    """Run one rank; returns the exit status (or never returns after an abort)."""
    args = _parse_arguments(argv)
    workdir = Path(args.workdir or args.outdir)
    rank = 0
    try:
        from .. import _core  # initialised by importing the package

        rank = _core.comm_rank()
        config = json.loads(Path(args.config).read_text(encoding="utf-8"))
        run_rank(config, Path(args.outdir), workdir)
    except KeyboardInterrupt:
        return 130
    except ValueError as error:
        _write_json(workdir / CONFIG_ERROR_FILE, {"kind": "config", "message": str(error)})
        _end_job(2)
    except Exception as error:  # noqa: BLE001 - any other failure must end the whole job
        message = f"{type(error).__name__}: {error}"
        host = socket.gethostname()
        _write_json(
            workdir / RANK_ERROR_PATTERN.format(rank=rank),
            {"kind": "rank", "rank": rank, "host": host, "message": message},
        )
        print(
            f"spikex worker: rank {rank} on host {host} failed: {message}",
            file=sys.stderr,
            flush=True,
        )
        _end_job(3)
    return 0


def run_rank(config: dict, outdir: Path, workdir: Path, reporter=None) -> dict:
    """This rank's part of the run: build, simulate and, on rank 0, write the outputs
    (through `workdir`); the summary (the same on every rank). Errors propagate.
    `reporter` (progress.ProgressLines, launch mode b) is told the progress in this
    process; otherwise rank 0 writes it to a file for the parent."""
    from .. import _core
    from ..api.network import Network

    rank = _core.comm_rank()
    network = Network.from_config(config)
    if os.environ.get(FAIL_BUILD_RANK_VARIABLE, "") == str(rank):
        raise RuntimeError(
            f"{FAIL_BUILD_RANK_VARIABLE}={rank}: this rank fails while the others build"
        )
    progress = _progress_callback(rank, workdir, reporter)
    result = network.simulate(
        network.config["simulation"]["tstop_ms"],
        progress=progress,
        on_stall=_stall_reporter(rank, workdir),
    )
    if rank == 0:
        _write_outputs(result, network.config, workdir, outdir)
    return result.summary


def _parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m spikex.launch.worker",
        description="One rank of `spikex run` (internal; use `spikex run`).",
    )
    parser.add_argument("--config", required=True, help="resolved configuration (JSON)")
    parser.add_argument("--outdir", required=True, help="directory for summary.json, spikes.h5")
    parser.add_argument("--workdir", help="private directory for temporary files (default OUTDIR)")
    return parser.parse_args(argv)


def _stall_reporter(rank: int, workdir: Path):
    """What the watchdog does when this rank stops exchanging: say so, end the process."""

    def report(seconds: float) -> None:
        host = socket.gethostname()
        message = stall_message(seconds)
        _write_json(
            workdir / RANK_ERROR_PATTERN.format(rank=rank),
            {"kind": "stall", "rank": rank, "host": host, "message": message},
        )
        print(f"spikex worker: rank {rank} on host {host}: {message}", file=sys.stderr, flush=True)
        os._exit(STALL_EXIT_STATUS)  # the main thread is inside MPI: no clean exit exists

    return report


def _progress_callback(rank: int, workdir: Path, reporter=None):
    """Rank 0 writes the simulated ms, the ms to reach and the spikes of every rank so far
    for the parent's progress report; test kill hook. Every rank calls it after the same
    chunk, so the spike count can be gathered (about 100 small collectives per run)."""
    from .. import _core

    several = _core.comm_size() > 1
    kill_at_ms = None
    if os.environ.get(KILL_RANK_VARIABLE, "") == str(rank):
        kill_at_ms = float(os.environ.get(KILL_AT_MS_VARIABLE, "0"))
    progress_path = workdir / PROGRESS_FILE

    kill_signal = signal.Signals[os.environ.get(KILL_SIGNAL_VARIABLE, "SIGKILL")]

    def report(simulated_ms: float, until_ms: float) -> None:
        if kill_at_ms is not None and simulated_ms >= kill_at_ms:
            os.kill(os.getpid(), kill_signal)  # test hook: die (or freeze) like a crashed process
        spikes = _core.spikes_emitted_total() if several else _core.spikes_emitted()
        if reporter is not None:
            from .progress import ProgressSample

            reporter.update(ProgressSample(simulated_ms, spikes))
        elif rank == 0:
            _write_text(progress_path, f"{simulated_ms:.6f} {until_ms:.6f} {spikes}\n")

    return report


def _write_outputs(result, config: dict, workdir: Path, outdir: Path) -> None:
    from ..io.output import (
        SPIKES_FILE,
        SUMMARY_FILE,
        spikes_population,
        write_sonata_spikes,
        write_summary,
    )

    gids, times_ms = result.spikes
    write_sonata_spikes(
        workdir / SPIKES_FILE, result.populations or spikes_population(config), gids, times_ms
    )
    files = [SPIKES_FILE]
    if result.states:
        from ..io.output import STATE_FILE, write_sonata_report

        write_sonata_report(
            workdir / STATE_FILE, result.states, result.populations, result.summary["dt_ms"]
        )
        files.append(STATE_FILE)
    if result.timeline is not None:
        from ..io.timeline import TIMELINE_FILE, write_timeline

        summary = result.summary
        attributes = {
            "method": summary["method"],
            "ranks": summary["ranks"],
            "dt_ms": summary["dt_ms"],
            "steps_per_interval": summary["steps_per_interval"],
            "subintervals": summary["exchange"].get("subintervals", 1),
        }
        write_timeline(workdir / TIMELINE_FILE, result.timeline, attributes)
        files.append(TIMELINE_FILE)
    write_summary(workdir / SUMMARY_FILE, result.summary)
    outdir.mkdir(parents=True, exist_ok=True)
    if workdir.resolve() != outdir.resolve():
        for name in files:
            os.replace(workdir / name, outdir / name)
        os.replace(workdir / SUMMARY_FILE, outdir / SUMMARY_FILE)  # last: marks success


def _end_job(status: int) -> None:
    """Exit this rank; with several ranks, abort them all (they may be in a collective)."""
    try:
        from .. import _core

        if _core.comm_size() > 1:
            sys.stderr.flush()
            _core.comm_abort(status)
    except ImportError:
        pass
    sys.exit(status)


def _write_json(path: Path, content: dict) -> None:
    _write_text(path, json.dumps(content) + "\n")


def _write_text(path: Path, text: str) -> None:
    """Write atomically (temp name + rename) so the parent never reads half a file."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    except OSError as error:
        print(f"spikex worker: cannot write {path}: {error}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
