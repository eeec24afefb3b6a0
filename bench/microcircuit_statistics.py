"""Spike statistics of the Potjans & Diesmann microcircuit per population, and the
comparison of two sets of runs (e.g. NEST 3.10 and spikex, several seeds each); numpy only,
so either venv can use it.

Definitions (the same for every run, whichever simulator made it):

* **rate** (spikes/s): spikes in the recorded window / (cells of the population x window
  length); silent cells count (P&D 2014 Fig. 6 and the example's ``full_mean_rates`` are
  population means).
* **CV of ISI**: per cell std/mean of its inter-spike intervals in the window (population
  standard deviation, ddof = 0, as Elephant's ``cv`` used by van Albada et al. 2018 and
  Gutzen et al. 2018 to compare NEST with SpiNNaker); over the cells with at least
  ``MIN_SPIKES_CV`` = 3 spikes (2 intervals; with one interval the CV is 0 by
  construction); the population value is the mean over those cells.
* **synchrony**: variance / mean of the population spike-count histogram in 3 ms bins,
  over a subsample of the first ``SYNCHRONY_SUBSAMPLE`` = 1000 cells of the population
  (P&D 2014, Fig. 6; cells are numbered in creation order, unrelated to connectivity, so
  the first 1000 are a random subsample). 1 for independent Poisson trains; larger when
  cells fire together.

Comparison of two sets of runs, per population and statistic: mean over runs, standard
error of the mean (SEM = sample std with ddof = 1 / sqrt(n)); the two agree when
|mean_a - mean_b| <= 3 x sqrt(SEM_a^2 + SEM_b^2) (with 3 runs per side the SEMs are
themselves uncertain: for Student's t with ~4 degrees of freedom a factor 3 is exceeded
by chance in about 4 % of comparisons). Welch's t and its degrees of freedom are reported
too. Rates are also compared with the published full-scale rates (``PUBLISHED_RATES_HZ``,
docs/models/microcircuit.md) and with those of NEST 3.10's example (``FULL_MEAN_RATES_HZ``):
agreement when |mean - reference| <= 3 SEM + ``PUBLISHED_TOLERANCE`` x reference (20 %:
the references come from other seeds, longer windows and other NEST versions).

    python bench/microcircuit_statistics.py RUN.npz ...                 # statistics
    python bench/microcircuit_statistics.py A1.npz A2.npz --against B1.npz B2.npz
    python bench/microcircuit_statistics.py NEST*.npz --labels nest - --section nest-statistics
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent / "nest"))
from microcircuit_params import (
    FULL_MEAN_RATES_HZ,
    POPULATIONS,
    PUBLISHED_RATES_HZ,
    RESOLUTION_MS,
)
from report import REPO, update_section

DOC = REPO / "docs" / "validation" / "microcircuit.md"

MIN_SPIKES_CV = 3
SYNCHRONY_BIN_MS = 3.0
SYNCHRONY_SUBSAMPLE = 1000
AGREEMENT_SEMS = 3.0
PUBLISHED_TOLERANCE = 0.2
STATISTICS = ("rate_hz", "cv_isi", "synchrony")


@dataclass
class SpikeRun:
    """Spikes of one run in the window (t_start_ms, t_stop_ms], per population: 0-based cell
    indices within the population and times (ms)."""

    sizes: dict[str, int]
    cells: dict[str, np.ndarray]
    times_ms: dict[str, np.ndarray]
    t_start_ms: float
    t_stop_ms: float
    label: str = ""
    resolution_ms: float = RESOLUTION_MS
    info: dict = field(default_factory=dict)

    @property
    def duration_s(self) -> float:
        return (self.t_stop_ms - self.t_start_ms) / 1000.0


def load_npz(path: str | Path) -> SpikeRun:
    """A run written by bench/nest/nest_microcircuit.py (or in its format)."""
    with np.load(path) as data:
        names = [str(n) for n in data["populations"]]
        sizes = {n: int(s) for n, s in zip(names, data["sizes"])}
        return SpikeRun(
            sizes=sizes,
            cells={n: np.asarray(data[f"{n}_cells"], dtype=np.int64) for n in names},
            times_ms={n: np.asarray(data[f"{n}_times_ms"], dtype=np.float64) for n in names},
            t_start_ms=float(data["t_start_ms"]),
            t_stop_ms=float(data["t_stop_ms"]),
            label=Path(path).stem,
        )


def load_spikex(spikes_h5: str | Path, summary_json: str | Path) -> SpikeRun:
    """A spikex run: its SONATA spikes.h5 (one group per created population, node ids =
    index in the population; or one group for all, node ids = gids numbering the
    populations one after the other) and summary.json (populations with their cells, in
    creation order; the presimulation, whose spikes are left out, in
    config.simulation.presim_ms). Only the microcircuit's 8 populations are kept when the
    run has them (its Poisson generators are populations too)."""
    import h5py  # main venv only

    summary = json.loads(Path(summary_json).read_text())
    every = {name: int(p["cells"]) for name, p in summary["populations"].items()}
    simulation = summary.get("config", {}).get("simulation", {})
    t_start = float(simulation.get("presim_ms", 0.0))
    t_stop = float(summary.get("simulated_ms", simulation.get("tstop_ms", 0.0)))
    label = Path(spikes_h5).stem
    with h5py.File(spikes_h5, "r") as spikes:
        groups = spikes["spikes"]
        if len(groups) == 1 and next(iter(groups)) not in every:
            (group,) = groups.values()
            run = split_by_population(
                group["node_ids"][:], group["timestamps"][:], every, t_start, t_stop, label
            )
        else:
            cells, times = {}, {}
            for name in every:
                node_ids = groups[name]["node_ids"][:].astype(np.int64)
                stamps = groups[name]["timestamps"][:].astype(np.float64)
                keep = (stamps > t_start) & (stamps <= t_stop)
                cells[name], times[name] = node_ids[keep], stamps[keep]
            run = SpikeRun(every, cells, times, t_start, t_stop, label)
    if set(POPULATIONS) <= set(run.sizes):
        run.sizes = {name: run.sizes[name] for name in POPULATIONS}
    run.resolution_ms = float(summary.get("dt_ms", RESOLUTION_MS))
    return run


def load_run(path: str | Path) -> SpikeRun:
    """NEST's npz; a spikex output directory; or a spikex NAME.h5 next to NAME.json (the
    comparison driver's cache)."""
    path = Path(path)
    if path.is_dir():
        run = load_spikex(path / "spikes.h5", path / "summary.json")
        run.label = path.name
        return run
    if path.suffix == ".h5":
        return load_spikex(path, path.with_suffix(".json"))
    return load_npz(path)


