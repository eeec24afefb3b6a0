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
import time
from pathlib import Path

from ..runtime.watchdog import abort_stalled_job, stall_message
from .failures import CONFIG_ERROR_FILE

PROGRESS_FILE = "progress"
# The signal a user sent to `spikex run`, written there before it relays SIGUSR1 to the
# ranks: summary.json's "stopped_by" names the user's signal, not the relay.
STOP_REQUEST_FILE = "stop_request"
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
        summary = run_rank(
            config,
            Path(args.outdir),
            workdir,
            resume=Path(args.resume) if args.resume else None,
            stop_at=args.stop_at,
        )
        if summary.get("partial"):
            from ..api.run_control import STOPPED_EXIT_STATUS

            return STOPPED_EXIT_STATUS
    except KeyboardInterrupt:
        return 130
    except ValueError as error:
        _write_json(workdir / CONFIG_ERROR_FILE, {"kind": "config", "message": str(error)})
        _end_job(2)
    except Exception as error:  # noqa: BLE001 - any other failure must end the whole job
        message = f"{type(error).__name__}: {error}"
        if isinstance(error, OSError) and error.strerror:  # a file that cannot be written
            message = f"{error.strerror} (the last complete checkpoint stays resumable)"
        host = socket.gethostname()
        _write_json(
            workdir / RANK_ERROR_PATTERN.format(rank=rank),
            {"kind": "rank", "rank": rank, "host": host, "message": message},
        )
        _say(f"spikex worker: rank {rank} on host {host} failed: {message}")
        _end_job(3)
    return 0


def run_rank(
    config: dict,
    outdir: Path,
    workdir: Path,
    reporter=None,
    resume: Path | None = None,
    stop_at: float | None = None,
    own_launcher: bool = True,
) -> dict:
    """This rank's part of the run: build (or restore from the checkpoint `resume`),
    simulate with spikes streamed to OUTDIR/.spikes.log and checkpoints
    (``[checkpoint]``, and at a stop), and on rank 0 write the outputs; the summary (the
    same on every rank; ``summary["partial"]`` when a signal or the deadline `stop_at`
    (``time.time()``) stopped it). Errors propagate. `reporter` (progress.ProgressLines,
    launch mode b) is told the progress in this process; otherwise rank 0 writes it to a
    file for the parent. `own_launcher`: spikex started the launcher (modes a, c) and ends
    it when a rank stalls; otherwise (mode b) a stalled rank ends the job itself."""
    from .. import _core
    from ..api.network import Network
    from ..api.run_control import catch_stop_signals
    from .spike_output import SpikeOutput

    catch_stop_signals()  # a stop asked for while building acts at the first chunk
    rank = _core.comm_rank()
    network = Network.from_config(config)
    if os.environ.get(FAIL_BUILD_RANK_VARIABLE, "") == str(rank):
        raise RuntimeError(
            f"{FAIL_BUILD_RANK_VARIABLE}={rank}: this rank fails while the others build"
        )
    output = SpikeOutput(network, outdir)
    if resume is not None:
        from ..api.checkpointing import restore_network
        from ..io.checkpoint import open_checkpoint
        from ..version import __version__

        checkpoint = open_checkpoint(resume, __version__, hashes=False)  # hashed by the parent
        restore_network(network, checkpoint)
        output.resume(checkpoint)
    else:
        network.build()  # first: a network that cannot be built leaves no OUTDIR
        output.start()
    control = _run_control(network, output, stop_at)
    result = network.simulate_until(
        network.config["simulation"]["tstop_ms"],
        progress=_progress_callback(rank, workdir, reporter),
        on_stall=_stall_reporter(rank, workdir, end_launcher=not own_launcher),
        control=control,
    )
    summary = result.summary
    if control.stop_reason is not None:
        summary["partial"] = True
        summary["stopped_by"] = control.stop_reason
        if control.stop_reason == "SIGUSR1":  # perhaps spikex run's relay of a user's signal
            summary["stopped_by"] = _stop_requested_by(workdir) or "SIGUSR1"
    if control.checkpoints_written:
        summary["checkpoint"] = str(control.checkpoints_written[-1])
    if resume is not None:
        summary["resumed_from"] = str(Path(resume).absolute())
    # The log stays while checkpoints refer to it (this run's, or the one it resumed).
    spikes = output.finish(keep_log=bool(control.checkpoints_written) or resume is not None)
    if rank == 0:
        _write_outputs(result, network.config, workdir, outdir, spikes, network.sonata)
    return summary


