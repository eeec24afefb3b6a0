"""docs/performance.md: every benchmark against its peer, from the result files.

One table per question (simulation time, build time, memory, restores, ...), one row per
measured layout: spikex's figure, the peer's figure from the same run on the same
machine, their ratio, the goal the issues set (issue 54: conductance-based networks;
issue 55: SONATA; issue 56: full scale) and whether it is met, and when, where and under
which load it was measured. Nothing here is measured: each row reads one result file
that a ``make bench-*`` target writes (named in the row's section), so a stale figure
shows its date. A missing result file gives a row that says so.

Usage::

    python bench/performance_page.py           # rewrite docs/performance.md
    python bench/performance_page.py --check   # exit 1 when the page is not current
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"
PAGE = REPO / "docs" / "performance.md"


@dataclass
class Row:
    benchmark: str
    layout: str
    spikex: float | None
    peer: float | None
    unit: str
    goal: float | None = None  # the largest ratio spikex / peer that meets the goal
    when: str = ""  # date (UTC), host, 1-minute load

    @property
    def ratio(self) -> float | None:
        if self.spikex is None or self.peer in (None, 0):
            return None
        return self.spikex / self.peer


@dataclass
class Section:
    title: str
    peer: str
    source: str  # the result file and the target that writes it
    rows: list[Row]
    note: str = ""
    goal_on_spikex: bool = False  # the goal bounds spikex's figure, not the ratio


def _load(name: str) -> dict | None:
    path = RESULTS / name
    return json.loads(path.read_text()) if path.exists() else None


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _layout(ranks: int, threads: int) -> str:
    return f"{_count(ranks, 'rank')} × {_count(threads, 'thread')}"


def _when(date: str, load: float | str | None, host: str = "") -> str:
    parts = [date.replace(" UTC", "")]
    if host:
        parts.append(host)
    if load is not None:
        parts.append(f"load {float(load):.2f}")
    return ", ".join(parts)


# ---- the sections -----------------------------------------------------------------------


def hpc_benchmark() -> list[Section]:
    """bench/vs_nest.py: the hpc_benchmark at scale 1 (K = 11,250) against NEST 3.10."""
    data = _load("vs_nest.json")
    source = "`bench/results/vs_nest.json` (`make bench-nest`)"
    if data is None:
        return [Section("hpc_benchmark against NEST", "NEST 3.10", source, [])]
    host = data["machine"].get("cpu", "")
    rows = data["rows"]

    def nest_row(plastic: bool, cores: int) -> dict | None:
        for r in rows:
            if (
                r["simulator"] == "nest"
                and r["plastic"] == plastic
                and r["ranks"] * r["threads"] == cores
            ):
                return r
        return None

    sim, build, memory, events = [], [], [], []
    for r in rows:
        if r["simulator"] != "spikex":
            continue
        cores = r["ranks"] * r["threads"]
        nest = nest_row(r["plastic"], cores)
        kind = "STDP" if r["plastic"] else "static"
        layout = _layout(r["ranks"], r["threads"])
        name = f"hpc_benchmark {kind}, {_count(cores, 'core')}"
        when = _when(r["measured"]["date_utc"], r["measured"]["load_1min"], host)
        time_goal = None if r["plastic"] else (0.05 if cores == 1 else 0.07)
        sim.append(
            Row(name, layout, r["simulate_s"], nest and nest["simulate_s"], "s", time_goal, when)
        )
        build.append(
            Row(
                name,
                layout,
                r["build_s"] + r["init_s"],
                nest and nest["build_s"] + nest["init_s"],
                "s",
                0.1,
                when,
            )
        )
        memory.append(
            Row(
                name,
                layout,
                r["peak_rss_mb_total"],
                nest and nest["peak_rss_mb_total"],
                "MB",
                0.2,
                when,
            )
        )
        if not r["plastic"]:
            ns = r["simulate_s"] * cores / r["events_delivered"] * 1e9
            nest_ns = nest and nest["simulate_s"] * cores / nest["events_delivered"] * 1e9
            events.append(Row(name, layout, ns, nest_ns, "ns", 2.0 if cores == 2 else None, when))
    measured = f"{data['tsim_ms']:.0f} ms after {data['presim_ms']:.0f} ms presimulation"
    return [
        Section(
            "Simulation time: hpc_benchmark (issue 56)",
            "NEST 3.10",
            source,
            sim,
            f"Scale 1, K = 11,250, {measured}; NEST at the same number of cores (threads).",
        ),  # fmt: skip
        Section(
            "Delivery: ns of a core per delivered event (issue 56: ≤ 2 ns on 2 cores)",
            "NEST 3.10",
            source,
            events,
            "simulate time × cores / events delivered (NEST's events estimated from its spike count "
            "and the indegree). The goal bounds spikex's figure itself.",
            goal_on_spikex=True,
        ),  # fmt: skip
        Section(
            "Build time: hpc_benchmark (issue 56)",
            "NEST 3.10",
            source,
            build,
            "Everything before the first step: NEST's Create, Connect and Prepare; spikex's build and "
            "initialisation.",
        ),  # fmt: skip
        Section(
            "Peak memory: hpc_benchmark (issue 56)",
            "NEST 3.10",
            source,
            memory,
            "Peak resident memory of all processes.",
        ),  # fmt: skip
    ]


def cond_networks() -> list[Section]:
    """bench/nest/cond_networks_vs_nest.py: VA COBA and the AdEx network against PyNEST."""
    data = _load("cond_networks_vs_nest.json")
    source = "`bench/results/cond_networks_vs_nest.json` (`make bench-cond-networks`)"
    rows = []
    for name, entry in (data or {}).get("networks", {}).items():
        runs = entry["runs"]
        if not runs.get("spikex") or not runs.get("nest"):
            continue

        def median(sim: str, key: str, runs: dict = runs) -> float:
            values = sorted(r[key] for r in runs[sim])
            return values[len(values) // 2]

        last = runs["spikex"][-1]
        when = _when(last["date_utc"], last["load_1min_before"], entry["machine"].get("cpu", ""))
        rows.append(Row(f"{name}, simulate", "1 process × 1 thread", median("spikex", "simulate_s"),
                        median("nest", "simulate_s"), "s", 0.2, when))  # fmt: skip
        rows.append(Row(f"{name}, peak memory", "1 process × 1 thread", max(r["peak_rss_mb"] for r in runs["spikex"]),
                        max(r["peak_rss_mb"] for r in runs["nest"]), "MB", None, when))  # fmt: skip
    return [Section("Conductance-based networks through the Python API (issue 54)", "PyNEST (NEST 3.10)", source,
                    rows, "4,000 cells, 1 s; medians of 3 alternating runs.")]  # fmt: skip


def pynn() -> list[Section]:
    """bench/pynn/run.py: PyNN's benchmarks on spikex.pynn against pyNN.nest."""
    data = _load("pynn_benchmarks.json")
    source = "`bench/results/pynn_benchmarks.json` (`make bench-pynn`)"
    rows = []
    goals = {"va_coba": (0.3, 0.5), "adex": (0.3, 0.5)}  # issue 54
    for name, entry in (data or {}).get("benchmarks", {}).items():
        measured = entry.get("measured", {})
        load = (measured.get("load_average") or [None])[0]
        when = _when(measured.get("date", ""), load)
        time_goal, memory_goal = goals.get(name, (None, None))
        rows.append(Row(f"{name}, simulate", "1 process", entry["spikex"]["simulate_s"], entry["nest"]["simulate_s"],
                        "s", time_goal, when))  # fmt: skip
        rows.append(Row(f"{name}, peak memory", "1 process", entry["spikex"]["peak_rss_mb"],
                        entry["nest"]["peak_rss_mb"], "MB", memory_goal, when))  # fmt: skip
    return [Section("PyNN scripts: spikex.pynn against pyNN.nest (issue 54)", "pyNN.nest (NEST 3.10)", source, rows,
                    "The same PyNN script on both backends.")]  # fmt: skip


