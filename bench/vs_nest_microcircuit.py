"""spikex against NEST 3.10 on the Potjans & Diesmann microcircuit, on this machine.

Question: at equal cores, how do spikex's build time, simulate time per biological second,
peak memory and bytes per synapse compare with NEST's on the microcircuit (full scale:
77,169 neurons, 2.99 x 10^8 synapses, 0.1 ms minimum delay, so spikes are exchanged every
step), and which share of spikex's simulate time goes to the exchange, per method?

Runs, one at a time, for each layout (ranks x threads; default 1x1, 1x2, 2x1): NEST
(bench/nest/nest_microcircuit.py in the NEST venv; the NEST 3.10 wheel has no MPI, so
NEST runs threads only and its 2x1 row is left out) and spikex
(``spikex run examples/microcircuit.toml --np P --threads T --set exchange.method=M``)
for each exchange method. Each run is cached in bench/nest/data/microcircuit/ (JSON;
``--rerun`` measures again). Writes bench/results/vs_nest_microcircuit.json and the
"benchmark" section of docs/validation/microcircuit.md (``--report-only`` rewrites the
section from the JSON)::

    python bench/vs_nest_microcircuit.py --n-scaling 0.1 --k-scaling 0.1 --sim-ms 200
    python bench/vs_nest_microcircuit.py --simulators nest --layouts 1x1 1x2
    python bench/vs_nest_microcircuit.py --report-only

Definitions. build: create + connect (NEST: + nest.Prepare(), as its example; spikex:
time_s.build). simulate: the whole simulated time, presimulation + measured, wall clock,
and per biological second: spikex's CLI simulates both in one call (time_s.simulate;
time_s.init is the exchange set-up), so NEST's presimulation and measured Simulate calls
are added up the same way (NEST's measured second alone is kept as
``measured_simulate_s_per_bio_s``). Peak RSS: getrusage per process, summed over ranks.
Bytes per synapse, the same way for both: (peak RSS of the run - RSS of the same program
without the network) / recurrent synapses; "without the network" is, for NEST, the
process's RSS just before the first Create (measured in the run), for spikex the peak RSS
of the same command (same layout) on a network of a few cells (network.n_scaling =
k_scaling = 0.001, 1 ms). spikex's own accounting is shown too: all its data structures
(summary.json memory_bytes, summed over ranks) per synapse, and its connection store
alone (summary.json bytes_per_synapse). Exchange share: spikex's time_s.exchange /
time_s.simulate; wait (waiting for the other ranks at the exchange) apart.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE / "nest"))
sys.path.insert(0, str(HERE))
import microcircuit_params as mp
from report import RESULTS, machine, measured_on, run_stamp, update_section, write_json
from run_exact import NEST_PYTHON
import readme_numbers

CONFIG = REPO / "examples" / "microcircuit.toml"
DATA = HERE / "nest" / "data" / "microcircuit"
RESULT = RESULTS / "vs_nest_microcircuit.json"
DOC = REPO / "docs" / "validation" / "microcircuit.md"
METHODS = ("allgather", "alltoall", "multisend", "rma")
LAYOUTS = ((1, 1), (1, 2), (2, 1))
BASELINE_SCALING = 0.001  # spikex's "without the network" run
MEBIBYTE = 2**20


@dataclass(frozen=True)
class Setting:
    """The network and times every run of a campaign shares."""

    n_scaling: float = 1.0
    k_scaling: float = 1.0
    presim_ms: float = mp.PRESIM_MS
    sim_ms: float = mp.SIM_MS
    seed: int = 1
    input: str = "poisson"
    v0: str = "original"
    thalamic: bool = False

    @property
    def tag(self) -> str:
        return (
            f"n{self.n_scaling:g}_k{self.k_scaling:g}_{self.input}_{self.v0}"
            + ("_th" if self.thalamic else "")
            + f"_p{self.presim_ms:g}_t{self.sim_ms:g}_seed{self.seed}"
        )


@dataclass(frozen=True)
class Run:
    simulator: str  # "nest" or "spikex"
    ranks: int
    threads: int
    method: str = ""  # spikex only
    baseline: bool = False  # spikex: the same command without the network

    def name(self, setting: Setting) -> str:
        what = "baseline" if self.baseline else setting.tag
        method = f"_{self.method}" if self.method else ""
        return f"{self.simulator}_r{self.ranks}t{self.threads}{method}_{what}"


def nest_command(setting: Setting, run: Run, stem: Path) -> list[str]:
    if run.ranks != 1:
        raise ValueError("the NEST 3.10 wheel has no MPI: NEST runs one process (threads only)")
    command = [
        str(NEST_PYTHON), str(HERE / "nest" / "nest_microcircuit.py"),
        "--n-scaling", str(setting.n_scaling), "--k-scaling", str(setting.k_scaling),
        "--seed", str(setting.seed), "--threads", str(run.threads),
        "--presim-ms", str(setting.presim_ms), "--sim-ms", str(setting.sim_ms),
        "--input", setting.input, "--v0", setting.v0, "--out", str(stem),
    ]  # fmt: skip
    return command + (["--thalamic"] if setting.thalamic else [])


def spikex_executable() -> list[str]:
    """The ``spikex`` next to this Python (same venv), else ``python -m spikex``."""
    script = Path(sys.executable).with_name("spikex")
    return [str(script)] if script.exists() else [sys.executable, "-m", "spikex"]


def spikex_overrides(setting: Setting, run: Run) -> list[str]:
    """``--set`` values of the contract (network.model = "microcircuit" comes from the
    example file). simulation.tstop_ms is the end time: presim + measured."""
    if run.baseline:
        n = k = BASELINE_SCALING
        presim, tstop = 0.0, 1.0
    else:
        n, k = setting.n_scaling, setting.k_scaling
        presim, tstop = setting.presim_ms, setting.presim_ms + setting.sim_ms
    return [
        f"exchange.method={run.method}",
        f"network.n_scaling={n:g}",
        f"network.k_scaling={k:g}",
        f'network.input="{setting.input}"',
        f"network.thalamic_input={'true' if setting.thalamic else 'false'}",
        f'network.v0="{setting.v0}"',
        f"simulation.presim_ms={presim:g}",
        f"simulation.tstop_ms={tstop:g}",
        f"simulation.dt_ms={mp.RESOLUTION_MS:g}",
        f"simulation.seed={setting.seed}",
    ]


def spikex_command(setting: Setting, run: Run, outdir: Path) -> list[str]:
    command = [*spikex_executable(), "run", str(CONFIG), "--np", str(run.ranks)]
    command += ["--threads", str(run.threads), "-o", str(outdir)]
    for value in spikex_overrides(setting, run):
        command += ["--set", value]
    return command


def environment(run: Run) -> dict:
    """Both simulators' threads wait alike (spikex's launcher decides: spin when the run
    fits the cores); NEST's interpreter must not see this venv."""
    try:
        from spikex.launch.launcher import child_environment

        env = child_environment(ranks=run.ranks, threads=run.threads)
    except ImportError:  # the NEST half works without spikex
        env = dict(os.environ)
        fits = run.ranks * run.threads <= (os.cpu_count() or 1)
        env.setdefault("OMP_WAIT_POLICY", "active" if fits else "passive")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    if run.simulator == "nest":
        for key in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME"):
            env.pop(key, None)
        env["PYNEST_QUIET"] = "1"
    return env