def split_by_population(
    gids: np.ndarray,
    times_ms: np.ndarray,
    sizes: dict[str, int],
    t_start_ms: float,
    t_stop_ms: float,
    label: str = "",
) -> SpikeRun:
    """A run from one global spike list whose gids number the populations one after the
    other in ``sizes``' order (spikex's numbering); keeps spikes in (t_start, t_stop]."""
    gids = np.asarray(gids, dtype=np.int64)
    times_ms = np.asarray(times_ms, dtype=np.float64)
    keep = (times_ms > t_start_ms) & (times_ms <= t_stop_ms)
    gids, times_ms = gids[keep], times_ms[keep]
    cells, times, first = {}, {}, 0
    for name, size in sizes.items():
        mine = (gids >= first) & (gids < first + size)
        cells[name], times[name] = gids[mine] - first, times_ms[mine]
        first += size
    if np.any(gids >= first) or np.any(gids < 0):
        raise ValueError(f"{label}: spikes from gids outside 0..{first - 1}")
    return SpikeRun(dict(sizes), cells, times, t_start_ms, t_stop_ms, label)


def firing_rate_hz(n_spikes: int, n_cells: int, duration_s: float) -> float:
    return n_spikes / (n_cells * duration_s) if n_cells and duration_s > 0 else float("nan")


def cv_isi(cells: np.ndarray, times_ms: np.ndarray, min_spikes: int = MIN_SPIKES_CV):
    """(mean CV over cells with >= min_spikes spikes, number of such cells)."""
    if cells.size == 0:
        return float("nan"), 0
    order = np.lexsort((times_ms, cells))
    cells, times_ms = cells[order], times_ms[order]
    starts = np.flatnonzero(np.r_[True, cells[1:] != cells[:-1]])
    counts = np.diff(np.r_[starts, cells.size])
    intervals = np.diff(times_ms)
    cvs = []
    for start, count in zip(starts, counts):
        if count < min_spikes:
            continue
        isi = intervals[start : start + count - 1]  # within the cell's block only
        mean = isi.mean()
        cvs.append(isi.std() / mean if mean > 0 else float("nan"))
    return (float(np.mean(cvs)) if cvs else float("nan")), len(cvs)