def _stop_requested_by(workdir: Path) -> str | None:
    """The signal `spikex run` relayed as SIGUSR1, if it did (STOP_REQUEST_FILE)."""
    try:
        return (Path(workdir) / STOP_REQUEST_FILE).read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def _run_control(network, output, stop_at: float | None):
    """Checkpoints every ``checkpoint.every_ms`` and at a stop, into ``checkpoint.dir``."""
    from ..api.checkpointing import save_network
    from ..api.run_control import RunControl
    from ..io.checkpoint import DEFAULT_DIR_NAME

    settings = network.config["checkpoint"]
    directory = Path(settings["dir"]) if settings["dir"] else output.outdir / DEFAULT_DIR_NAME

    def checkpoint(reason: str) -> Path:
        return save_network(network, directory, keep=settings["keep"], spikes=output.reference())

    deadline = None
    if stop_at is not None:
        deadline = time.monotonic() + (stop_at - time.time())
    return RunControl(
        checkpoint_every_ms=settings["every_ms"], checkpoint=checkpoint, deadline=deadline
    )


def _parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m spikex.launch.worker",
        description="One rank of `spikex run` (internal; use `spikex run`).",
    )
    parser.add_argument("--config", required=True, help="resolved configuration (JSON)")
    parser.add_argument("--outdir", required=True, help="directory for summary.json, spikes.h5")
    parser.add_argument("--workdir", help="private directory for temporary files (default OUTDIR)")
    parser.add_argument("--resume", help="checkpoint to go on from (verified by spikex run)")
    parser.add_argument("--stop-at", type=float, help="stop with a checkpoint at this time.time()")
    return parser.parse_args(argv)


def _stall_reporter(rank: int, workdir: Path, end_launcher: bool):
    """What the watchdog does when this rank stops exchanging: say so, end the process."""

    def report(seconds: float) -> None:
        host = socket.gethostname()
        message = stall_message(seconds)
        _write_json(
            workdir / RANK_ERROR_PATTERN.format(rank=rank),
            {"kind": "stall", "rank": rank, "host": host, "message": message},
        )
        print(f"spikex worker: rank {rank} on host {host}: {message}", file=sys.stderr, flush=True)
        abort_stalled_job(end_launcher)  # the whole job, also under a launcher spikex does not own

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


def _write_outputs(
    result, config: dict, workdir: Path, outdir: Path, spikes: Path, sonata=None
) -> None:
    """Rank 0: the spike file (made from the log), reports, then summary.json last, each
    renamed into OUTDIR from a temporary name. A SONATA circuit's (`sonata`) reports go to
    their own files, its config's spike files beside spikes.h5 (spikex.sonata.outputs)."""
    from ..io.output import SPIKES_FILE, SUMMARY_FILE, write_summary

    outdir.mkdir(parents=True, exist_ok=True)
    os.replace(spikes, outdir / SPIKES_FILE)
    files = []
    states = result.states
    if sonata is not None:
        reported = set(sonata.reports.values())
        states = [state for k, state in enumerate(states) if k not in reported]
        sonata.write_outputs(result, outdir, outdir / SPIKES_FILE)
        simulation = config["simulation"]
        recorded_ms = max(0.0, simulation["tstop_ms"] - (simulation.get("presim_ms") or 0.0))
        result.summary["populations"] = sonata.grouped_summary_from_file(
            result.summary["populations"], outdir / SPIKES_FILE, recorded_ms
        )
    if states:
        from ..io.output import STATE_FILE, write_sonata_report

        write_sonata_report(
            workdir / STATE_FILE, states, result.populations, result.summary["dt_ms"]
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
    if workdir.resolve() != outdir.resolve():
        for name in files:
            os.replace(workdir / name, outdir / name)
        os.replace(workdir / SUMMARY_FILE, outdir / SUMMARY_FILE)  # last: marks success


def _say(line: str) -> None:
    """One line on stderr, if it can be written (its log may be on a full disk)."""
    try:
        print(line, file=sys.stderr, flush=True)
    except OSError:
        pass


def _end_job(status: int) -> None:
    """Exit this rank; with several ranks, abort them all (they may be in a collective).
    No interpreter clean-up: an HDF5 file whose writes failed (a full disk) crashes the
    library when it is closed."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except OSError:
            pass
    try:
        from .. import _core

        if _core.comm_size() > 1:
            _core.comm_abort(status)
    except ImportError:
        pass
    os._exit(status)


def _write_json(path: Path, content: dict) -> None:
    _write_text(path, json.dumps(content) + "\n")


def _write_text(path: Path, text: str) -> None:
    """Write atomically (temp name + rename) so the parent never reads half a file."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        _say(f"spikex worker: cannot write {path}: {error}")


if __name__ == "__main__":
    sys.exit(main())
