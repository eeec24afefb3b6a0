"""The terminal table of ``spikex compare``: one row per (method, ranks).

Each time cell is the median over repeats; with more than one repeat it is followed by
``±`` half the range (max - min) over the repeats. Counts and memory are medians too.
"""

from __future__ import annotations

from rich.table import Table

# (metric, column header, format) in table order.
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("run_s", "run s", "time"),
    ("comp_rank0_s", "comp r0 s", "time"),
    ("comp_mean_s", "comp mean s", "time"),
    ("comp_max_s", "comp max s", "time"),
    ("wait_s", "wait s", "time"),
    ("exchange_s", "exchange s", "time"),
    ("messages", "messages", "count"),
    ("bytes", "bytes", "count"),
    ("peak_rss_mb", "peak RSS MB", "memory"),
    ("structures_mb", "structures MiB", "memory"),
)
MISSING = "-"


def comparison_table(comparison: dict) -> Table:
    """Rich table of a ``compare.json`` content.

    Parameters
    ----------
    comparison : dict
        From ``spikex.compare.comparison.execute_comparison`` (or read from ``compare.json``).

    Returns
    -------
    rich.table.Table
        Method, ranks, then the columns of ``COLUMNS``.
    """
    repeat = int(comparison.get("repeat", 1))
    title = f"spikex compare {comparison.get('config_file', '')}"
    networks = comparison.get("networks", [])
    if comparison.get("spikes_agree") and len(networks) == 1:
        caption = (
            f"all {len(comparison['runs'])} runs: spikes_sha256 {networks[0]['spikes_sha256'][:12]}"
        )
    elif comparison.get("spikes_agree"):
        caption = f"{len(networks)} networks (one per --per-rank size): each network's runs agree"
    else:
        caption = "SPIKES DIFFER between runs of the same network (see the report below)"
    if repeat > 1:
        caption += f"; median of {repeat} repeats ± half the range"
    table = Table(title=title, caption=caption)
    table.add_column("method", justify="left")
    table.add_column("ranks", justify="right")
    table.add_column("cells", justify="right")
    for _, header, _ in COLUMNS:
        table.add_column(header, justify="right")
    for combination in comparison["combinations"]:
        statistics = combination["metrics"]
        cells = [format_statistic(statistics[name], kind, repeat > 1) for name, _, kind in COLUMNS]
        table.add_row(
            combination["method"], str(combination["ranks"]), str(combination["cells"]), *cells
        )
    return table


def format_statistic(statistic: dict, kind: str, with_spread: bool) -> str:
    """One cell: the median, and ``±`` half the spread for times over several repeats."""
    median = statistic.get("median")
    if median is None:
        return MISSING
    if kind == "count":
        return f"{median:,.0f}"
    if kind == "memory":
        return f"{median:.1f}"
    text = f"{median:.3f}"
    if with_spread and statistic.get("spread") is not None:
        text += f" ±{statistic['spread'] / 2:.3f}"
    return text