def execute(setting: Setting, run: Run, rerun: bool = False, timeout: float = 4 * 3600) -> dict:
    """The run's report (cached as DATA/<name>.json): NEST's JSON or spikex's summary."""
    name = run.name(setting)
    path = DATA / f"{name}.json"
    if path.exists() and not rerun:
        return json.loads(path.read_text())
    DATA.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="spikex-mc-", dir=DATA))
    try:
        if run.simulator == "nest":
            command = nest_command(setting, run, workdir / "run")
        else:
            command = spikex_command(setting, run, workdir)
        print(f"[vs_nest_microcircuit] {name}: {' '.join(command)}", file=sys.stderr, flush=True)
        done = subprocess.run(
            ["nice", "-n", "10", *command],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=environment(run),
            stdin=subprocess.DEVNULL,
            check=False,
        )
        (DATA / f"{name}.log").write_text(done.stdout + "\n--- stderr ---\n" + done.stderr)
        produced = workdir / ("run.json" if run.simulator == "nest" else "summary.json")
        if done.returncode != 0 or not produced.exists():
            raise RuntimeError(f"{name} failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
        report = json.loads(produced.read_text())
        report.setdefault("measured", run_stamp())
        report["run"] = {**asdict(run), "setting": asdict(setting), "command": command}
        write_json(path, report)
        if run.simulator == "nest":  # spikes kept for the statistics
            shutil.move(workdir / "run.npz", DATA / f"{name}.npz")
        elif (workdir / "spikes.h5").exists():
            shutil.move(workdir / "spikes.h5", DATA / f"{name}.h5")
        return report
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _rates(report: dict) -> dict[str, float]:
    return {k: float(v["rate_hz"]) for k, v in report.get("populations", {}).items()}


def nest_row(setting: Setting, run: Run, report: dict) -> dict:
    synapses = int(report["recurrent_synapses"])
    times = report["time_s"]
    peak = float(report["peak_rss_mb"])
    network_mb = peak - float(report["rss_mb"]["before_build"])
    simulate = float(times["init"]) + float(times["simulate"])  # presim + measured
    simulated_ms = setting.presim_ms + setting.sim_ms
    return {
        "simulator": "nest",
        "ranks": run.ranks,
        "threads": run.threads,
        "method": "",
        "connections": int(report["connections"]),
        "recurrent_synapses": synapses,
        "build_s": float(times["build"]),
        "init_s": float(times["init"]),
        "simulate_s": simulate,
        "simulated_ms": simulated_ms,
        "simulate_s_per_bio_s": simulate / (simulated_ms / 1000.0),
        "measured_simulate_s_per_bio_s": float(times["simulate"]) / (setting.sim_ms / 1000.0),
        "peak_rss_mb_total": peak,
        "network_rss_mb": network_mb,
        "bytes_per_synapse": network_mb * MEBIBYTE / synapses,
        "own_bytes_per_synapse": None,
        "store_bytes_per_synapse": None,
        "exchange_share": None,
        "wait_share": None,
        "rates_hz": _rates(report),
        "nest_version": report.get("nest_version"),
        "measured": report.get("measured"),
    }


def spikex_row(setting: Setting, run: Run, report: dict, baseline: dict | None) -> dict:
    synapses = int(
        report.get("synapses") or mp.derive(setting.n_scaling, setting.k_scaling).recurrent_synapses
    )
    times = report["time_s"]
    peak = float(report["peak_rss_mb"]["mean"]) * run.ranks
    base = float(baseline["peak_rss_mb"]["mean"]) * run.ranks if baseline else None
    own = report.get("memory_bytes") or {}
    own_total = sum(float(v["mean"]) for v in own.values()) * run.ranks if own else None
    simulated_ms = float(report.get("simulated_ms", setting.presim_ms + setting.sim_ms))
    simulate = float(times["simulate"])
    return {
        "simulator": "spikex",
        "ranks": run.ranks,
        "threads": run.threads,
        "method": run.method,
        "connections": int(report["connections"]),
        "recurrent_synapses": synapses,
        "build_s": float(times["build"]),
        "init_s": float(times["init"]),
        "simulate_s": simulate,
        "simulated_ms": simulated_ms,
        "simulate_s_per_bio_s": simulate / (simulated_ms / 1000.0),
        "measured_simulate_s_per_bio_s": None,
        "peak_rss_mb_total": peak,
        "network_rss_mb": None if base is None else peak - base,
        "bytes_per_synapse": None if base is None else (peak - base) * MEBIBYTE / synapses,
        "own_bytes_per_synapse": None if own_total is None else own_total / synapses,
        "store_bytes_per_synapse": report.get("bytes_per_synapse"),
        "exchange_share": float(times.get("exchange", 0.0)) / simulate if simulate > 0 else None,
        "wait_share": float(times.get("wait", 0.0)) / simulate if simulate > 0 else None,
        "rates_hz": _rates(report),
        "spikes_sha256": report.get("spikes_sha256"),
        "measured": report.get("measured"),
    }


def campaign(setting: Setting, layouts, methods, simulators, rerun: bool) -> dict:
    rows, skipped = [], []
    for ranks, threads in layouts:
        if "nest" in simulators:
            if ranks == 1:
                run = Run("nest", ranks, threads)
                rows.append(nest_row(setting, run, execute(setting, run, rerun)))
            else:
                skipped.append(f"nest {ranks}x{threads}: the NEST 3.10 wheel has no MPI")
        if "spikex" in simulators:
            for method in methods:
                base_run = Run("spikex", ranks, threads, method, baseline=True)
                baseline = execute(setting, base_run, rerun)
                run = Run("spikex", ranks, threads, method)
                rows.append(spikex_row(setting, run, execute(setting, run, rerun), baseline))
    hashes = {row["spikes_sha256"] for row in rows if row.get("spikes_sha256")}
    return {
        "setting": asdict(setting),
        # spikex's spikes must not depend on ranks, threads or method
        "spikex_spikes_identical": None if not hashes else len(hashes) == 1,
        "recurrent_synapses": int(
            mp.derive(setting.n_scaling, setting.k_scaling).recurrent_synapses
        ),
        "neurons": int(mp.derive(setting.n_scaling).num_neurons.sum()),
        "rows": rows,
        "skipped": skipped,
    }


def _number(value, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _share(value) -> str:
    return "–" if value is None else f"{100 * value:.0f} %"


def _own(row: dict) -> str:
    if row.get("own_bytes_per_synapse") is None:
        return "–"
    return f"{row['own_bytes_per_synapse']:.1f} / {_number(row.get('store_bytes_per_synapse'), 1)}"


# The targets at equal cores: spikex's simulate time and memory per synapse as a
# share of NEST's.
TARGET_SIMULATE_RATIO = 0.25
TARGET_MEMORY_RATIO = 0.5


def _span(values: list[float]) -> str:
    lo, hi = min(values), max(values)
    return f"{lo:.2f}" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}–{hi:.2f}"


def equal_core_ratios(result: dict) -> list[str]:
    """spikex / NEST per number of cores (NEST's 1 × c run against every spikex ranks × threads
    layout with c cores), simulate time per biological second and RSS bytes per synapse."""
    nest = {row["threads"]: row for row in result["rows"] if row["simulator"] == "nest"}
    lines = []
    for cores in sorted({r["ranks"] * r["threads"] for r in result["rows"]}):
        ref = nest.get(cores)
        mine = [
            r for r in result["rows"]
            if r["simulator"] == "spikex" and r["ranks"] * r["threads"] == cores
        ]  # fmt: skip
        if ref is None or not mine:
            continue
        simulate = [r["simulate_s_per_bio_s"] / ref["simulate_s_per_bio_s"] for r in mine]
        memory = [
            r["bytes_per_synapse"] / ref["bytes_per_synapse"]
            for r in mine
            if r.get("bytes_per_synapse") and ref.get("bytes_per_synapse")
        ]
        met = max(simulate) <= TARGET_SIMULATE_RATIO and (
            not memory or max(memory) <= TARGET_MEMORY_RATIO
        )
        lines.append(
            f"* {cores} core{'s' if cores > 1 else ''} ({len(mine)} spikex runs against NEST 1 × "
            f"{cores}): simulate {_span(simulate)}"
            + (f", memory per synapse {_span(memory)}" if memory else "")
            + (" — targets met" if met else " — **targets not met**")
        )
    if lines:
        lines.insert(
            0,
            f"spikex / NEST at equal cores (targets: simulate ≤ {TARGET_SIMULATE_RATIO}, "
            f"memory per synapse ≤ {TARGET_MEMORY_RATIO}):\n",
        )
    return lines


def readme_block(result: dict) -> str:
    """The README's paragraph on the microcircuit benchmark (block ``vs_nest_microcircuit``)."""
    setting = result["setting"]
    stamps = sorted(row["measured"]["date_utc"] for row in result["rows"] if row.get("measured"))
    when = f", {stamps[0]} to {stamps[-1]} UTC" if stamps else ""
    return "\n".join(
        [
            f"The microcircuit at n_scaling {setting['n_scaling']:g}, k_scaling "
            f"{setting['k_scaling']:g} ({result['recurrent_synapses']:,} synapses; "
            f"`bench/vs_nest_microcircuit.py`{when}, one run each; "
            "`docs/validation/microcircuit.md`):",
            "",
            *equal_core_ratios(result)[1:],
        ]
    )


def markdown(result: dict) -> str:
    """The benchmark section of docs/validation/microcircuit.md, from the JSON."""
    setting = result["setting"]
    stamps = [row["measured"] for row in result["rows"] if row.get("measured")]
    head = (
        f"{measured_on(result['machine'], stamps)}. Network: n_scaling {setting['n_scaling']:g}, "
        f"k_scaling {setting['k_scaling']:g} ({result['neurons']:,} neurons, "
        f"{result['recurrent_synapses']:,} recurrent synapses), {setting['input']} input, "
        f"V0 {setting['v0']}, presim {setting['presim_ms']:g} ms + {setting['sim_ms']:g} ms "
        f"measured (the simulate column covers both), seed {setting['seed']}; "
        f"NEST {result.get('nest_version') or '3.10'}."
    )
    lines = [
        head,
        "",
        "| simulator | ranks × threads | method | build s | simulate s per bio s "
        "| peak RSS MB | B/synapse (RSS) | B/synapse (own: all / store) | exchange | wait |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in result["rows"]:
        lines.append(
            f"| {row['simulator']} | {row['ranks']} × {row['threads']} | {row['method'] or '–'} "
            f"| {_number(row['build_s'], 1)} | {_number(row['simulate_s_per_bio_s'], 1)} "
            f"| {row['peak_rss_mb_total']:.0f} | {_number(row['bytes_per_synapse'], 1)} "
            f"| {_own(row)} "
            f"| {_share(row['exchange_share'])} | {_share(row['wait_share'])} |"
        )
    if result.get("spikex_spikes_identical") is not None:
        same = "the same" if result["spikex_spikes_identical"] else "**different**"
        lines.append(f"\nspikex's spikes are {same} in every layout and method (spikes_sha256).")
    for note in result.get("skipped", []):
        lines.append(f"\nNot run: {note}.")
    ratios = equal_core_ratios(result)
    if ratios:
        lines.append("")
        lines.extend(ratios)
    return "\n".join(lines) + "\n"


def parse_layout(text: str) -> tuple[int, int]:
    try:
        ranks, threads = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"layout {text!r}: expected RANKSxTHREADS, e.g. 1x2")
    if ranks < 1 or threads < 1:
        raise argparse.ArgumentTypeError(f"layout {text!r}: ranks and threads must be >= 1")
    return ranks, threads


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-scaling", type=float, default=1.0)
    parser.add_argument("--k-scaling", type=float, default=1.0)
    parser.add_argument("--presim-ms", type=float, default=mp.PRESIM_MS)
    parser.add_argument("--sim-ms", type=float, default=mp.SIM_MS)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--input", choices=("poisson", "dc"), default="poisson")
    parser.add_argument("--v0", choices=("original", "optimized"), default="original")
    parser.add_argument("--thalamic", action="store_true")
    parser.add_argument(
        "--layouts", nargs="+", type=parse_layout, default=list(LAYOUTS), help="e.g. 1x1 1x2 2x1"
    )
    parser.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS))
    parser.add_argument(
        "--simulators", nargs="+", choices=("nest", "spikex"), default=["nest", "spikex"]
    )
    parser.add_argument("--rerun", action="store_true", help="measure again, not from the cache")
    parser.add_argument(
        "--report-only", action="store_true", help="only rewrite the doc section from the JSON"
    )
    parser.add_argument("--output", type=Path, default=RESULT)
    parser.add_argument("--doc", type=Path, default=DOC)
    args = parser.parse_args(argv)

    if args.report_only:
        result = json.loads(args.output.read_text())
    else:
        setting = Setting(
            args.n_scaling, args.k_scaling, args.presim_ms, args.sim_ms, args.seed,
            args.input, args.v0, args.thalamic,
        )  # fmt: skip
        result = campaign(setting, args.layouts, args.methods, args.simulators, args.rerun)
        result["machine"] = machine()
        versions = {row["nest_version"] for row in result["rows"] if row.get("nest_version")}
        result["nest_version"] = ", ".join(sorted(versions)) or None
        write_json(args.output, result)
    text = markdown(result)
    update_section("benchmark", text, doc=args.doc)
    if args.doc == DOC:
        readme_numbers.write_block(readme_block(result), "vs_nest_microcircuit")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
