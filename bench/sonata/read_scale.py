"""Reading a generated SONATA circuit: build time and peak memory per rank on 1 and 2 ranks
(question: does each rank's memory follow its share of the edges, not the file?), and the
time ``read_edges`` takes for all targets, a contiguous half and an interleaved half.

    python bench/sonata/read_scale.py [--nodes 100000] [--indegree 100] [--dir /tmp/sonata_scale]
                                      [--out bench/results/sonata_read_scale.json]

Also measured: what every rank reads whole, the nodes (``read_node_populations``: node
types, models, per-node parameters) with the node sets and inputs, in a fresh process
(seconds, and its peak RSS above the RSS before reading).

The circuit comes from generate_circuit.py (kept in --dir between runs). ``spikex run``
of its simulation config (20 ms) gives ``time_s.build`` (reading the nodes and this rank's
edges, and building the engine) and ``peak_rss_mb``.

The NEST column (``--only nest`` runs it alone and merges it into --out): NEST 3.10's own
reader, ``nest.SonataNetwork(...).BuildNetwork()`` (reading nodes and edges, creating the
connections; NEST built with HDF5 by bench/nest/build_nest_hdf5.sh), then ``Simulate(20)``,
on 1 and 2 ranks (mpirun, 1 thread per rank), with each rank's VmHWM
(bench/nest/nest_sonata_network.py). NEST's reader takes ``$BASE_DIR`` literally (it does
not substitute ``${configdir}``) and wants ``target_simulator``, so it reads copies of the
two configs (``nest_*_config.json`` in the circuit's folder). A NEST run is skipped, with
the reason and the estimate in the JSON, when its estimated memory (a fit of peak memory
to nodes and edges over the NEST runs of --estimate-from files) exceeds --nest-limit-gb or
less than --nest-min-available-gb is available.

Before each NEST run the script waits (at most --settle-max-s) for the 1-minute load to
fall below --settle-load; it also times, alone, the line of NEST's Create that maps each
virtual node to its spike times (``input_spike_map_s``). NEST 3.10 cannot simulate more
than 524,287 nodes per virtual process; where a circuit has more, the run on 1 thread per
rank gives the build only, and one more run with the fewest threads per rank that can
gives the Simulate.

    python bench/sonata/read_scale.py --nodes 1000000 --indegree 10 \\
        --out bench/results/sonata_read_scale_1e6.json --only nest
    python bench/sonata/read_scale.py --table bench/results/sonata_read_scale*.json  # the docs' tables
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
NEST_ROOT = REPO / "bench" / "nest-hdf5"
NEST_SCRIPT = REPO / "bench" / "nest" / "nest_sonata_network.py"
sys.path.insert(0, str(HERE))
from generate_circuit import generate


def run(config: Path, ranks: int, scheme: str, outdir: Path) -> dict:
    command = [sys.executable, "-m", "spikex", "run", str(config), "--np", str(ranks), "-o", str(outdir),
               "--overwrite", "--progress", "none", "--set", f"distribution.scheme={scheme}"]  # fmt: skip
    load_before = os.getloadavg()[0]
    subprocess.run(command, check=True, capture_output=True, text=True)
    summary = json.loads((outdir / "summary.json").read_text())
    return {
        "ranks": ranks, "distribution": scheme, "connections": summary["connections"],
        "build_s": round(summary["time_s"]["build"], 3), "peak_rss_mb_max": round(summary["peak_rss_mb"]["max"], 1),
        "peak_rss_mb_mean": round(summary["peak_rss_mb"]["mean"], 1), "spikes_sha256": summary["spikes_sha256"],
        "load_1min_before": round(load_before, 2), "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
    }  # fmt: skip


NODE_READ = """
import json, sys, time
from spikex.sonata import load_config, read_node_populations
from spikex.sonata.node_sets import NodeSets
from spikex.sonata.inputs import spike_trains
def status_kb(key):  # VmRSS: now; VmHWM: this process's peak (ru_maxrss may carry the
    for line in open("/proc/self/status"):  # parent's peak over fork and exec)
        if line.startswith(key + ":"):
            return int(line.split()[1])