def synchrony(
    cells: np.ndarray,
    times_ms: np.ndarray,
    t_start_ms: float,
    t_stop_ms: float,
    bin_ms: float = SYNCHRONY_BIN_MS,
    subsample: int = SYNCHRONY_SUBSAMPLE,
    resolution_ms: float = RESOLUTION_MS,
) -> float:
    """Variance / mean of the spike count of cells [0, subsample) in bins of bin_ms.

    Times are on the grid of ``resolution_ms``; bins are counted in steps (right-closed,
    like the recording window) so that a spike on a bin edge falls in the same bin for
    every run. A partial last bin is left out.
    """
    steps_per_bin = int(round(bin_ms / resolution_ms))
    n_bins = int(round((t_stop_ms - t_start_ms) / resolution_ms)) // steps_per_bin
    if n_bins < 2:
        return float("nan")
    chosen = times_ms[cells < subsample]
    step = np.rint((chosen - t_start_ms) / resolution_ms).astype(np.int64)  # 1 .. n_steps
    index = (step - 1) // steps_per_bin
    counts = np.bincount(index[(index >= 0) & (index < n_bins)], minlength=n_bins)
    mean = counts.mean()
    return float(counts.var() / mean) if mean > 0 else float("nan")


def population_statistics(run: SpikeRun) -> dict[str, dict]:
    """{population: {rate_hz, cv_isi, cv_cells, synchrony, spikes, cells}}."""
    result = {}
    for name, size in run.sizes.items():
        cells, times = run.cells[name], run.times_ms[name]
        cv, cv_cells = cv_isi(cells, times)
        result[name] = {
            "cells": size,
            "spikes": int(cells.size),
            "rate_hz": firing_rate_hz(cells.size, size, run.duration_s),
            "cv_isi": cv,
            "cv_cells": cv_cells,
            "synchrony": synchrony(
                cells, times, run.t_start_ms, run.t_stop_ms, resolution_ms=run.resolution_ms
            ),
        }
    return result


def mean_and_sem(values) -> tuple[float, float, int]:
    """Mean, standard error (ddof = 1; NaN for one value) and count of the finite values."""
    v = np.asarray([x for x in values if x is not None and math.isfinite(x)], dtype=np.float64)
    if v.size == 0:
        return float("nan"), float("nan"), 0
    sem = float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else float("nan")
    return float(v.mean()), sem, int(v.size)


def welch(mean_a, sem_a, n_a, mean_b, sem_b, n_b) -> tuple[float, float]:
    """Welch's t and its Welch–Satterthwaite degrees of freedom."""
    var = sem_a**2 + sem_b**2
    if not var > 0:
        return (0.0 if mean_a == mean_b else math.inf), float("nan")
    t = (mean_a - mean_b) / math.sqrt(var)
    df = var**2 / (sem_a**4 / (n_a - 1) + sem_b**4 / (n_b - 1))
    return t, df


def agree(mean_a, sem_a, mean_b, sem_b, sems: float = AGREEMENT_SEMS) -> bool:
    """|a - b| <= sems x combined SEM (identical values always agree)."""
    if mean_a == mean_b:
        return True
    combined = math.sqrt(sem_a**2 + sem_b**2)
    return bool(abs(mean_a - mean_b) <= sems * combined)


def summarise(runs: list[SpikeRun]) -> dict[str, dict]:
    """{population: {statistic: {mean, sem, n, values}}} over runs."""
    per_run = [population_statistics(run) for run in runs]
    out = {}
    for name in runs[0].sizes:
        out[name] = {}
        for stat in STATISTICS:
            values = [s[name][stat] for s in per_run]
            mean, sem, n = mean_and_sem(values)
            out[name][stat] = {"mean": mean, "sem": sem, "n": n, "values": values}
    return out


def published_agreement(
    summary: dict, reference=PUBLISHED_RATES_HZ, tolerance: float = PUBLISHED_TOLERANCE
) -> dict:
    """Rates against reference full-scale rates (only meaningful at full scale)."""
    out = {}
    for name, published in zip(POPULATIONS, reference):
        if name not in summary:
            continue
        rate = summary[name]["rate_hz"]
        sem = rate["sem"] if math.isfinite(rate["sem"]) else 0.0
        deviation = rate["mean"] - published
        out[name] = {
            "published_hz": float(published),
            "mean_hz": rate["mean"],
            "relative_deviation": deviation / published,
            "agrees": bool(abs(deviation) <= AGREEMENT_SEMS * sem + tolerance * published),
        }
    return out


