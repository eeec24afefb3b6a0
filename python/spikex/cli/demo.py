"""``spikex demo``: the Hines et al. 2011 benchmark on several rank counts, compared.

Runs the demo configuration through exactly the code path of ``spikex run`` (plan,
launch, summary) for each rank count, prints one table of where the time went, checks
that every rank count produced the same spikes and saves a raster plot.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from ..errors import ConfigError
from ..io.output import SPIKES_FILE, read_sonata_spikes
from ..launch.run import execute_run, plan_run

DEMO_CONFIG = Path("examples") / "hines2011_demo.toml"
RASTER_FILE = "raster.png"
RASTER_CELLS = 256
SHA_PREFIX = 12


def run_demo(
    config_path: Path | None, np_list: str, outdir: Path, overrides: tuple[str, ...]
) -> int:
    """Run, tabulate, compare, plot. Returns 0 if all spikes_sha256 agree, else 1."""
    config_path = config_path or _default_config()
    ranks_list = parse_np_list(np_list)
    # OUTDIR/np<P> are the demo's own: a second demo replaces the first one's runs.
    plans = [
        plan_run(
            config_path,
            ranks=ranks,
            overrides=overrides,
            outdir=outdir / f"np{ranks}",
            overwrite=True,
        )
        for ranks in ranks_list
    ]  # validate every run before starting the first
    summaries = [execute_run(plan, label=f"np={plan.ranks}") for plan in plans]
    console = _console()
    console.print(summary_table(summaries, config_path))
    hashes = {summary["spikes_sha256"] for summary in summaries}
    raster = outdir / RASTER_FILE
    save_raster(plans[0].outdir / SPIKES_FILE, raster, plans[0].tstop_ms)
    console.print(f"raster plot of the first {RASTER_CELLS} cells: {raster}")
    if len(hashes) == 1:
        console.print(
            f"all {len(summaries)} runs give the same spikes: "
            f"spikes_sha256 {hashes.pop()[:SHA_PREFIX]}"
        )
        return 0
    console.print("[bold red]spikes_sha256 differ between rank counts[/bold red]")
    return 1


def parse_np_list(text: str) -> list[int]:
    """``"1,2,4"`` -> ``[1, 2, 4]``; ConfigError if not positive integers."""
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        values = []
    if not values or min(values) < 1:
        raise ConfigError("--np-list", text, "must be comma-separated integers >= 1, e.g. 1,2,4")
    return values


def summary_table(summaries: list[dict], config_path: Path) -> Table:
    """One row per run: size, hash prefix, times, memory, exchange volume."""
    first = summaries[0]
    table = Table(
        title=(
            f"{config_path.name}: {first['cells']} cells, {first['connections']} connections, "
            f"{first['config']['simulation']['tstop_ms']:g} ms"
        )
    )
    for header in (
        "ranks", "method", "spikes", "sha256", "build s", "simulate s",
        "compute s", "wait s", "exchange s", "peak RSS MB", "exchange bytes",
    ):  # fmt: skip
        table.add_column(header, justify="left" if header in ("method", "sha256") else "right")
    for summary in summaries:
        times = summary["time_s"]
        table.add_row(
            str(summary["ranks"]),
            summary["method"],
            str(summary["spikes_total"]),
            summary["spikes_sha256"][:SHA_PREFIX],
            f"{times['build']:.3f}",
            f"{times['simulate']:.3f}",
            f"{times['compute']:.3f}",
            f"{times['wait']:.3f}",
            f"{times['exchange']:.3f}",
            f"{summary['peak_rss_mb']['max']:.1f}",
            f"{summary['exchange']['bytes_sent']:,}",
        )
    return table


def save_raster(
    spikes_path: Path, png_path: Path, tstop_ms: float, cells: int = RASTER_CELLS
) -> None:
    """Raster plot (gid against time) of the first ``cells`` cells, as in Figure 3."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    gids, times_ms = read_sonata_spikes(spikes_path)
    shown = gids < cells
    figure, axes = plt.subplots(figsize=(8, 5), dpi=150)
    axes.scatter(times_ms[shown], gids[shown], s=4.0, marker=".", color="black", linewidths=0)
    axes.set_xlim(0.0, tstop_ms)
    axes.set_xlabel("time (ms)")
    axes.set_ylabel("cell (gid)")
    axes.set_ylim(-1, cells)
    axes.set_title(
        f"Spike raster of {cells} artificial cells (Hines, Kumar & Schürmann 2011, Fig. 3)"
    )
    figure.tight_layout()
    png_path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(png_path)
    plt.close(figure)


def _default_config() -> Path:
    """examples/hines2011_demo.toml of the working directory, else of the source tree."""
    candidates = [DEMO_CONFIG, Path(__file__).resolve().parents[3] / DEMO_CONFIG]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    return DEMO_CONFIG  # load_config reports it as not found


def _console() -> Console:
    # Off a terminal rich assumes 80 columns and would squeeze the table.
    console = Console()
    return console if console.is_terminal else Console(width=160)
