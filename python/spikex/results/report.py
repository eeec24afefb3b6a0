"""``docs/results.md``: measured tables and figures next to the papers' published numbers.

One section per experiment of the manifest: what the paper ran and what ran here (the
``spikex compare`` command), the measured numbers in the paper's layout (methods as
columns under the paper's names; rows by rank count, or for ``vary`` experiments by the
first axis and method, columns by the other axes, as in Hines et al. 2011 Table 3), the
spike-hash check, a few facts computed from the numbers, all numbers in a collapsed
table, the published table or findings, the paragraph on what carries over to this
machine, and the figures.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from ..compare.run_metrics import METRICS
from .experiments import Experiment
from .machine import MachineDescription
from .published import PUBLISHED, PublishedTable
from .runner import SweepResult

METRIC_HEADERS = {
    "run_s": "Run s",
    "comp_rank0_s": "Comp r0 s",
    "comp_mean_s": "Comp mean s",
    "comp_max_s": "Comp max s",
    "wait_s": "Wait s",
    "exchange_s": "Exchange s",
    "send_s": "Send s",
    "build_s": "Build s",
    "init_s": "Init s",
    "total_s": "Total s",
    "messages": "Messages",
    "bytes": "Bytes",
    "rounds": "Rounds",
    "peak_rss_mb": "Peak RSS MB",
    "structures_mb": "Structures MiB",
    "spikes": "Spikes",
    "events_delivered": "Events",
}
DETAIL_METRICS = (
    "run_s", "comp_rank0_s", "comp_mean_s", "comp_max_s", "wait_s", "exchange_s",
    "build_s", "init_s", "messages", "bytes", "rounds", "peak_rss_mb", "structures_mb",
)  # fmt: skip
FIGURE_CAPTIONS = {
    "raster": "Spike raster (cf. Hines et al. 2011, Figs. 3 and 9)",
    "intervals": "Time per interval: computation rank 0 thin, mean thick, max dashed, total red "
    "(cf. Hines et al. 2011, Figs. 5-8)",
    "scaling": "Run time (solid) and rank-0 computation (dashed) against ranks "
    "(cf. Hines et al. 2011, Fig. 4)",
    "breakdown": "Run time by phase (cf. Jordan et al. 2018, Fig. 12)",
    "memory": "Memory per data structure and peak RSS (cf. Jordan et al. 2018, Figs. 4B, 7D)",
}


def write_report(
    path: Path,
    experiments: list[Experiment],
    results: dict[str, list[SweepResult]],
    machine: MachineDescription,
    quick: bool,
) -> None:
    """Write ``docs/results.md`` (and ``measurements.json`` beside its figures)."""
    path = Path(path)
    lines = _preamble(experiments, results, machine, quick)
    for number, experiment in enumerate(experiments, start=1):
        if experiment.name in results:
            lines += _section(number, experiment, results[experiment.name], path.parent)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")


def write_measurements(path: Path, results: dict[str, list[SweepResult]]) -> None:
    """The medians of every sweep as JSON (the data behind the tables)."""
    content = {}
    for sweep_results in results.values():
        for result in sweep_results:
            entry = {"command": result.sweep.command_line(), "error": result.error}
            if result.comparison is not None:
                entry["spikes_agree"] = result.comparison["spikes_agree"]
                entry["networks"] = [
                    {key: network[key] for key in ("label", "runs", "spikes_sha256")}
                    for network in result.comparison["networks"]
                ]
                entry["combinations"] = [
                    {
                        "method": item["method"],
                        "ranks": item["ranks"],
                        "cells": item["cells"],
                        "median": {k: v["median"] for k, v in item["metrics"].items()},
                    }
                    for item in result.comparison["combinations"]
                ]
            content[result.sweep.key] = entry
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(content, indent=1) + "\n", encoding="utf-8")


# ---- preamble ---------------------------------------------------------------------------


def _preamble(experiments, results, machine: MachineDescription, quick: bool) -> list[str]:
    runs = sum(
        len(result.comparison["runs"])
        for sweep_results in results.values()
        for result in sweep_results
        if result.comparison is not None
    )
    minutes = sum(r.seconds for rs in results.values() for r in rs) / 60.0
    started = min(
        (r.comparison["created"] for rs in results.values() for r in rs if r.comparison),
        default="-",
    )
    size = (
        "reduced size (`--quick`: shorter simulations, fewer ranks; see each experiment's "
        "`quick` entry in the manifest)"
        if quick
        else "the sizes of the configurations in `examples/papers/`"
    )
    lines = [
        "# Results: the papers' experiments, measured on this machine",
        "",
        "<!-- Generated by `make results` (`python -m spikex.results`); do not edit by hand:",
        "     change examples/papers/experiments.toml or python/spikex/results/ and re-run. -->",
        "",
        (
            f"Generated {machine.date} by spikex {machine.spikex_version} ({machine.commit}) "
            f"from {runs} runs (first started {started}, {minutes:.1f} minutes of runs) at "
            f"{size}."
        ),
        "",
        (
            f"**Machine:** {machine.cpu}, {machine.cores} cores, {machine.memory_gb:.0f} GB; "
            f"{machine.mpi}; load average (1, 5, 15 min) {machine.load_average} when "
            "`python -m spikex.results` started. "
            "Everything with more ranks than cores is *oversubscribed*: ranks take turns on "
            "the cores, so wall-clock times beyond 2 ranks measure a shared CPU, and waiting "
            "for the slowest rank includes waiting for a core. Counts (spikes, messages, "
            "bytes, rounds) and memory per structure are exact whatever the load."
        ),
        "",
        (
            "Every experiment is a `spikex compare` sweep listed in "
            "[`examples/papers/experiments.toml`](../examples/papers/experiments.toml); the "
            "commands are given below, so any one can be re-run alone. Times are medians over "
            "repeats (one repeat unless stated). *Comp* is computation time inside the "
            "intervals (rank 0 unless stated), *Run* the simulation time (maximum over ranks), "
            "as in Hines et al. 2011."
        ),
        "",
        "Paper methods and the spikex method variants measured for them:",
        "",
        "| paper | spikex |",
        "|---|---|",
    ]
    seen = set()
    for experiment in experiments:
        for paper_name, label in experiment.paper_methods.items():
            if (paper_name, label) not in seen:
                seen.add((paper_name, label))
                lines.append(f"| {experiment.reference.split(',')[0]}: {paper_name} | `{label}` |")
    lines += ["", "## Contents", ""]
    for number, experiment in enumerate(experiments, start=1):
        if experiment.name in results:
            lines.append(
                f"{number}. [{experiment.title}](#{_anchor(number, experiment)}) "
                f"({experiment.reference})"
            )
    lines.append("")
    return lines


def _anchor(number: int, experiment: Experiment) -> str:
    text = f"{number}. {experiment.title} ({experiment.reference})".lower()
    kept = "".join(ch for ch in text if ch.isalnum() or ch in " -_")
    return kept.replace(" ", "-")


# ---- one experiment -----------------------------------------------------------------------


def _section(number: int, experiment: Experiment, results: list[SweepResult], docs: Path):
    lines = [
        f"## {number}. {experiment.title} ({experiment.reference})",
        "",
        f"**Original:** {experiment.original}.",
        "",
        f"**Here:** [`{experiment.config.name}`](../examples/papers/{experiment.config.name}); "
        + ("one sweep:" if len(results) == 1 else f"{len(results)} sweeps, e.g.:"),
        "",
        "    " + results[0].sweep.command_line(),
        "",
    ]
    failed = [result for result in results if result.comparison is None]
    for result in failed:
        lines += [f"**FAILED** `{result.sweep.key}`: {result.error}", ""]
    done = [result for result in results if result.comparison is not None]
    if done:
        lines += ["### Measured here", ""]
        if any(result.sweep.variant_values for result in done):
            lines += _variant_table(experiment, done)
        else:
            lines += _ranks_table(experiment, done[0])
        lines += _hash_lines(done)
        lines += _observations(experiment, done)
        lines += _details(done)
    published = PUBLISHED.get(experiment.published)
    if published is not None:
        lines += ["### Published", ""] + _published(published)
    if experiment.discussion:
        lines += ["### What carries over to this machine", "", experiment.discussion, ""]
    for result in done:
        for name in experiment.figures:
            if name in result.figures:
                relative = result.figures[name].relative_to(docs)
                caption = FIGURE_CAPTIONS[name]
                where = f" - {result.sweep.variant}" if result.sweep.variant else ""
                lines += [
                    f"![{caption}{where}]({relative.as_posix()})",
                    "",
                    f"*{caption}{where}.*",
                    "",
                ]
    return lines


def _paper_name(experiment: Experiment, label: str) -> str:
    """The paper's name for a measured variant (the preamble maps it), else the label."""
    for paper_name, measured in experiment.paper_methods.items():
        if measured == label:
            return paper_name
    return f"`{label}`"