def microcircuit() -> list[Section]:
    """bench/vs_nest_microcircuit.py: the Potjans-Diesmann microcircuit at full scale."""
    data = _load("vs_nest_microcircuit.json")
    source = "`bench/results/vs_nest_microcircuit.json` (`bench/vs_nest_microcircuit.py`)"
    rows = []
    if data:
        host = data["machine"].get("cpu", "")
        nest = {r["ranks"] * r["threads"]: r for r in data["rows"] if r["simulator"] == "nest"}
        memory_rows = []
        for r in data["rows"]:
            cores = r["ranks"] * r["threads"]
            if r["simulator"] != "spikex" or cores not in nest:
                continue
            when = _when(r["measured"]["date_utc"], r["measured"]["load_1min"], host)
            name = f"microcircuit, {_count(cores, 'core')}"
            rows.append(Row(f"{name}, simulate", f"{_layout(r['ranks'], r['threads'])}, {r['method']}",
                            r["simulate_s"], nest[cores]["simulate_s"], "s", None, when))  # fmt: skip
            if not any(
                m.layout == _layout(r["ranks"], r["threads"]) for m in memory_rows
            ):  # one per layout
                memory_rows.append(Row(f"{name}, peak memory", _layout(r["ranks"], r["threads"]),
                                       r["peak_rss_mb_total"], nest[cores]["peak_rss_mb_total"], "MB", None, when))  # fmt: skip
        rows += memory_rows
    return [Section("Cortical microcircuit, full scale", "NEST 3.10", source, rows,
                    "77,169 cells, 3·10^8 synapses, 1.5 s; NEST's wheel has no MPI, so its 2-core row is "
                    "1 process × 2 threads.")]  # fmt: skip