def rss_kb():
    return status_kb("VmRSS")
before = rss_kb()
start = time.perf_counter()
config = load_config(sys.argv[1])
nodes = read_node_populations(config)
middle = time.perf_counter()
trains = spike_trains(config, NodeSets(config, nodes), 0.1)
end = time.perf_counter()
after = status_kb("VmHWM")
print(json.dumps({"nodes": sum(p.size for p in nodes), "read_nodes_s": round(middle - start, 3),
                  "read_inputs_s": round(end - middle, 3), "peak_rss_growth_mb": round((after - before) / 1024, 1)}))
"""


def node_read(config: Path) -> dict:
    """Reading the nodes (and the inputs) as every rank does, in a fresh process."""
    done = subprocess.run([sys.executable, "-c", NODE_READ, str(config)], check=True,
                          capture_output=True, text=True)  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


def read_times(config: Path, nodes: int) -> dict:
    from spikex.sonata import edge_populations, load_config, read_edges

    populations = edge_populations(load_config(config))
    times = {}
    for name, targets in (
        ("all", None),
        ("contiguous_half", np.arange(nodes // 2)),
        ("interleaved_half", np.arange(0, nodes, 2)),
    ):
        start = time.perf_counter()
        edges = sum(
            read_edges(p, target_node_ids=targets, target_size=nodes).target.size
            for p in populations
        )
        times[name] = {"edges": int(edges), "seconds": round(time.perf_counter() - start, 3)}
    return times


def nest_configs(circuit: Path) -> tuple[Path, Path]:
    """Copies of the circuit's two configs that NEST's reader takes: ``$BASE_DIR`` = "."
    (NEST joins a manifest value to the config's folder and does not substitute
    ``${configdir}``), ``target_simulator`` NEST (which it requires), and the input spikes
    sorted by time (``spike_train_injector`` refuses a node's times out of order; the
    generated file is in random order, which spikex reads)."""
    import h5py

    paths = []
    for name in ("circuit_config.json", "simulation_config.json"):
        conf = json.loads((circuit / name).read_text())
        conf["manifest"] = {**conf.get("manifest", {}), "$BASE_DIR": "."}
        conf["target_simulator"] = "NEST"
        if "network" in conf:
            conf["network"] = "$BASE_DIR/nest_circuit_config.json"
        for spec in conf.get("inputs", {}).values():
            source = circuit / Path(spec["input_file"]).name
            sorted_copy = circuit / f"nest_{source.name}"
            if not sorted_copy.exists():
                with h5py.File(source, "r") as f, h5py.File(sorted_copy, "w") as out:
                    for population in f["spikes"]:
                        group = f["spikes"][population]
                        times = group["timestamps"][:]
                        order = np.argsort(times, kind="stable")
                        out[f"spikes/{population}/node_ids"] = group["node_ids"][:][order]
                        out[f"spikes/{population}/timestamps"] = times[order]
            spec["input_file"] = f"$BASE_DIR/{sorted_copy.name}"
        paths.append(circuit / f"nest_{name}")
        paths[-1].write_text(json.dumps(conf, indent=1))
    return paths[1], paths[0]


def nest_environment() -> dict:
    env = {
        k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")
    }
    return {**env, "PYNEST_QUIET": "1", "OMP_NUM_THREADS": "1"}


def nest_build() -> dict:
    """NEST's version and build flags (bench/nest-hdf5, made by build_nest_hdf5.sh)."""
    probe = "import json, nest; i = nest.GetKernelStatus('build_info'); print(json.dumps({'version': nest.__version__, **{k: i[k] for k in ('have_hdf5', 'have_mpi', 'have_threads', 'have_gsl')}}))"
    done = subprocess.run([str(NEST_ROOT / "python"), "-c", probe], check=True, capture_output=True,
                          text=True, env=nest_environment())  # fmt: skip
    record = NEST_ROOT / "build.json"
    build = json.loads(record.read_text()) if record.exists() else {}
    build["cmake_flags"] = [f.replace(str(REPO) + "/", "") for f in build.get("cmake_flags", [])]
    return {
        **json.loads(done.stdout.strip().splitlines()[-1]), "script": "bench/nest/build_nest_hdf5.sh",
        **{k: v for k, v in build.items() if k != "version"}, "compiler_flags": "-O2 -fopenmp (NEST's CMake default)",
    }  # fmt: skip


