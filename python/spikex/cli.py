"""The ``spikex`` command line.

Exit status: 0 success; 2 invalid configuration or arguments (one line on stderr, no
traceback); 3 a rank failed or the run was aborted (one line naming the rank and cause).
Sub-commands return their exit status; ``main`` turns every expected error into one line.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from . import __version__
from .errors import ConfigError, RunError, UserInputError
from .methods import EXCHANGE_METHODS

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_RUN_FAILED = 3

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

SET_HELP = (
    "Override a configuration key by its dotted path, e.g. --set network.cells=4096 "
    "--set network.connectivity=adjacent (value parsed as TOML, else a bare string). "
    "Repeatable. Keys: docs/user/config.md."
)


@click.group(context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, "--version", prog_name="spikex")
def cli() -> None:
    """spikex: a distributed spiking-network simulator built around spike exchange."""


@cli.command(context_settings=CONTEXT_SETTINGS)
@click.argument("config", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--np", "ranks", type=int, default=1, show_default=True,
    help="Number of MPI ranks; spikex launches mpiexec itself (1 rank: no launcher).",
)  # fmt: skip
@click.option(
    "--threads", type=int, default=1, show_default=True,
    help="Threads per rank (only 1 so far).",
)  # fmt: skip
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE", help=SET_HELP)
@click.option(
    "-o", "--outdir", type=click.Path(file_okay=False, path_type=Path), default=None,
    help="Output directory for summary.json and spikes.h5 [default: ./spikex-out/<config stem>].",
)  # fmt: skip
def run(config: Path, ranks: int, threads: int, overrides: tuple[str, ...], outdir) -> int:
    """Simulate the network of CONFIG (TOML) on --np MPI ranks.

    Writes OUTDIR/summary.json and OUTDIR/spikes.h5 (SONATA). Exchange methods:
    """
    from .run import execute_run, plan_run

    plan = plan_run(config, ranks=ranks, threads=threads, overrides=overrides, outdir=outdir)
    summary = execute_run(plan)
    click.echo(str(plan.outdir))  # stdout: only the output directory, for scripts
    if sys.stderr.isatty():
        click.echo(
            f"{summary['spikes_total']} spikes, spikes_sha256 {summary['spikes_sha256'][:12]}, "
            f"{summary['ranks']} rank(s), {summary['time_s']['total']:.2f} s",
            err=True,
        )
    return EXIT_OK


run.help = run.help.rstrip() + " " + ", ".join(EXCHANGE_METHODS) + "."


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