def sonata() -> list[Section]:
    """bench/sonata/read_scale.py: reading and building a SONATA circuit against NEST's reader."""
    rows = []
    for name in (
        "sonata_read_scale.json",
        "sonata_read_scale_1e6.json",
        "sonata_read_scale_1e8.json",
    ):
        data = _load(name)
        if not data or "spikex_over_nest" not in data:
            continue
        by_ranks = {r["ranks"]: r for r in data["runs"]}
        for ratio in data["spikex_over_nest"]:
            run = by_ranks.get(ratio["ranks"], {})
            when = _when(run.get("date_utc", ""), run.get("load_1min_before"))
            label = f"{data['nodes']:,} nodes, {data['edges']:,} edges"
            layout = _count(ratio["ranks"], "rank")
            rows.append(
                Row(f"{label}: build time", layout, ratio["build_time"], 1.0, "× NEST", 0.5, when)
            )
            rows.append(Row(f"{label}: peak memory (NEST to end of Simulate)", layout,
                            ratio["peak_memory_vs_nest_run"], 1.0, "× NEST", 0.5, when))  # fmt: skip
    return [Section("SONATA circuits: reading and building (issue 55)", "NEST 3.10 `SonataNetwork` (built with HDF5)",
                    "`bench/results/sonata_read_scale*.json` (`bench/sonata/read_scale.py`)", rows,
                    "The result files hold the ratios (spikex's figure is the ratio, NEST's is 1).")]  # fmt: skip


def hines_vs_neuron() -> list[Section]:
    """bench/neuron/hines_vs_neuron.py: the Hines 2011 artificial-cell benchmark against NEURON."""
    data = _load("hines_vs_neuron.json")
    source = "`bench/results/hines_vs_neuron.json` (`make bench-neuron`)"
    rows = []
    if data:
        when = _when(
            data["date_utc"], data["machine"].get("load_1min_start"), data["machine"].get("cpu", "")
        )
        for entry in data["comparisons"]:
            median = entry["median"]
            layout = _count(entry["ranks"], "rank")
            rows.append(Row("Hines 2011, simulate", layout, median["spikex"]["simulate_s"],
                            median["neuron"]["simulate_s"], "s", 0.02, when))  # fmt: skip
            rows.append(Row("Hines 2011, peak memory (all ranks)", layout, median["spikex"]["peak_rss_mb_total"],
                            median["neuron"]["peak_rss_mb_total"], "MB", 0.05, when))  # fmt: skip
    return [Section("Hines et al. 2011 artificial cells (issue 56: ≥ 50× faster, ≥ 20× less memory)",
                    f"NEURON {data['neuron_version']}" if data else "NEURON", source, rows,
                    "8,192 cells × 1,000 inputs, 200 ms; medians of 3 alternating runs "
                    "(docs/validation/hines_vs_neuron.md). ≥ 50× faster is a ratio ≤ 0.02, ≥ 20× less memory "
                    "≤ 0.05.")]  # fmt: skip


def restores() -> list[Section]:
    """bench/checkpoint.py: a restore's peak memory against a fresh build on the same ranks."""
    data = _load("checkpoint.json")
    source = "`bench/results/checkpoint.json` (`make bench-checkpoint`)"
    rows = []
    if data:
        host = data["machine"].get("cpu", "")
        load = data["machine"]["load_average"][0]
        for case in data["cases"]:
            if len(case["loads"]) < 2:  # the sizes measured on one layout only: the sweeps say more
                continue
            for load_run in case["loads"]:
                fresh = load_run["fresh"].get("rss_mb")
                layout = f"written on {_count(load_run['written_on'], 'rank')}, restored on {load_run['ranks']}"
                rows.append(Row(f"{case['network']}, {case['size']}", layout, load_run["rss_mb"], fresh, "MB", 1.1,
                                _when(data["date_utc"], load, host)))  # fmt: skip
    return [Section("Restores: peak memory against a fresh build (issue 56: ≤ 1.1×)", "a fresh build on the same "
                    "ranks", source, rows, "The peer is spikex itself: the same network built afresh on the same "
                    "ranks. The largest size of each network, on every layout measured.")]  # fmt: skip