def _median(combination: dict, metric: str) -> float | None:
    return combination["metrics"].get(metric, {}).get("median")


def _number(value: float | None, metric: str = "run_s") -> str:
    if value is None:
        return "-"
    if metric.endswith("_s"):
        return f"{value:.3g}" if value < 100 else f"{value:.0f}"
    if metric.endswith("_mb"):
        return f"{value:.1f}"
    return f"{value:,.0f}"


def _ranks_table(experiment: Experiment, result: SweepResult) -> list[str]:
    comparison = result.comparison
    methods = [item["label"] for item in comparison["methods"]]
    by_key = {(c["method"], c["ranks"]): c for c in comparison["combinations"]}
    header = ["Ranks", "Cells"]
    for label in methods:
        header += [
            f"{_paper_name(experiment, label)} {METRIC_HEADERS[m]}" for m in experiment.columns
        ]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for ranks in comparison["ranks"]:
        cells = next((c["cells"] for c in comparison["combinations"] if c["ranks"] == ranks), "-")
        row = [str(ranks), f"{cells:,}" if isinstance(cells, int) else str(cells)]
        for label in methods:
            combination = by_key.get((label, ranks))
            for metric in experiment.columns:
                row.append(_number(_median(combination, metric) if combination else None, metric))
        lines.append("| " + " | ".join(row) + " |")
    return lines + [""]