def compare(runs_a: list[SpikeRun], runs_b: list[SpikeRun], labels=("a", "b")) -> dict:
    """Both sides' summaries, per population and statistic the difference, Welch's t and
    whether they agree, and each side's agreement with the published rates."""
    if not runs_a or not runs_b:
        raise ValueError("compare needs at least one run on each side")
    if list(runs_a[0].sizes) != list(runs_b[0].sizes):
        raise ValueError(f"populations differ: {list(runs_a[0].sizes)} vs {list(runs_b[0].sizes)}")
    a, b = summarise(runs_a), summarise(runs_b)
    table = {}
    for name in a:
        table[name] = {}
        for stat in STATISTICS:
            x, y = a[name][stat], b[name][stat]
            t, df = welch(x["mean"], x["sem"], x["n"], y["mean"], y["sem"], y["n"])
            table[name][stat] = {
                labels[0]: {k: x[k] for k in ("mean", "sem", "n")},
                labels[1]: {k: y[k] for k in ("mean", "sem", "n")},
                "difference": x["mean"] - y["mean"],
                "welch_t": t,
                "welch_df": df,
                "agrees": agree(x["mean"], x["sem"], y["mean"], y["sem"]),
            }
    verdict = all(entry["agrees"] for pop in table.values() for entry in pop.values())
    return {
        "labels": list(labels),
        "runs": {labels[0]: [r.label for r in runs_a], labels[1]: [r.label for r in runs_b]},
        "criterion": f"|difference| <= {AGREEMENT_SEMS:g} x sqrt(SEM_a^2 + SEM_b^2)",
        "populations": table,
        "all_agree": verdict,
        "published": {
            labels[0]: published_agreement(a),
            labels[1]: published_agreement(b),
            "criterion": f"|mean - published| <= {AGREEMENT_SEMS:g} SEM + "
            f"{PUBLISHED_TOLERANCE:g} x published",
        },
        "nest_example_rates": {
            labels[0]: published_agreement(a, FULL_MEAN_RATES_HZ),
            labels[1]: published_agreement(b, FULL_MEAN_RATES_HZ),
        },
    }


def agreement_summary(comparison: dict, scale: str = "full scale") -> str:
    """One paragraph on what a comparison shows, for the README (block
    ``microcircuit_validation``): how many statistics agree, and each that does not."""
    reference, ours = comparison["labels"]
    shown = {"nest": "NEST 3.10"}
    entries = [
        (population, statistic, entry)
        for population, statistics in comparison["populations"].items()
        for statistic, entry in statistics.items()
    ]
    plural = {"rate_hz": "rates", "cv_isi": "CVs of ISI", "synchrony": "synchrony values"}
    single = {"rate_hz": "rate", "cv_isi": "CV of ISI", "synchrony": "synchrony"}
    per_statistic = []
    for statistic, name in plural.items():
        of = [entry for _, stat, entry in entries if stat == statistic]
        per_statistic.append(f"{sum(e['agrees'] for e in of)} of {len(of)} {name}")
    runs = {label: len(comparison["runs"][label]) for label in (reference, ours)}
    text = (
        f"At {scale}, {sum(e['agrees'] for _, _, e in entries)} of the {len(entries)} statistics "
        f"({len(comparison['populations'])} populations × rate, CV of ISI, synchrony) of "
        f"{runs[ours]} {shown.get(ours, ours)} runs agree with {runs[reference]} "
        f"{shown.get(reference, reference)} runs (other seeds) within 3 combined SEM: "
        f"{', '.join(per_statistic)}."
    )
    differing = [(p, s, e) for p, s, e in entries if not e["agrees"]]
    if differing:
        parts = []
        for population, statistic, entry in differing:
            a, b = entry[reference], entry[ours]
            parts.append(
                f"{population} {single.get(statistic, statistic)}: {b['mean']:.3g} ± "
                f"{b['sem']:.2g} against {a['mean']:.3g} ± {a['sem']:.2g} (Welch t = "
                f"{entry['welch_t']:.2f})"
            )
        text += f" Not within it: {'; '.join(parts)}."
    return text