def small_networks() -> list[Section]:
    """bench/brian2/small_networks.py: small and medium networks against Brian2's C++ standalone."""
    data = _load("small_networks.json")
    source = "`bench/results/small_networks.json` (`make bench-brian2`)"
    rows = []
    if data:
        host = data["machine"].get("cpu", "")
        names = {"brunel5k": "Brunel, 5,000 cells", "brunel20k": "Brunel, 20,000 cells", "cuba": "VA CUBA"}
        for network in ("brunel5k", "brunel20k", "cuba"):
            runs = [r for r in data["table"] if r["network"] == network]
            brian = [r for r in runs if r["simulator"] == "brian2"]
            if not brian:
                continue
            best_brian = min(brian, key=lambda r: r["best_loop_s"])
            for r in runs:
                if r["simulator"] != "spikex" or r["threads_asked"] is None:
                    continue
                rows.append(Row(f"{names[network]}, loop ({r['frontend']})", _count(r["threads_asked"], "thread"),
                                r["best_loop_s"], best_brian["best_loop_s"], "s", 0.8,
                                _when(data["date_utc"], max(r["load_1min"]), host)))  # fmt: skip
    return [Section("Small networks (issue 60: ≤ 0.8× Brian2's best loop)", "Brian2 2.11 C++ standalone, its best of "
                    "1 and 2 OpenMP threads", source, rows,
                    "Best of 3 interleaved runs; the simulation loop only (docs/validation/small_networks.md, which "
                    "also gives 2 threads against 1).")]  # fmt: skip


SECTIONS = [hpc_benchmark, cond_networks, pynn, microcircuit, sonata, hines_vs_neuron, restores, small_networks]


# ---- the page ---------------------------------------------------------------------------


def _number(x: float | None, unit: str = "") -> str:
    if x is None:
        return "—"
    text = f"{x:,.0f}" if abs(x) >= 100 else f"{x:.3g}"
    return f"{text} {unit}".strip()


def _verdict(row: Row, on_spikex: bool) -> str:
    value = row.spikex if on_spikex else row.ratio
    if row.goal is None or value is None:
        return "—"
    return "met" if value <= row.goal else "**not met**"


def _anchor(title: str) -> str:
    """The heading's anchor as MyST and GitHub make it."""
    import re

    text = re.sub(r"[^\w\- ]", "", title.lower()).strip()
    return text.replace(" ", "-")


def page() -> str:
    lines = [
        "# Performance against the peers",
        "",
        "Generated by `bench/performance_page.py` from the result files under `bench/results/` (do not",
        "edit). Every row compares spikex with its peer measured in the same run on the same machine",
        "(*ratio* = spikex / peer: below 1 spikex is faster or smaller); its date (UTC), host and",
        "1-minute load are in the last column, so an old figure shows its age. The goals are the",
        "issues' (54: conductance-based networks; 55: SONATA; 56: full scale): a ratio at most the",
        "goal is *met*. Every machine here has 2 cores; rows with more processes than cores (the",
        "restores on 3 and 4 ranks) are oversubscribed.",
        "",
    ]
    sections = [section for make in SECTIONS for section in make()]
    lines += [
        "| question | goals met | goals not met | rows without a goal |",
        "|---|---:|---:|---:|",
    ]
    for section in sections:
        verdicts = [_verdict(row, section.goal_on_spikex) for row in section.rows]
        lines.append(f"| [{section.title}](#{_anchor(section.title)}) | {verdicts.count('met')} | "
                     f"{verdicts.count('**not met**')} | {verdicts.count('—')} |")  # fmt: skip
    lines.append("")
    for section in sections:
        if True:
            on_spikex = section.goal_on_spikex
            lines += [
                f"## {section.title}",
                "",
                f"Peer: {section.peer}. Source: {section.source}.",
                "",
            ]
            if section.note:
                lines += [section.note, ""]
            if not section.rows:
                lines += ["*Not measured yet: the result file is missing.*", ""]
                continue
            goal_word = "goal (spikex)" if on_spikex else "goal (ratio)"
            lines += [f"| benchmark | layout | spikex | peer | ratio | {goal_word} | | measured |",
                      "|---|---|---:|---:|---:|---:|---|---|"]  # fmt: skip
            for row in section.rows:
                goal = "—" if row.goal is None else f"≤ {row.goal:g}"
                lines.append(
                    f"| {row.benchmark} | {row.layout} | {_number(row.spikex, row.unit)} | "
                    f"{_number(row.peer, row.unit)} | {_number(row.ratio)} | {goal} | "
                    f"{_verdict(row, on_spikex)} | {row.when} |"
                )
            lines.append("")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="exit 1 when docs/performance.md is not current"
    )
    args = parser.parse_args()
    text = page()
    if args.check:
        current = PAGE.exists() and PAGE.read_text() == text
        print("docs/performance.md is current" if current else "docs/performance.md is stale: run "
              "python bench/performance_page.py")  # fmt: skip
        return 0 if current else 1
    PAGE.write_text(text)
    print(f"wrote {PAGE.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