def _variant_table(experiment: Experiment, results: list[SweepResult]) -> list[str]:
    """Rows: first axis value x method; columns: the other axes' values x metrics."""
    row_values = list(dict.fromkeys(r.sweep.variant_values[0] for r in results))
    column_values = list(dict.fromkeys(r.sweep.variant_values[1:] for r in results))
    methods = list(
        dict.fromkeys(item["label"] for r in results for item in r.comparison["methods"])
    )
    cell = defaultdict(dict)
    for result in results:
        values = result.sweep.variant_values
        for combination in result.comparison["combinations"]:
            cell[(values[0], combination["method"])][values[1:]] = combination
    header = ["", "Method"]
    for values in column_values:
        header += [f"{' '.join(values)} {METRIC_HEADERS[m]}" for m in experiment.columns]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row_value in row_values:
        for label in methods:
            row = [row_value, _paper_name(experiment, label)]
            for values in column_values:
                combination = cell[(row_value, label)].get(values)
                for metric in experiment.columns:
                    row.append(
                        _number(_median(combination, metric) if combination else None, metric)
                    )
            lines.append("| " + " | ".join(row) + " |")
    ranks = sorted({c["ranks"] for r in results for c in r.comparison["combinations"]})
    lines += ["", f"(All on {', '.join(map(str, ranks))} ranks.)", ""]
    return lines