def nest_run(circuit: Path, ranks: int, threads: int = 1, tstop: float = 20.0) -> dict:
    """NEST's SonataNetwork build and a short Simulate on ``ranks`` ranks of ``threads``
    threads; the slowest rank's seconds, the largest peak, and the per-rank reports."""
    sim_config, circuit_config = nest_configs(circuit)
    out = Path(tempfile.mkdtemp(prefix="nest_read_"))
    command = [str(NEST_ROOT / "python"), str(NEST_SCRIPT), "measure", str(sim_config), "--circuit",
               str(circuit_config), "--tstop", str(tstop), "--out", str(out), "--threads", str(threads)]  # fmt: skip
    if ranks > 1:
        command = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", str(ranks), *command]
    load_before = os.getloadavg()[0]
    env = {**nest_environment(), "OMP_NUM_THREADS": str(threads)}
    try:
        done = subprocess.run(command, check=False, capture_output=True, text=True, env=env)
        if done.returncode != 0:
            raise RuntimeError(f"NEST failed ({done.returncode}): {done.stderr[-3000:]}")
        per_rank = [json.loads((out / f"rank{r}.json").read_text()) for r in range(ranks)]
    finally:
        shutil.rmtree(out, ignore_errors=True)
    assert all(r["ranks"] == ranks and r["threads"] == threads for r in per_rank), per_rank
    build_peaks = [r["peak_rss_build_mb"] for r in per_rank]
    result = {
        "ranks": ranks, "threads": threads, "connections": sum(r["local_connections"] for r in per_rank),
        "build_s": max(r["build_s"] for r in per_rank), "create_s": max(r["create_s"] for r in per_rank),
        "connect_s": max(r["connect_s"] for r in per_rank), "peak_rss_build_mb_max": max(build_peaks),
        "peak_rss_build_mb_mean": round(sum(build_peaks) / ranks, 1),
    }  # fmt: skip
    if all("peak_rss_mb" in r for r in per_rank):
        peaks = [r["peak_rss_mb"] for r in per_rank]
        result.update({
            "simulate_ms": tstop, "total_to_simulate_end_s": max(r["total_s"] for r in per_rank),
            "peak_rss_mb_max": max(peaks), "peak_rss_mb_mean": round(sum(peaks) / ranks, 1),
        })  # fmt: skip
    else:
        result["simulate_skipped"] = per_rank[0]["simulate_skipped"]
    result.update({
        "per_rank": per_rank, "load_1min_before": round(load_before, 2),
        "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
    })  # fmt: skip
    return result


SPIKE_MAP = """
import sys, time, h5py
with h5py.File(sys.argv[1], "r") as f:
    node_ids, timestamps = f["spikes/inputs/node_ids"][:], f["spikes/inputs/timestamps"][:]
n_nodes = int(sys.argv[2])
start = time.perf_counter()
spikes_map = {node_id: timestamps[node_ids == node_id] for node_id in range(n_nodes)}
print(round(time.perf_counter() - start, 3))
"""


def nest_spike_map_seconds(circuit: Path, inputs: int) -> float:
    """Seconds of the line of NEST 3.10's SonataNetwork.Create (hl_api_sonata.py,
    _create_spike_train_injectors) that maps each virtual node to its spike times: one scan
    of all spike times per node. Timed alone, with NEST's interpreter."""
    done = subprocess.run([str(NEST_ROOT / "python"), "-c", SPIKE_MAP, str(circuit / "nest_spikes_in.h5"),
                           str(inputs)], check=True, capture_output=True, text=True, env=nest_environment())  # fmt: skip
    return float(done.stdout.strip().splitlines()[-1])


