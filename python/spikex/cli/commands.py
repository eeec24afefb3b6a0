"""The ``spikex`` command line.

Exit status: 0 success; 2 invalid configuration or arguments (one line on stderr, no
traceback); 3 a rank failed or the run was aborted (one line naming the rank and cause).
Sub-commands return their exit status; ``main`` turns every expected error into one line.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .. import __version__
from ..api.run_control import STOPPED_EXIT_STATUS
from ..errors import ConfigError, RunError, UserInputError
from ..methods import EXCHANGE_METHODS
from ..launch.progress import DEFAULT_LINE_SECONDS, PROGRESS_MODES

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_RUN_FAILED = 3

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

SET_HELP = (
    "Override a configuration key by its dotted path, e.g. --set network.cells=4096 "
    "--set network.connectivity=adjacent (value parsed as TOML, else a bare string). "
    "Repeatable. Keys: docs/user/config.md."
)


def launcher_options(command):
    """--launcher, --hostfile and --launcher-args (launch mode c, docs/user/cluster.md)."""
    options = (
        click.option(
            "--launcher", default=None, metavar="COMMAND",
            help="Start the ranks with this launcher and its options, e.g. \"srun --mpi=pmix\" "
            "or \"mpirun --bind-to core\" [default: $SPIKEX_LAUNCHER, else mpiexec on this "
            "machine].",
        ),
        click.option(
            "--hostfile", type=click.Path(dir_okay=False, path_type=Path), default=None,
            help="Hosts to start the ranks on (OpenMPI: host slots=N per line).",
        ),
        click.option(
            "--launcher-args", "launcher_args", multiple=True, metavar="ARGS",
            help="More launcher options, passed through as a shell would split them, e.g. "
            "--launcher-args=\"--map-by ppr:1:socket:pe=8 --bind-to core\". Repeatable.",
        ),
    )  # fmt: skip
    for option in reversed(options):
        command = option(command)
    return command


def _launcher(launcher, hostfile, launcher_args):
    from ..launch.launcher import launcher_from_options

    return launcher_from_options(launcher, hostfile, launcher_args)


def _duration(option: str, text: str | None) -> float | None:
    """Seconds of "HH:MM:SS", "MM:SS" or "SS" (UserInputError otherwise)."""
    if text is None:
        return None
    parts = text.split(":")
    try:
        if not 1 <= len(parts) <= 3 or any(not p.strip().isdigit() for p in parts):
            raise ValueError
        seconds = 0
        for part in parts:
            seconds = seconds * 60 + int(part)
    except ValueError:
        raise UserInputError(f"{option} {text}: expected HH:MM:SS, e.g. 47:30:00") from None
    if seconds <= 0:
        raise UserInputError(f"{option} {text}: must be longer than 0 s")
    return float(seconds)


def _job_rank() -> int:
    from .. import _core

    return _core.comm_rank()


@click.group(context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, "--version", prog_name="spikex")
def cli() -> None:
    """spikex: a distributed spiking-network simulator built around spike exchange."""


@cli.command(context_settings=CONTEXT_SETTINGS)
@click.argument("config", type=click.Path(dir_okay=False, path_type=Path), required=False)
@click.option(
    "--np", "ranks", type=int, default=None,
    help="Number of MPI ranks; spikex launches mpiexec itself (1 rank: no launcher) [default: 1; "
    "inside an MPI job started by mpiexec or srun: that job's ranks, and nothing is launched].",
)  # fmt: skip
@click.option(
    "--threads", type=int, default=None,
    help="Threads per rank (OpenMP) [default: simulation.threads of CONFIG, 1].",
)  # fmt: skip
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE", help=SET_HELP)
@click.option(
    "-o", "--outdir", type=click.Path(file_okay=False, path_type=Path), default=None,
    help="Output directory for summary.json and spikes.h5 [default: ./spikex-out/<config stem>].",
)  # fmt: skip
@click.option(
    "--overwrite", is_flag=True,
    help="Replace the results (summary.json, spikes.h5) of an earlier run in OUTDIR. Without "
    "it an -o directory holding them is refused (exit 2), and the default OUTDIR's are kept "
    "in OUTDIR.previous-N.",
)  # fmt: skip
@click.option(
    "--resume", type=click.Path(path_type=Path), default=None, metavar="CHECKPOINT",
    help="Go on from a checkpoint (a directory of checkpoints: its latest) instead of CONFIG, "
    "on any --np, --threads and --set exchange.*/distribution.* (the same spikes); --set "
    "simulation.tstop_ms=... runs it longer [OUTDIR: the checkpoint's run's].",
)  # fmt: skip
@click.option(
    "--checkpoint-every", "checkpoint_every", type=click.FloatRange(min=0), default=None,
    metavar="MS", help="Write a checkpoint every MS of simulated time (checkpoint.every_ms).",
)  # fmt: skip
@click.option(
    "--checkpoint-dir", "checkpoint_dir", type=click.Path(path_type=Path, file_okay=False),
    default=None, metavar="DIR",
    help="Write checkpoints into DIR (checkpoint.dir) [default: OUTDIR/checkpoints].",
)  # fmt: skip
@click.option(
    "--stop-after", "stop_after", default=None, metavar="HH:MM:SS",
    help="Stop with a checkpoint after this much wall time (a batch job's time limit); exit "
    f"status {STOPPED_EXIT_STATUS}, as after SIGTERM.",
)  # fmt: skip
@launcher_options
@click.option(
    "--progress", type=click.Choice(PROGRESS_MODES), default="auto", show_default=True,
    help="Progress report on stderr: auto is a bar on a terminal and plain lines elsewhere "
    "(a batch log), from --progress-every seconds on.",
)  # fmt: skip
@click.option(
    "--progress-every", "progress_every", type=click.FloatRange(min=0.1), default=DEFAULT_LINE_SECONDS,
    show_default=True, metavar="SECONDS", help="Seconds between plain progress lines.",
)  # fmt: skip
def run(
    config: Path | None, ranks: int, threads: int | None, overrides: tuple[str, ...], outdir,
    overwrite, resume, checkpoint_every, checkpoint_dir, stop_after, launcher, hostfile,
    launcher_args, progress, progress_every,
) -> int:  # fmt: skip
    """Simulate the network of CONFIG (TOML) on --np MPI ranks, or go on from a checkpoint
    (--resume).

    Writes OUTDIR/summary.json and OUTDIR/spikes.h5 (SONATA); checkpoints into
    OUTDIR/checkpoints (docs/user/checkpoint.md). SIGTERM, or SIGUSR1 to the ranks, or
    --stop-after stops the run with a checkpoint and partial outputs (exit status 75).
    Started by mpiexec or srun (mpiexec -n 64 spikex run CONFIG), it runs as that job's ranks
    and launches nothing (docs/user/cluster.md). Exchange methods:
    """
    from ..launch.run import execute_run, plan_run

    if (config is None) == (resume is None):
        raise UserInputError("spikex run: give a CONFIG file or --resume CHECKPOINT (one of them)")
    if checkpoint_every is not None:
        overrides = (*overrides, f"checkpoint.every_ms={checkpoint_every}")
    if checkpoint_dir is not None:  # a TOML string, whatever the path looks like
        overrides = (*overrides, f"checkpoint.dir={json.dumps(str(checkpoint_dir.absolute()))}")
    plan = plan_run(
        config, ranks=ranks, threads=threads, overrides=overrides, outdir=outdir,
        launcher=_launcher(launcher, hostfile, launcher_args), overwrite=overwrite,
        resume=resume, stop_after_s=_duration("--stop-after", stop_after),
    )  # fmt: skip
    summary = execute_run(
        plan, progress=progress, progress_every_s=progress_every, allow_partial=True
    )
    if plan.in_job and _job_rank() != 0:
        return STOPPED_EXIT_STATUS if summary.get("partial") else EXIT_OK  # one answer per job
    click.echo(str(plan.outdir))  # stdout: only the output directory, for scripts
    if summary.get("partial"):
        from ..launch import job

        click.echo(
            f"spikex run: stopped by {job.clean_stop_requested_by or summary['stopped_by']} at {summary['simulated_ms']:g} ms "
            f"with a checkpoint; outputs so far (marked partial) in {plan.outdir}; go on with: "
            f"spikex run --resume {summary.get('checkpoint', '?')}",
            err=True,
        )
        return STOPPED_EXIT_STATUS
    if sys.stderr.isatty():
        click.echo(
            f"{summary['spikes_total']} spikes, spikes_sha256 {summary['spikes_sha256'][:12]}, "
            f"{summary['ranks']} rank(s), {summary['time_s']['total']:.2f} s",
            err=True,
        )
    return EXIT_OK


run.help = (
    run.help.rstrip() + " " + ", ".join(EXCHANGE_METHODS) + ". Spikes travel in the spike wire "
    "codec (docs/methods/wire_format.md): summary.json's exchange.wire_bytes_per_spike is at most "
    "ceil((1 + w + b) / 8) for blocks (w, b: bit widths of cells per rank - 1 and steps per "
    "interval - 1), so within 3 bytes while w + b <= 23 or blocks hold several spikes; sparse "
    "firing on more cells per rank takes up to 4."
)


@cli.command(context_settings=CONTEXT_SETTINGS)
@click.option(
    "--config", "config_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
    help="Configuration [default: examples/hines2011_demo.toml].",
)  # fmt: skip
@click.option(
    "--np-list", default="1,2,4", show_default=True, metavar="P,P,...",
    help="Rank counts to run, comma-separated.",
)  # fmt: skip
@click.option(
    "-o", "--outdir", type=click.Path(file_okay=False, path_type=Path),
    default=Path("demo-out"), show_default=True,
    help="Directory for the runs (OUTDIR/np<P>) and raster.png.",
)  # fmt: skip
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE", help=SET_HELP)
def demo(config_path, np_list: str, outdir: Path, overrides: tuple[str, ...]) -> int:
    """Run the Hines 2011 benchmark on 1, 2 and 4 ranks and compare them.

    Prints one table (where the time went), checks that every rank count gives the
    same spikes_sha256 (exit 1 if not) and saves OUTDIR/raster.png of the first 256
    cells (the paper's Figure 3).
    """
    from .demo import run_demo

    return run_demo(config_path, np_list, outdir, overrides)


@cli.command(context_settings=CONTEXT_SETTINGS)
@click.argument("config", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--methods", required=True, metavar="M[:KEY=VALUE...],...",
    help="Exchange methods to compare, comma-separated; options after ':' make variants, "
    "e.g. allgather:allgather_slots=20,multisend:subintervals=2:phases=2 (a KEY without a "
    "dot is in [exchange]).",
)  # fmt: skip
@click.option(
    "--np", "ranks", default=None, metavar="P,P,...",
    help="Rank counts, comma-separated [default: 1,2,4; inside an MPI job: that job's ranks].",
)  # fmt: skip
@click.option(
    "--repeat", type=int, default=1, show_default=True,
    help="Runs of every (method, ranks); the table shows median and spread.",
)  # fmt: skip
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE", help=SET_HELP)
@click.option(
    "--per-rank", "per_rank", multiple=True, metavar="KEY=VALUE",
    help="Weak scaling: set an integer key to VALUE times the rank count, e.g. "
    "--per-rank network.cells=1024. Repeatable.",
)  # fmt: skip
@click.option(
    "-o", "--outdir", type=click.Path(file_okay=False, path_type=Path), default=None,
    help="Output directory for compare.json and runs/ [default: ./spikex-out/<config stem>-compare].",
)  # fmt: skip
@launcher_options
def compare(
    config, methods, ranks, repeat, overrides, per_rank, outdir, launcher, hostfile, launcher_args
) -> int:
    """Run CONFIG with every method on every rank count and compare.

    Every run goes through the code path of `spikex run` into OUTDIR/runs/. Checks that
    all runs give the same spikes_sha256 (exit 1 and a report naming the runs if not),
    writes OUTDIR/compare.json and prints a table per method and rank count: run time,
    computation time (rank 0, mean, max), wait, exchange, messages, bytes, memory.
    Methods:
    """
    from ..compare.comparison import compare_command

    return compare_command(
        config, methods, ranks, repeat, overrides, per_rank, outdir,
        launcher=_launcher(launcher, hostfile, launcher_args),
    )  # fmt: skip


compare.help = compare.help.rstrip() + " " + ", ".join(EXCHANGE_METHODS) + "."


@cli.command(context_settings=CONTEXT_SETTINGS)
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "-o", "--outdir", type=click.Path(file_okay=False, path_type=Path), default=None,
    help="Where to write the figures [default: DIRECTORY/plots].",
)  # fmt: skip
def plot(directory: Path, outdir) -> int:
    """Figures (PNG and SVG) of a run's or a comparison's output DIRECTORY.

    A run (summary.json): spike raster, per-interval computation and total time per rank
    (needs record.timeline = true), time per phase, memory per structure. A comparison
    (compare.json) adds run time against ranks per method. Prints the files written.
    """
    from ..plots import plot_command

    return plot_command(directory, outdir)


@cli.command(context_settings=CONTEXT_SETTINGS)
@click.option(
    "--np", "ranks", type=int, default=None,
    help="Number of MPI ranks [default: 1; inside an MPI job: that job's ranks].",
)  # fmt: skip
@click.option(
    "--algorithm", type=click.Choice(["baseline", "routed"]), default="routed", show_default=True,
    help="baseline: a bucket per destination, fullest sent at the budget (HPCC reference "
    "scheme); routed: software routing over a logical grid (Garg & Sabharwal).",
)  # fmt: skip
@click.option(
    "--log2-table", type=int, default=None, metavar="K",
    help="Table of 2^K 64-bit words in total, over all ranks [default: 20].",
)  # fmt: skip
@click.option(
    "--mem-fraction", type=float, default=None, metavar="F",
    help="Instead of --log2-table: the largest 2^K words within F of this machine's memory.",
)  # fmt: skip
@click.option(
    "--dims", default=None, metavar="SHAPE",
    help="routed: grid auto | hypercube | 4x2 | [4,2,2]; only the last dimension may be "
    "incomplete [default: auto].",
)  # fmt: skip
@click.option(
    "--budget", type=int, default=1024, show_default=True,
    help="Updates looked ahead or buffered per rank (the benchmark allows 1024).",
)  # fmt: skip
@click.option(
    "--message-bytes", type=int, default=None, metavar="BYTES",
    help="routed: a full bucket's message at most [default: 4032, under OpenMPI's "
    "shared-memory eager limit of 4 KiB].",
)  # fmt: skip
@click.option(
    "--lanes", type=int, default=None, metavar="N",
    help="routed: buckets per partner, filled in turn while the others are in flight "
    "[default: 2].",
)  # fmt: skip
@click.option(
    "--shared-memory/--no-shared-memory", default=None,
    help="routed: messages to ranks on the same node through shared-memory mailboxes "
    "instead of MPI messages [default: on].",
)  # fmt: skip
@click.option(
    "--profile", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
    help="routed: take the grid the time model predicts fastest with this machine profile "
    "(e.g. profiles/netns-1gbit.toml: the direct grid or any grid that P fills exactly) "
    "instead of --dims.",
)  # fmt: skip
@click.option("--no-verify", is_flag=True, help="Skip the verification pass.")
@click.option(
    "--huge-pages/--no-huge-pages", default=True, show_default=True,
    help="Ask the kernel for transparent huge pages for the table (fewer TLB misses).",
)  # fmt: skip
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
    default=Path("spikex-out/gups.json"), show_default=True, help="Result JSON.",
)  # fmt: skip
# Tests only: rank 0 spoils its first K updates, so that verification must fail.
@click.option("--corrupt-updates", type=int, default=0, hidden=True)
@launcher_options
def gups(
    ranks, algorithm, log2_table, mem_fraction, dims, budget, message_bytes, lanes, shared_memory,
    profile, no_verify, huge_pages, output, corrupt_updates, launcher, hostfile, launcher_args,
) -> int:  # fmt: skip
    """HPCC MPIRandomAccess: random XOR updates of a distributed table, in GUPS.

    4 x table-size updates from the HPCC stream; verification re-applies them and passes
    when at most 1% of the words are wrong. Prints GUPS, GUPS per rank, updates, time,
    errors, pass/fail, messages and mean updates per message, and writes them as JSON.
    Exit status 1 when verification fails.
    """
    from ..scaling.gups import execute_gups, format_result, plan_gups

    verify = not no_verify
    plan = plan_gups(
        ranks, algorithm, log2_table, mem_fraction, dims, budget, verify, corrupt_updates, output,
        launcher=_launcher(launcher, hostfile, launcher_args), huge_pages=huge_pages,
        message_bytes=message_bytes, lanes=lanes, shared_memory=shared_memory, profile=profile,
    )  # fmt: skip
    result = execute_gups(plan)
    if not plan.in_job or _job_rank() == 0:  # one answer per job
        click.echo(format_result(result))
    return EXIT_OK if result["passed"] is not False else 1


@cli.group(context_settings=CONTEXT_SETTINGS)
def model() -> None:
    """Models: build a NESTML model; predict beyond this machine (dry runs for a virtual
    rank count, time model, figures)."""


@model.command(name="build", context_settings=CONTEXT_SETTINGS)
@click.argument("nestml_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "-o", "--outdir", type=click.Path(file_okay=False, path_type=Path), default=None,
    help="Where the library goes [default: the cache, $SPIKEX_MODEL_CACHE or ~/.cache/spikex/models].",
)  # fmt: skip
def build_model(nestml_file: Path, outdir: Path | None) -> int:
    """Build a NESTML neuron model into a library spikex loads (docs/user/nestml.md).

    Prints the model's name and the library's path. A model NESTML refuses, or one using
    a feature spikex's generator does not support, exits with status 2 and says why.
    """
    from ..nestml import build

    built = build(nestml_file, outdir)
    click.echo(f"{built.name}: {built.library}{' (cached)' if built.cached else ''}")
    return EXIT_OK


@model.command(context_settings=CONTEXT_SETTINGS)
@click.argument("config", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--np", "ranks", type=int, required=True, help="Virtual number of ranks P.")
@click.option(
    "--method", "methods", default=None, metavar="M[:KEY=VALUE...],...",
    help="Methods to count, comma-separated, with variants as in `spikex compare`, e.g. "
    "allgather,multisend:phases=2 [default: the config's exchange.method].",
)  # fmt: skip
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE", help=SET_HELP)
@click.option(
    "--spikes", "spikes_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
    help="Take the spike train from this spikes.h5 of a run of the same network "
    "[default: simulate it here on one rank].",
)  # fmt: skip
@click.option(
    "--sample-ranks", type=int, default=1024, show_default=True,
    help="Count every rank up to this many; beyond, this many ranks spread evenly.",
)  # fmt: skip
@click.option(
    "--profile", "profiles", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
    help="Machine profile (TOML, e.g. profiles/bgp.toml) to predict time per interval with. Repeatable.",
)  # fmt: skip
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
    help="Result JSON [default: ./spikex-out/<config stem>-dryrun-np<P>.json].",
)  # fmt: skip
def dryrun(config, ranks, methods, overrides, spikes_path, sample_ranks, profiles, output) -> int:
    """Count exactly what each exchange method would do on P ranks, without running them.

    Partitions the real network of CONFIG for P ranks (real distribution and connection
    rules) and counts, per rank and per interval, messages, bytes, partners, buffer sizes,
    fan-out, relays, hops and memory per structure. Writes JSON (max / mean / distribution
    over ranks) and prints a summary table.
    """
    from ..scaling.dryrun import execute_dryrun, format_dryrun, plan_dryrun, write_dryrun
    from ..scaling.time_model import add_predictions, format_predictions, load_profile

    plan = plan_dryrun(config, ranks, methods, overrides, spikes_path, sample_ranks)
    machines = [load_profile(path) for path in profiles]
    result = execute_dryrun(plan)
    for machine in machines:
        add_predictions(result, machine)
    output = output or Path("spikex-out") / f"{Path(config).stem}-dryrun-np{ranks}.json"
    output.parent.mkdir(parents=True, exist_ok=True)
    write_dryrun(output, result)
    click.echo(format_dryrun(result), err=True)
    for prediction in result.get("predictions", {}).values():
        click.echo(format_predictions(prediction), err=True)
    click.echo(str(output))
    return EXIT_OK


@model.command(context_settings=CONTEXT_SETTINGS)
@click.argument("dryrun_json", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--profile", "profiles", multiple=True, required=True,
    type=click.Path(dir_okay=False, path_type=Path), help="Machine profile TOML. Repeatable.",
)  # fmt: skip
def predict(dryrun_json, profiles) -> int:
    """Predicted time per interval of every method of a dry run's JSON, per machine profile."""
    from ..scaling.time_model import format_predictions, predict_file

    for path in profiles:
        click.echo(format_predictions(predict_file(dryrun_json, path)))
    return EXIT_OK


@model.command(context_settings=CONTEXT_SETTINGS)
@click.option(
    "-o", "--outdir", type=click.Path(file_okay=False, path_type=Path),
    default=Path("spikex-out/model-figures"), show_default=True, help="Where to write JSON and PNG.",
)  # fmt: skip
def figures(outdir) -> int:
    """The papers' analytic figures: NEST Figure 1, Garg & Sabharwal Tables 2 and 3."""
    from ..scaling.analytic import write_figures

    for path in write_figures(outdir):
        click.echo(str(path))
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``spikex`` command; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        click.echo(cli.get_help(click.Context(cli, info_name="spikex")))
        return EXIT_OK
    try:
        status = cli.main(args=argv, prog_name="spikex", standalone_mode=False)
    except click.exceptions.UsageError as error:
        return _fail(f"error: {error.format_message()}{_help_hint(error)}", EXIT_USAGE)
    except click.exceptions.Abort:
        return _fail("error: aborted", EXIT_RUN_FAILED)
    except ConfigError as error:
        return _fail(str(error), EXIT_USAGE)
    except (UserInputError, ValueError) as error:
        return _fail(_user_error_text(str(error)), EXIT_USAGE)
    except RunError as error:
        return _fail(f"error: {error}", EXIT_RUN_FAILED)
    return status if isinstance(status, int) else EXIT_OK


def _user_error_text(message: str) -> str:
    # Errors from the workers may already be configuration errors with their prefix.
    return message if message.startswith("config error:") else f"error: {message}"


def _fail(message: str, status: int) -> int:
    click.echo("spikex: " + " ".join(message.split()), err=True)
    return status


def _help_hint(error: click.exceptions.UsageError) -> str:
    command = error.ctx.command_path if error.ctx is not None else "spikex"
    return f" (see '{command} --help')"


if __name__ == "__main__":
    sys.exit(main())