def _cell(entry: dict) -> str:
    sem = entry["sem"]
    return f"{entry['mean']:.3f} ± {sem:.3f}" if math.isfinite(sem) else f"{entry['mean']:.3f}"


def markdown(comparison: dict) -> str:
    """One table: population, statistic, both sides (mean ± SEM), agreement."""
    a, b = comparison["labels"]
    lines = [
        f"| population | statistic | {a} | {b} | Welch t | agree |",
        "|---|---|---|---|---|---|",
    ]
    for name, stats in comparison["populations"].items():
        for stat, entry in stats.items():
            lines.append(
                f"| {name} | {stat} | {_cell(entry[a])} | {_cell(entry[b])} | "
                f"{entry['welch_t']:.2f} | {'yes' if entry['agrees'] else '**no**'} |"
            )
    lines.append("")
    lines.append(f"| population | published rate (Hz) | {a} | {b} |")
    lines.append("|---|---|---|---|")
    pub_a, pub_b = comparison["published"][a], comparison["published"][b]
    for name in pub_a:
        cells = []
        for side in (pub_a, pub_b):
            e = side[name]
            mark = "" if e["agrees"] else " **(off)**"
            cells.append(f"{e['mean_hz']:.3f} ({e['relative_deviation']:+.0%}){mark}")
        lines.append(f"| {name} | {pub_a[name]['published_hz']:.3f} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines) + "\n"


def _reference(entry: dict | None) -> str:
    if entry is None:
        return "–"
    mark = "" if entry["agrees"] else " **(off)**"
    return f"{entry['published_hz']:.3f} ({entry['relative_deviation']:+.0%}){mark}"


def markdown_one_side(summary: dict, label: str) -> str:
    """One side's statistics (mean ± SEM over runs) and its rates against the published."""
    lines = [
        f"| population | rate (Hz) {label} | published (spec) | NEST 3.10 example "
        "| CV of ISI | synchrony |",
        "|---|---|---|---|---|---|",
    ]
    published = published_agreement(summary)
    example = published_agreement(summary, FULL_MEAN_RATES_HZ)
    for name, stats in summary.items():
        lines.append(
            f"| {name} | {_cell(stats['rate_hz'])} | {_reference(published.get(name))} "
            f"| {_reference(example.get(name))} | {_cell(stats['cv_isi'])} "
            f"| {_cell(stats['synchrony'])} |"
        )
    return "\n".join(lines) + "\n"


def _source_line(sides: dict[str, list]) -> str:
    """Which runs a table comes from: {label: paths}."""
    some = next(iter(sides.values()))
    first = load_run(some[0]) if not isinstance(some[0], SpikeRun) else some[0]
    window = f"({first.t_start_ms:g}, {first.t_stop_ms:g}] ms"
    names = "; ".join(
        f"{label}: " + ", ".join(Path(p).name for p in paths) for label, paths in sides.items()
    )
    return f"Runs ({names}); window {window}; mean ± SEM over the runs of each side.\n\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "runs", nargs="+", help="NEST npz files, spikex output directories or cached NAME.h5"
    )
    parser.add_argument("--against", nargs="*", default=[], help="the other side's npz files")
    parser.add_argument("--labels", nargs=2, default=("a", "b"))
    parser.add_argument("--json", help="write the comparison (or statistics) here")
    parser.add_argument(
        "--section", help="also write the table into this section of " + str(DOC.name)
    )
    args = parser.parse_args(argv)
    runs = [load_run(p) for p in args.runs]
    if args.against:
        result = compare(runs, [load_run(p) for p in args.against], tuple(args.labels))
        text = markdown(result)
        print(text)
        if args.section:
            sides = {args.labels[0]: args.runs, args.labels[1]: args.against}
            update_section(args.section, _source_line(sides) + text, doc=DOC)
    else:
        result = {r.label: population_statistics(r) for r in runs}
        if args.section:
            text = markdown_one_side(summarise(runs), args.labels[0])
            update_section(args.section, _source_line({args.labels[0]: args.runs}) + text, doc=DOC)
        for label, stats in result.items():
            print(label)
            for name, s in stats.items():
                print(
                    f"  {name:5s} rate {s['rate_hz']:7.3f} Hz  CV {s['cv_isi']:.3f} "
                    f"({s['cv_cells']} cells)  synchrony {s['synchrony']:.2f}"
                )
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2, default=float) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