def settle(limit: float, longest_s: float) -> float:
    """Wait (at most ``longest_s``) until the 1-minute load is below ``limit`` (the
    previous run's load fades); the seconds waited."""
    start = time.monotonic()
    while os.getloadavg()[0] >= limit and time.monotonic() - start < longest_s:
        time.sleep(10)
    return round(time.monotonic() - start)


def memory_available_gb() -> float:
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 1024**2
    raise KeyError("MemAvailable")


def nest_peak(run: dict) -> float:
    """A NEST run's peak memory per rank: to the end of Simulate, else of the build."""
    return run.get("peak_rss_mb_max", run["peak_rss_build_mb_max"])


def nest_runs(report: dict) -> list[dict]:
    nest = report.get("nest")
    return nest.get("runs", []) if isinstance(nest, dict) else []


def all_nodes(cells: int) -> int:
    """Cells and inputs of a generated circuit (generate_circuit.py: inputs = cells / 10)."""
    return cells + max(1, cells // 10)


def nest_estimate(files: list[Path], nodes: int, edges: int, ranks: int) -> dict | None:
    """NEST's peak memory per rank on this circuit, from its runs on smaller ones: the
    largest peak on ``ranks`` ranks (any threads) above the process after ``import nest``,
    fitted as a * nodes + b * edges / ranks (least squares; b alone from a single circuit)."""
    points = []
    for file in files:
        report = json.loads(file.read_text())
        runs = [run for run in nest_runs(report) if run["ranks"] == ranks]
        if runs:
            base = max(r["rss_after_import_mb"] for run in runs for r in run["per_rank"])
            peak = max(nest_peak(run) for run in runs)
            edges_per_rank = runs[0]["connections"] / ranks
            points.append((all_nodes(report["nodes"]), edges_per_rank, peak - base, base))
    if not points:
        return None
    p = np.asarray(points)
    if len(p) >= 2:
        (a, b), *_ = np.linalg.lstsq(p[:, :2], p[:, 2], rcond=None)
    else:
        a, b = 0.0, p[0, 2] / p[0, 1]
    per_rank = p[:, 3].max() + a * all_nodes(nodes) + b * edges / ranks
    return {
        "from": [str(f.relative_to(REPO)) if f.is_relative_to(REPO) else str(f) for f in files],
        "bytes_per_node": round(a * 2**20, 1), "bytes_per_edge_per_rank": round(b * 2**20, 1),
        "peak_rss_mb_per_rank": round(per_rank, 1), "peak_rss_gb_all_ranks": round(per_rank * ranks / 1024, 2),
    }  # fmt: skip


def circuit_edges(circuit: Path) -> int:
    """The edges in the circuit's files (spikex's ``connections`` also counts the edges of
    repeat cells: docs/user/sonata.md)."""
    import h5py

    with h5py.File(circuit / "network" / "edges.h5", "r") as f:
        return sum(g["source_node_id"].shape[0] for g in f["edges"].values())


def nest_side(args, circuit: Path, edges: int) -> dict:
    """NEST on 1 and 2 ranks of 1 thread; where it cannot simulate that many nodes per
    virtual process, once more with the fewest threads per rank that it can."""
    side = {"build": nest_build(), "circuit_edges": circuit_edges(circuit), "runs": [], "not_run": []}  # fmt: skip
    max_per_vp = 2**19 - 1  # bench/nest/nest_sonata_network.py: MAX_NODES_PER_VP
    for ranks in (1, 2):
        estimate = nest_estimate(args.estimate_from, args.nodes, edges, ranks)
        threads = 1
        while threads:
            available = memory_available_gb()
            reason = None
            if estimate and estimate["peak_rss_gb_all_ranks"] > args.nest_limit_gb:
                reason = f"estimated {estimate['peak_rss_gb_all_ranks']} GB > limit {args.nest_limit_gb} GB"
            elif available < args.nest_min_available_gb:
                reason = f"{available:.1f} GB available < {args.nest_min_available_gb} GB"
            if reason:
                side["not_run"].append({"ranks": ranks, "threads": threads, "reason": reason, "estimate": estimate,
                                        "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime())})  # fmt: skip
                break
            waited = settle(args.settle_load, args.settle_max_s)
            result = nest_run(circuit, ranks, threads)
            result["memory_available_gb_before"] = round(available, 1)
            result["waited_for_load_s"] = waited
            result["connections_equal_circuit_edges"] = (
                result["connections"] == side["circuit_edges"]
            )
            if estimate:
                result["estimate"] = estimate
            side["runs"].append(result)
            print(json.dumps({k: v for k, v in result.items() if k != "per_rank"}), flush=True)
            need = -(-all_nodes(args.nodes) // (ranks * max_per_vp))
            threads = need if "simulate_skipped" in result and threads == 1 else 0
    settle(args.settle_load, args.settle_max_s)
    side["input_spike_map_s"] = nest_spike_map_seconds(circuit, all_nodes(args.nodes) - args.nodes)
    return side


def ratios(report: dict) -> list[dict]:
    """spikex / NEST per rank count (spikex: round_robin distribution): build time against
    NEST's BuildNetwork on 1 thread per rank; peak memory per rank against NEST's peak to
    the end of its build (1 thread) and to the end of a 20 ms Simulate (the fewest threads
    with which NEST can simulate the circuit: 1 where it can)."""
    ours = {r["ranks"]: r for r in report.get("runs", []) if r["distribution"] == "round_robin"}
    rows = []
    for ranks, mine in sorted(ours.items()):
        theirs = [run for run in nest_runs(report) if run["ranks"] == ranks]
        single = [run for run in theirs if run["threads"] == 1]
        simulated = [run for run in theirs if "peak_rss_mb_max" in run]
        if not single:
            continue
        row = {
            "ranks": ranks, "build_time": round(mine["build_s"] / single[0]["build_s"], 3),
            "peak_memory_vs_nest_build": round(mine["peak_rss_mb_max"] / single[0]["peak_rss_build_mb_max"], 3),
        }  # fmt: skip
        if simulated:
            row["peak_memory_vs_nest_run"] = round(
                mine["peak_rss_mb_max"] / simulated[0]["peak_rss_mb_max"], 3
            )
            row["nest_threads_of_run"] = simulated[0]["threads"]
        rows.append(row)
    return rows


def spikex_table(files: list[Path]) -> str:
    """The docs' table of spikex's own runs: per circuit, rank count and distribution,
    ``time_s.build`` and the peak memory per rank, with the machine's load."""
    lines = [
        "| circuit | result file | ranks | `time_s.build` (s) | peak memory per rank (MB) | 1-minute load before |",
        "|---|---|---|---:|---:|---:|",
    ]
    for file in files:
        report = json.loads(file.read_text())
        first = f"{_circuit_name(all_nodes(report['nodes']), report['edges'])} | `{file.name}`"
        for run in report["runs"]:
            lines.append(
                f"| {first} | {run['ranks']} ({run['distribution']}) | {run['build_s']:.1f} | "
                f"{run['peak_rss_mb_max']:,.0f} | {run['load_1min_before']:.1f} |"
            )
            first = " | "
    return "\n".join(lines)


def _circuit_name(nodes: int, edges: int) -> str:
    def power(x: int) -> str:
        return f"{x / 10 ** len(str(x)[1:]):.1f}·10^{len(str(x)) - 1}"

    return f"{power(nodes)} nodes, {power(edges)} edges"


def table(files: list[Path]) -> str:
    """The scale table of docs/user/sonata.md from result files: per circuit and rank count,
    spikex's build and peak against NEST's BuildNetwork (1 thread per rank) and peaks."""
    lines = [
        (
            "| circuit | ranks | spikex build (s) | NEST build (s): Create + Connect | spikex / NEST "
            "time | spikex peak (MB) | NEST peak (MB): build / to Simulate end | spikex / NEST "
            "memory: build / to Simulate end |"
        ),
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for file in files:
        report = json.loads(file.read_text())
        ours = {r["ranks"]: r for r in report["runs"] if r["distribution"] == "round_robin"}
        nodes, edges = all_nodes(report["nodes"]), report["nest"]["circuit_edges"]
        first = f"{_circuit_name(nodes, edges)} (`{file.name}`)"
        for row in report["spikex_over_nest"]:
            ranks = row["ranks"]
            mine = ours[ranks]
            single = next(r for r in nest_runs(report) if r["ranks"] == ranks and r["threads"] == 1)
            run = next(
                (r for r in nest_runs(report) if r["ranks"] == ranks and "peak_rss_mb_max" in r),
                None,
            )
            peak = f"{run['peak_rss_mb_max']:,.0f}" if run else "—"
            if run and run["threads"] > 1:
                peak += f" ({run['threads']} threads)"
            memory = f"{row['peak_memory_vs_nest_build']:.2f} / " + (
                f"{row['peak_memory_vs_nest_run']:.2f}" if "peak_memory_vs_nest_run" in row else "—"
            )
            lines.append(
                f"| {first} | {ranks} | {mine['build_s']:.1f} | {single['build_s']:.1f}: "
                f"{single['create_s']:.1f} + {single['connect_s']:.1f} | {row['build_time']:.2f} | "
                f"{mine['peak_rss_mb_max']:,.0f} | {single['peak_rss_build_mb_max']:,.0f} / {peak} | {memory} |"
            )  # fmt: skip
            first = ""
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--indegree", type=int, default=100)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/sonata_scale"))
    parser.add_argument(
        "--out", type=Path, default=REPO / "bench" / "results" / "sonata_read_scale.json"
    )
    parser.add_argument(
        "--only", choices=("all", "spikex", "nest"), default="all",
        help="run one side and keep the other's results already in --out",
    )  # fmt: skip
    parser.add_argument("--nest-limit-gb", type=float, default=20.0)
    parser.add_argument(
        "--settle-load", type=float, default=1.0,
        help="before each NEST run, wait until the 1-minute load is below this",
    )  # fmt: skip
    parser.add_argument("--settle-max-s", type=float, default=300.0)
    parser.add_argument("--nest-min-available-gb", type=float, default=18.0)
    parser.add_argument(
        "--estimate-from", type=Path, nargs="*",
        help="result files whose NEST runs give the memory estimate for this circuit "
        "(default: the other bench/results/sonata_read_scale*.json)",
    )  # fmt: skip
    parser.add_argument(
        "--table", type=Path, nargs="+",
        help="print the docs' scale table from these result files and stop",
    )  # fmt: skip
    args = parser.parse_args()
    if args.table:
        print(spikex_table(args.table) + "\n\n" + table(args.table))
        sys.exit(0)
    if args.estimate_from is None:
        others = sorted((REPO / "bench" / "results").glob("sonata_read_scale*.json"))
        args.estimate_from = [f for f in others if f.resolve() != args.out.resolve()]
    circuit = args.dir / f"n{args.nodes}_k{args.indegree}"
    config = circuit / "simulation_config.json"
    if not config.exists():
        generate(circuit, args.nodes, args.indegree)
    report = json.loads(args.out.read_text()) if args.out.exists() and args.only != "all" else {}
    if args.only in ("all", "spikex"):
        runs = [
            run(config, p, s, args.dir / f"out_{p}_{s}")
            for p, s in ((1, "round_robin"), (2, "round_robin"), (2, "consecutive"))
        ]
        report.update({
            "question": "reading time and peak memory per rank of a generated SONATA circuit, 1 and 2 ranks",
            "nodes": args.nodes, "indegree": args.indegree, "edges": runs[0]["connections"],
            "same_spikes": len({r["spikes_sha256"] for r in runs}) == 1, "runs": runs,
            "read_edges": read_times(config, args.nodes), "read_nodes_every_rank": node_read(config),
            "machine": "2 cores, shared",
        })  # fmt: skip
    if args.only in ("all", "nest"):
        assert (
            report.get("nodes", args.nodes) == args.nodes
            and report.get("indegree", args.indegree) == args.indegree
        )
        report["nest"] = nest_side(args, circuit, report["edges"])
    report["spikex_over_nest"] = ratios(report)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps({k: v for k, v in report.items() if k not in ("runs", "nest")}, indent=2))
