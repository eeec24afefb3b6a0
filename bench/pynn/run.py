"""The same PyNN scripts on pyNN.nest and spikex.pynn (issue 18, item 9).

PyNN's classic examples from its 0.13.0 sdist, unchanged: the Vogels–Abbott CUBA network
(``examples/VAbenchmarks.py ... CUBA``: 4,000 IF_curr_exp cells, 2 % connectivity, 1 s)
and the Brunel network (``examples/brunel.py``: 5,000 IF_curr_alpha cells, 10 %
connectivity, Poisson drive, 100 ms); brunel.py once more with two numbers changed
(1 s, 500 recorded cells per population) for rates and CVs past the start-up transient;
the Vogels–Abbott COBA network (``examples/VAbenchmarks.py ... COBA``: 4,000 IF_cond_exp
cells, 2 % connectivity, a 50 ms Poisson kick, 1 s); the Potjans–Diesmann microcircuit
written in PyNN (bench/pynn/microcircuit_pynn.py, NEST's example at scale 0.1: 7,717
neurons, 3 x 10^6 synapses, Poisson background, 1.1 s); and an AdEx network written in
PyNN (bench/pynn/adex_network_pynn.py: bench/nest/aeif_network.py's network with the VA
structure, 4,000 EIF_cond_exp_isfa_ista cells, 2 % connectivity, a 14 kHz Poisson drive
per cell, 1 s). Each runs once per simulator on one core
(bench/pynn/as_backend.py picks the simulator; pyNN.nest in NEST 3.10's venv with PyNN
installed by scripts/setup_pynn_nest.sh). Reported side by side: the scripts' own build and
simulation times (PyNN's Timer), the process's peak memory, and per population the mean
rate and the mean ISI CV from the spikes the scripts write. Rates and CVs of the two
simulators "agree" when they differ by less than three standard errors (over neurons) of
the difference: the networks are the same description, not the same random draws.

    python bench/pynn/run.py                 # every benchmark and the seed sweep
    python bench/pynn/run.py --only va_coba  # one benchmark; the others' results are kept
    python bench/pynn/run.py --report-only   # the page from bench/results/pynn_benchmarks.json

Each benchmark's entry in the JSON carries when it was measured and the load average
before and after it (``measured``), so that entries run at different times keep their own.

Writes bench/results/pynn_benchmarks.json and docs/validation/pynn_benchmarks.md.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tests" / "pynn"))
sys.path.insert(0, str(REPO / "bench" / "nest"))
import run_exact  # noqa: E402
from pynn_source import PYNN_VERSION, scenarios_parent  # noqa: E402

RESULTS = REPO / "bench" / "results" / "pynn_benchmarks.json"
PAGE = REPO / "docs" / "validation" / "pynn_benchmarks.md"
TARGET = 0.3  # spikex.pynn simulate / pyNN.nest simulate at equal cores
MEMORY_TARGET = 0.5  # spikex.pynn peak RSS / pyNN.nest peak RSS (issue 54)

# name -> (example script, its arguments after the simulator, Neo files it writes, edits)
BENCHMARKS = {
    "va_cuba": ("VAbenchmarks.py", ["CUBA"], "Results/VAbenchmarks_CUBA_*.pkl", []),
    "va_coba": ("VAbenchmarks.py", ["COBA"], "Results/VAbenchmarks_COBA_*.pkl", []),
    "brunel": ("brunel.py", [], "Results/brunel_*.pkl", []),
    # The same script for 1 s and 500 recorded neurons per population: its own 100 ms
    # and 50 neurons are mostly the start-up transient, too little for the statistics.
    "brunel_1s": ("brunel.py", [], "Results/brunel_*.pkl",
                  [(r"^simtime     = 100.0", "simtime     = 1000.0"), (r"^Nrec        = 50 ", "Nrec        = 500 ")]),
    # Ours (bench/pynn/microcircuit_pynn.py): PyNN ships no microcircuit.
    "microcircuit": ("microcircuit_pynn.py", ["0.1"], "Results/microcircuit_*.pkl", []),
    # Ours (bench/pynn/adex_network_pynn.py): aeif_network.py's AdEx network, VA's structure.
    "adex": ("adex_network_pynn.py", ["4000"], "Results/adex_network_*.pkl", []),
}  # fmt: skip
SIMULATORS = {"nest": "pyNN.nest (NEST 3.10)", "spikex": "spikex.pynn"}


def interpreter(simulator: str) -> str:
    return str(run_exact.NEST_PYTHON) if simulator == "nest" else sys.executable


def run_one(benchmark: str, simulator: str, more_arguments: tuple = ()) -> dict:
    script, arguments, outputs, edits = BENCHMARKS[benchmark]
    arguments = [*arguments, *more_arguments]
    examples = scenarios_parent().parents[1] / "examples"
    with tempfile.TemporaryDirectory(prefix=f"pynn-{benchmark}-") as work:
        work = Path(work)
        ours = HERE / script  # ours runs where it is (it imports the shared parameters)
        if ours.exists():
            script = str(ours)
        else:
            text = (examples / script).read_text()
            for pattern, replacement in edits:
                text, count = re.subn(pattern, replacement, text, flags=re.M)
                assert count == 1, f"{script}: {pattern!r} matched {count} times"
            (work / script).write_text(text)
        (work / "Results").mkdir()
        env = run_exact.nest_environment() if simulator == "nest" else dict(os.environ)
        env.update(OMP_NUM_THREADS="1", MPLBACKEND="Agg")
        command = [
            interpreter(simulator),
            str(HERE / "as_backend.py"),
            simulator,
            script,
            *arguments,
        ]
        done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=3600, check=False)  # fmt: skip
        if done.returncode != 0:
            raise SystemExit(
                f"{benchmark} on {simulator} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
            )
        text = done.stdout

        def number(label: str) -> float:
            match = re.search(rf"{label}\s*:\s*([0-9.eE+-]+)", text)
            if not match:
                raise SystemExit(
                    f"{benchmark} on {simulator}: no '{label}' in its output:\n{text[-2000:]}"
                )
            return float(match.group(1))

        peak = float(re.search(r"PEAK_RSS_MB ([0-9.]+)", text).group(1))
        populations = spike_statistics(
            sorted(work.glob(outputs)) or sorted(work.rglob(Path(outputs).name))
        )
        return {
            "build_s": number("Build time"),
            "simulate_s": number("Simulation time"),
            "peak_rss_mb": peak,
            "populations": populations,
        }


def spike_statistics(files: list[Path]) -> dict:
    """Per population: neurons, mean rate (Hz), its standard error, mean ISI CV (neurons
    with at least 3 spikes) and its standard error."""
    import neo

    out = {}
    for path in files:
        block = neo.io.get_io(str(path)).read_block()
        for segment in block.segments:
            by_population: dict[str, list] = {}
            for train in segment.spiketrains:
                label = str(train.annotations.get("source_population", path.stem))
                by_population.setdefault(label, []).append(train)
            for label, trains in by_population.items():
                duration = float((trains[0].t_stop - trains[0].t_start).rescale("s").magnitude)
                rates = np.array([len(t) / duration for t in trains])
                cvs = []
                for t in trains:
                    isi = np.diff(np.sort(t.rescale("ms").magnitude))
                    if isi.size >= 2 and isi.mean() > 0:
                        cvs.append(isi.std() / isi.mean())
                cvs = np.array(cvs)
                out[label] = {
                    "neurons": len(trains),
                    "rate_hz": float(rates.mean()),
                    "rate_se": float(rates.std(ddof=1) / np.sqrt(rates.size))
                    if rates.size > 1
                    else 0.0,
                    "cv": float(cvs.mean()) if cvs.size else float("nan"),
                    "cv_se": float(cvs.std(ddof=1) / np.sqrt(cvs.size))
                    if cvs.size > 1
                    else float("nan"),
                }
    return out


SWEEP = ("microcircuit", range(1, 7))  # a benchmark run again with seeds 1..6 (its third argument)


def seed_sweep() -> dict:
    """Population rates of one network drawn with several seeds on each simulator: how much
    a population's mean moves between draws, which one run's standard error leaves out."""
    name, seeds = SWEEP
    rates: dict = {simulator: {} for simulator in SIMULATORS}
    for seed in seeds:
        for simulator in SIMULATORS:
            populations = run_one(name, simulator, (str(seed),))["populations"]
            for label, stats in populations.items():
                rates[simulator].setdefault(label, []).append(stats["rate_hz"])
            print(f"{name} seed {seed} {simulator}", flush=True)
    return {"benchmark": name, "seeds": list(seeds), "rates_hz": rates}


def sweep_report(sweep: dict) -> list[str]:
    lines = ["", f"## {sweep['benchmark']}: over seeds", "",
             f"The same script with seeds {sweep['seeds'][0]}–{sweep['seeds'][-1]} (`rng_seed`: each simulator's",
             "connections, weights, delays and Poisson trains; the initial potentials from a NumpyRNG",
             "seeded with it) on each simulator: the mean and the standard deviation over seeds of each",
             "population's rate, and z, the difference of the means in standard errors of it.", "",
             "| population | NEST rate (Hz) | spikex rate (Hz) | z |", "|---|---:|---:|---:|"]  # fmt: skip
    for label, theirs in sweep["rates_hz"]["nest"].items():
        a, b = np.asarray(theirs), np.asarray(sweep["rates_hz"]["spikex"][label])
        se = np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
        z = (b.mean() - a.mean()) / se if se > 0 else 0.0
        lines.append(
            f"| {label} | {a.mean():.3f} ± {a.std(ddof=1):.3f} | {b.mean():.3f} ± {b.std(ddof=1):.3f} | {z:+.1f} |"
        )
    return lines


def agree(a: float, a_se: float, b: float, b_se: float) -> bool:
    return abs(a - b) <= 3.0 * np.sqrt(a_se**2 + b_se**2)


def report(results: dict) -> str:
    lines = [
        "# The same PyNN scripts on pyNN.nest and spikex.pynn",
        "",
        "Generated by `bench/pynn/run.py` from `bench/results/pynn_benchmarks.json` (do not edit).",
        f"PyNN {results['pynn_version']}'s own examples, unchanged (the simulator is named on the command",
        "line, as they expect; `bench/pynn/as_backend.py`), one process and one thread each;",
        "`brunel_1s` is brunel.py with `simtime = 1000.0` and `Nrec = 500` (its 100 ms and 50 neurons",
        "are mostly the start-up transient, too little for rates and CVs); `microcircuit` is",
        "`bench/pynn/microcircuit_pynn.py` (PyNN has none; NEST's example at scale 0.1, written with",
        "what both backends draw natively: see its docstring); `adex` is `bench/pynn/adex_network_pynn.py`",
        "(bench/nest/aeif_network.py's AdEx network with VAbenchmarks' structure: 4,000",
        "EIF_cond_exp_isfa_ista cells, 2 % connectivity drawn by PyNN from a NumpyRNG as in",
        "VAbenchmarks.py, each cell's own 14 kHz Poisson drive, which pyNN.nest relays through a",
        "parrot_neuron per cell and spikex.pynn feeds in directly: see its docstring).",
        "Single runs on a shared machine (2 cores, other engineers compiling): when each",
        "benchmark was measured and the load average (1, 5, 15 min) then are listed below the",
        "table; a load above 2 means contention, which inflates both simulators' times.",
        "",
        "Times are the scripts' own (PyNN's `Timer`): *build* is the script's network description;",
        "spikex.pynn builds its network at the first `run()`, so its *simulate* includes building the",
        "connection tables, which NEST does during *build*. Memory is the process's peak RSS.",
        "",
        "| benchmark | simulator | build (s) | simulate (s) | peak memory (MB) | simulate spikex / NEST | memory spikex / NEST |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    verdicts, when = [], []
    for name, runs in results["benchmarks"].items():
        ratio = runs["spikex"]["simulate_s"] / runs["nest"]["simulate_s"]
        memory = runs["spikex"]["peak_rss_mb"] / runs["nest"]["peak_rss_mb"]
        for simulator in ("nest", "spikex"):
            r = runs[simulator]
            shown = f"{ratio:.2f} | {memory:.2f}" if simulator == "spikex" else " | "
            lines.append(f"| {name} | {SIMULATORS[simulator]} | {r['build_s']:.2f} | {r['simulate_s']:.2f} | "
                         f"{r['peak_rss_mb']:.0f} | {shown} |")  # fmt: skip
        met = "met" if ratio <= TARGET else "**not met**"
        memory_met = "met" if memory <= MEMORY_TARGET else "**not met**"
        verdicts.append(
            f"* {name}: spikex.pynn simulates in {ratio:.2f}× pyNN.nest's time (target ≤ {TARGET}: {met}); "
            f"peak memory {memory:.2f}× (target ≤ {MEMORY_TARGET}: {memory_met})."
        )
        m = runs["measured"]
        after = m.get("load_average_after")
        when.append(f"| {name} | {m['date']} | {', '.join(f'{v:.2f}' for v in m['load_average'])} | "
                    f"{', '.join(f'{v:.2f}' for v in after) if after else '–'} |")  # fmt: skip
    lines += ["", *verdicts, "", "| benchmark | measured | load average before | load average after |",
              "|---|---|---|---|", *when, "",
              "Rows without a load average after were measured in one run of every benchmark that",
              "started at that time (the load average at its start).", "", "## Rates and CVs", "",
              "| benchmark | population | neurons | rate NEST (Hz) | rate spikex (Hz) | CV NEST | CV spikex | agree |",
              "|---|---|---:|---:|---:|---:|---:|---|"]  # fmt: skip
    for name, runs in results["benchmarks"].items():
        for label, theirs in runs["nest"]["populations"].items():
            mine = runs["spikex"]["populations"].get(label)
            if mine is None:
                continue
            ok = agree(theirs["rate_hz"], theirs["rate_se"], mine["rate_hz"], mine["rate_se"]) and (
                np.isnan(theirs["cv"])
                or agree(theirs["cv"], theirs["cv_se"], mine["cv"], mine["cv_se"])
            )
            lines.append(
                f"| {name} | {label} | {mine['neurons']} | {theirs['rate_hz']:.2f} ± {theirs['rate_se']:.2f} | "
                f"{mine['rate_hz']:.2f} ± {mine['rate_se']:.2f} | {theirs['cv']:.3f} | {mine['cv']:.3f} | "
                f"{'yes' if ok else 'no'} |"
            )
    lines += ["", "± is the standard error over neurons; *agree*: rate and CV within three standard errors of",
              "the difference. That error is the spread within one network: the two simulators run",
              "different draws of it (connections, weights, Poisson input), and a population's mean also",
              "varies from one draw to the next, which the error leaves out: a *no* says that the",
              "difference exceeds one network's spread, not by itself that the models differ (single runs",
              "here). `brunel` records 50 neurons over 100 ms, mostly the start-up transient: `brunel_1s`",
              "is the same network for 1 s and 500 neurons."]  # fmt: skip
    if "seed_sweep" in results:
        lines += sweep_report(results["seed_sweep"])
    return "\n".join(lines) + "\n"


def now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")


def load_average() -> list[float]:
    return [round(v, 2) for v in os.getloadavg()]


def with_dates(results: dict) -> dict:
    """Results whose every benchmark says when it was measured: entries written before
    they carried their own ``measured`` get the file's top-level date and load average
    (they were measured in that run)."""
    for entry in results.get("benchmarks", {}).values():
        if "measured" not in entry:
            entry["measured"] = {"date": results["date"], "load_average": results["load_average"]}
    results.pop("date", None)
    results.pop("load_average", None)
    return results


def write_results(results: dict) -> None:
    """The JSON with the benchmarks in BENCHMARKS' order."""
    ordered = {
        name: results["benchmarks"][name] for name in BENCHMARKS if name in results["benchmarks"]
    }
    RESULTS.write_text(json.dumps({**results, "benchmarks": ordered}, indent=2) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--report-only", action="store_true", help="write the page from the JSON")
    parser.add_argument("--only", choices=list(BENCHMARKS), help="one benchmark")
    args = parser.parse_args()
    if not args.report_only:
        reason = run_exact.nest_unavailable_reason()
        if reason:
            raise SystemExit(f"bench/pynn: NEST 3.10 is not available: {reason}")
        # --only replaces its own entry and keeps the others (each with its own date)
        old = with_dates(json.loads(RESULTS.read_text())) if RESULTS.exists() and args.only else {}
        results = {
            "pynn_version": PYNN_VERSION,
            "machine": f"{os.cpu_count()} cores",
            "benchmarks": dict(old.get("benchmarks", {})),
        }
        if "seed_sweep" in old:
            results["seed_sweep"] = old["seed_sweep"]
        for name in [args.only] if args.only else BENCHMARKS:
            measured = {"date": now(), "load_average": load_average()}
            entry = {sim: run_one(name, sim) for sim in SIMULATORS}
            entry["measured"] = {**measured, "load_average_after": load_average()}
            results["benchmarks"][name] = entry
            print(name, json.dumps({s: {k: v for k, v in r.items() if k != "populations"}
                                    for s, r in entry.items()}), flush=True)  # fmt: skip
            RESULTS.parent.mkdir(parents=True, exist_ok=True)
            write_results(results)  # after each benchmark: a later failure loses nothing
        if not args.only:
            results["seed_sweep"] = seed_sweep()
            results["seed_sweep"]["measured"] = {"date": now(), "load_average": load_average()}
        write_results(results)
    results = with_dates(json.loads(RESULTS.read_text()))
    PAGE.write_text(report(results))
    print(f"bench/pynn: wrote {RESULTS.relative_to(REPO)} and {PAGE.relative_to(REPO)}")


if __name__ == "__main__":
    main()