def _hash_lines(results: list[SweepResult]) -> list[str]:
    runs = sum(len(r.comparison["runs"]) for r in results)
    networks = [network for r in results for network in r.comparison["networks"]]
    lines = []
    for result in results:
        for network in result.comparison["networks"]:
            if network["spikes_agree"]:
                continue
            groups = "; ".join(
                f"{g['spikes_sha256'][:12]}: {', '.join(g['runs'])}" for g in network["hash_groups"]
            )
            lines.append(f"**SPIKES DIFFER in `{result.sweep.key}` {network['label']}:** {groups}")
    if lines:
        return [*lines, ""]
    if len(networks) == 1:
        text = f"Spikes: all {runs} runs gave the same `spikes_sha256`."
    else:
        distinct = len({network["spikes_sha256"] for network in networks})
        text = (
            f"Spikes: within every network the runs gave the same `spikes_sha256` ({runs} runs "
            f"in {len(results)} sweep(s), {len(networks)} (sweep, network) groups, "
            f"{distinct} different spike trains in all)."
        )
    return [text, ""]


def _observations(experiment: Experiment, results: list[SweepResult]) -> list[str]:
    """Facts computed from the numbers: fastest method per rank count, computation scaling."""
    lines = []
    for result in results:
        comparison = result.comparison
        where = f"{result.sweep.variant}, " if result.sweep.variant else ""
        for ranks in comparison["ranks"]:
            items = [c for c in comparison["combinations"] if c["ranks"] == ranks]
            timed = [c for c in items if _median(c, "run_s") is not None]
            if len(timed) < 2:
                continue
            fastest = min(timed, key=lambda c: _median(c, "run_s"))
            slowest = max(timed, key=lambda c: _median(c, "run_s"))
            lines.append(
                f"* {where}{ranks} rank(s): fastest run `{fastest['method']}` "
                f"({_number(_median(fastest, 'run_s'))} s), slowest `{slowest['method']}` "
                f"({_number(_median(slowest, 'run_s'))} s)."
            )
        if len(comparison["ranks"]) > 1 and not comparison.get("per_rank"):
            low, high = min(comparison["ranks"]), max(comparison["ranks"])
            for item in comparison["methods"]:
                first = _find(comparison, item["label"], low)
                last = _find(comparison, item["label"], high)
                a, b = _median(first, "comp_max_s"), _median(last, "comp_max_s")
                r1, r2 = _median(first, "run_s"), _median(last, "run_s")
                if a and b and r1 and r2:
                    lines.append(
                        f"* `{item['label']}` from {low} to {high} ranks: computation (max over "
                        f"ranks) x{b / a:.2f}, run time x{r2 / r1:.2f} (ideal x{low / high:.2f})."
                    )
    if len(lines) > 12:
        lines = lines[:12] + [f"* ... ({len(lines) - 12} more in `measurements.json`)"]
    return lines + ([""] if lines else [])


def _find(comparison: dict, label: str, ranks: int) -> dict | None:
    for combination in comparison["combinations"]:
        if combination["method"] == label and combination["ranks"] == ranks:
            return combination
    return None


def _details(results: list[SweepResult]) -> list[str]:
    header = ["Sweep", "Method", "Ranks", *(METRIC_HEADERS[m] for m in DETAIL_METRICS)]
    lines = [
        "<details><summary>All numbers (medians)</summary>",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    for result in results:
        for combination in result.comparison["combinations"]:
            row = [
                result.sweep.variant or "-",
                f"`{combination['method']}`",
                str(combination["ranks"]),
            ]
            row += [_number(_median(combination, m), m) for m in DETAIL_METRICS]
            lines.append("| " + " | ".join(row) + " |")
    units = "; ".join(
        f"{METRIC_HEADERS[m.name]}: {m.doc}" for m in METRICS if m.name in DETAIL_METRICS
    )
    return lines + ["", units + ".", "", "</details>", ""]


def _published(published: PublishedTable) -> list[str]:
    lines = [f"{published.source}.", ""]
    if published.rows:
        lines += [
            "| " + " | ".join(published.columns) + " |",
            "|" + "---|" * len(published.columns),
        ]
        lines += ["| " + " | ".join(str(value) for value in row) + " |" for row in published.rows]
        lines.append("")
    if published.findings:
        lines += [f"The paper: {published.findings}", ""]
    return lines
