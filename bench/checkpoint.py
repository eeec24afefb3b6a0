"""What does a checkpoint cost: bytes per neuron and per synapse, seconds per GB written
and read, and how much longer resuming on another rank count takes than building the
network afresh there? (issue 20)

Networks (configuration-built, one thread per rank, spike recording off as in
``spikex run``, whose checkpoints refer to the streamed spike file instead of holding the
spikes): NEST's hpc_benchmark static and with STDP at three sizes, and the interval_fire
benchmark (``network.model`` default: static synapses, so its checkpoint is neuron state
only) at three sizes. For each size, in fresh SPMD processes (``mpiexec`` for P > 1):

* ``save`` on P = 1 rank: build, simulate (SIMULATE_MS), ``Network.save``. Timed: the
  fresh build (``from_config`` + ``_initialise``), the whole ``save`` (export, HDF5
  write, fsync, SHA-256, manifest, renames), then its halves alone: ``export_state`` and
  ``write_checkpoint`` of its columns. Sizes: the files of the checkpoint directory, and
  per table (cells, inflight, plastic, ...) the HDF5 storage of its datasets.
* on P' ranks, three jobs, each in fresh processes as a resumed run would be: ``load``,
  ``Network.load`` (verify, build, read, import, initialise); ``fresh``, ``from_config``
  + ``_initialise`` of the same network; ``parts``, what ``load`` does timed part by part
  (``open_checkpoint``; build; ``restore_state``: this rank's rows read and put into the
  engine in pieces; init), with the bytes each rank read (``/proc/self/io`` rchar). The
  checkpoint's pages are evicted from the page cache first (``posix_fadvise`` DONTNEED;
  the virtual machine's host may still cache them). h5py is imported before the timings.

Times are the slowest rank's, each section started after a barrier.

For the largest size of each network the checkpoint is also written on P = 2 ranks and
loaded on P' = 1, 2, 3, 4 (3 and 4 over-subscribe a 2-core machine). One case is checked
end to end: hpc_benchmark with STDP and spike recording, saved on 2 ranks at
``t1``, resumed on 3 ranks to ``2 t1``, must give the spikes_sha256 and events of an
uninterrupted 1-rank run, or this script fails: a benchmark of a broken resume is
worthless.

Writes ``bench/results/checkpoint.json`` and the figures into docs/user/checkpoint.md
between ``<!-- checkpoint-cost:begin -->`` and ``<!-- checkpoint-cost:end -->``::

    python bench/checkpoint.py            # measure (about 6 minutes on 2 idle cores), write both
    python bench/checkpoint.py --quick    # smallest sizes only, printed, nothing written
    python bench/checkpoint.py --docs     # only rewrite the docs block from the JSON
    python bench/checkpoint.py --check-docs  # exit 1 when the docs block is stale
    python bench/checkpoint.py --sizes 1 --attempts 1   # fewer sizes, each job once (a busy machine)
    python bench/checkpoint.py --only "hpc_benchmark STDP" --largest   # one case, printed to /tmp
    python bench/checkpoint.py --comparison BEFORE.json AFTER.json     # two such cases (issue 56)

Bytes read are per rank, from ``/proc/self/io`` (rchar) around each part of a load; the
comparison (``bench/results/checkpoint_restore.json``) is the largest STDP case measured
with the code before and after restores read only their rows in bounded pieces.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from spikex.io.checkpoint import MIN_PIECE_VALUES, PIECE_VALUES, PIECES
from spikex_runs import machine

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OUTPUT = HERE / "results" / "checkpoint.json"
# Issue 56: the largest STDP case on P' ranks, measured by the code before and after
# restores read only their rows in pieces (--comparison BEFORE.json AFTER.json).
COMPARISON = HERE / "results" / "checkpoint_restore.json"
COMPARISON_BLOCK = "checkpoint-restore"
DOC = REPO / "docs" / "user" / "checkpoint.md"
BLOCK = "checkpoint-cost"
DT_MS = 0.1
LAYOUT = ["simulation.threads=1"]
NO_RECORDING = {"record": {"spikes": False}}
# Each size is the configuration's "network" section; the last one of each network is also
# written on 2 ranks and loaded on every P' of OTHER_P.
HPC_SIZES = [
    {"scale": 0.5, "indegree_e": 1500, "indegree_i": 375},
    {"scale": 1.0, "indegree_e": 3000, "indegree_i": 750},
    {"scale": 2.0, "indegree_e": 3000, "indegree_i": 750},
]
INTERVAL_FIRE_SIZES = [
    {"cells": 8192},  # the benchmark's defaults: N = 8192, C = 1000
    {"cells": 1_000_000, "indegree": 10, "indegree_spread": 0},
    {"cells": 2_000_000, "indegree": 10, "indegree_spread": 0},
]
NETWORKS = {
    "hpc_benchmark static": [
        {"model": "hpc_benchmark", "plastic": False, **size} for size in HPC_SIZES
    ],
    "hpc_benchmark STDP": [
        {"model": "hpc_benchmark", "plastic": True, **size} for size in HPC_SIZES
    ],
    "interval_fire": [{"model": "interval_fire", **size} for size in INTERVAL_FIRE_SIZES],
}
SIMULATE_MS = {"hpc_benchmark": 50.0, "interval_fire": 10.0}
OTHER_P = (1, 2, 3, 4)  # P' for the largest sizes, from a checkpoint written on 2 ranks
CHECK = {"model": "hpc_benchmark", "plastic": True, "scale": 0.5, "indegree_e": 1500,
         "indegree_i": 375}  # fmt: skip
CHECK_T1_MS = 30.0


# ---- the SPMD child (one job of P ranks) ------------------------------------------------


def child(spec: dict) -> dict | None:
    """One job: ``spec["mode"]`` is save, load, fresh, parts or whole (the check's
    uninterrupted run). Rank 0 returns the figures."""
    import h5py  # noqa: F401  (imported before any timing: spikex run has it loaded too)
    import spikex as sx
    from spikex import _core
    from spikex.api.checkpointing import resumed_config
    from spikex.io.checkpoint import open_checkpoint, restore_state, write_checkpoint
    from spikex.runtime.collective import float64_per_rank, int64_per_rank
    from spikex.version import __version__

    def slowest(seconds: float) -> float:
        return round(float(float64_per_rank([seconds]).max()), 4)

    def timed(action):
        _core.comm_barrier()
        start = time.perf_counter()
        value = action()
        return value, slowest(time.perf_counter() - start)

    def peak_rss_mb() -> float:
        return round(float(float64_per_rank([_core.peak_rss_mb()]).max()), 1)

    def read_per_rank(action):
        """`action`'s value and the bytes each rank read through read(2) meanwhile."""
        before = read_bytes()
        value = action()
        return value, [int(v) for v in int64_per_rank([read_bytes() - before])[:, 0]]

    def evict(directory: Path) -> None:
        if _core.comm_rank() == 0:
            for path in directory.iterdir():
                descriptor = os.open(path, os.O_RDONLY)
                try:
                    os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_DONTNEED)
                finally:
                    os.close(descriptor)

    def fresh(config: dict) -> tuple[sx.Network, dict]:
        net, config_s = timed(lambda: sx.Network.from_config(config, LAYOUT))
        _, build_s = timed(net._build)
        _, init_s = timed(net._initialise)
        parts = {"config_s": config_s, "build_s": build_s, "init_s": init_s}
        return net, {"fresh_build_s": round(config_s + build_s + init_s, 4), **parts}

    out: dict = {"ranks": _core.comm_size()}
    mode, config = spec["mode"], spec.get("config")
    if mode == "fresh":
        _, out["fresh"] = fresh(config)
        out["rss_mb"] = peak_rss_mb()
    elif mode in ("save", "whole"):
        net, out["fresh"] = fresh(config)
        out["rss_after_build_mb"] = peak_rss_mb()
        if mode == "whole":
            result = net.simulate(spec["simulate_ms"])
        else:
            result, out["simulate_s"] = timed(lambda: net.simulate(spec["simulate_ms"]))
            out["rss_after_simulate_mb"] = peak_rss_mb()
            path, out["save_s"] = timed(lambda: net.save(spec["directory"]))
            out["checkpoint"] = str(path)
            out["rss_after_save_mb"] = peak_rss_mb()
            # Then save's two halves alone: the engine's export, and the files
            # (write_checkpoint: HDF5, fsync, SHA-256, manifest, renames) of those columns,
            # elsewhere. After the save, which is a process's first export as in a run (the
            # first export of a large plastic network is slower than the next).
            columns, out["export_s"] = timed(net._engine.export_state)
            scratch = spec["directory"] + "-columns"
            _, out["write_s"] = timed(lambda: write_checkpoint(scratch, columns, {}))
            del columns
            gc.collect()
            if _core.comm_rank() == 0:
                shutil.rmtree(scratch)
        summary = result.summary
        out.update(
            cells=summary["cells"],
            synapses=summary["synapses"],
            connections=summary["connections"],
            memory_bytes=sum(int(v["mean"] * summary["ranks"]) for v in summary["memory_bytes"].values()),
            spikes_sha256=summary["spikes_sha256"],
            spikes_total=summary["spikes_total"],
            events_delivered=summary["events_delivered"],
        )  # fmt: skip
    elif mode == "load":
        directory = Path(spec["checkpoint"])
        evict(directory)
        (net, out["load_s"]), out["read_bytes"] = read_per_rank(
            lambda: timed(lambda: sx.Network.load(directory, LAYOUT))
        )
        out["rss_mb"] = peak_rss_mb()
        if spec.get("continue_ms"):
            summary = net.simulate(spec["continue_ms"]).summary
            out.update(
                spikes_sha256=summary["spikes_sha256"],
                spikes_total=summary["spikes_total"],
                events_delivered=summary["events_delivered"],
            )
    else:  # parts: what Network.load does, timed part by part
        directory = Path(spec["checkpoint"])
        evict(directory)
        (checkpoint, verify_s), verify_bytes = read_per_rank(
            lambda: timed(lambda: open_checkpoint(directory, __version__))
        )
        net, config_s = timed(lambda: sx.Network.from_config(resumed_config(checkpoint, LAYOUT)))
        _, build_s = timed(net._build)
        out["rss_after_build_mb"] = peak_rss_mb()
        (_, restore_s), restore_bytes = read_per_rank(
            lambda: timed(lambda: restore_state(checkpoint, net._engine))
        )
        _, init_s = timed(net._initialise)
        out["load_parts"] = {"verify_s": verify_s, "config_s": config_s, "build_s": build_s,
                             "restore_s": restore_s, "init_s": init_s,
                             "verify_read_bytes": verify_bytes,
                             "restore_read_bytes": restore_bytes}  # fmt: skip
        out["rss_mb"] = peak_rss_mb()
    return out if _core.comm_rank() == 0 else None


def read_bytes() -> int:
    """Bytes this process has read through read(2) and pread(2) so far (/proc/self/io
    rchar: from the page cache or the disk alike)."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    return 0


# ---- the driver ----------------------------------------------------------------------------


# Other processes on the machine (a test suite, a build) slow the jobs down. Each job
# measures them: the CPU time the whole machine was busy (/proc/stat) minus the CPU time
# of this script and its jobs (getrusage), per second of wall time. A job that saw more
# than QUIET_CORES of it is run again once the machine is quiet, up to ATTEMPTS times; the
# attempt with the least is kept and its figure recorded ("foreign_cores").
QUIET_CORES = 0.2
ATTEMPTS = 3


def busy_cpu_seconds() -> float:
    """CPU seconds the machine spent on anything but idle and iowait since boot."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n")[0].split()[1:9]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds() -> float:
    usage = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    return sum(u.ru_utime + u.ru_stime for u in usage)


def wait_until_quiet(limit_s: float = 300.0) -> None:
    """Until the machine's other processes use less than QUIET_CORES over 5 s (or limit_s)."""
    began = time.perf_counter()
    while time.perf_counter() - began < limit_s:
        busy, own = busy_cpu_seconds(), own_cpu_seconds()
        time.sleep(5.0)
        if (busy_cpu_seconds() - busy - (own_cpu_seconds() - own)) / 5.0 < QUIET_CORES:
            return


def run_job(ranks: int, spec: dict, retry: bool = True) -> dict:
    """One SPMD job of the child on `ranks` ranks; rank 0's figures."""
    best = None
    for attempt in range(1, (ATTEMPTS if retry else 1) + 1):
        result = run_job_once(ranks, spec)
        result["attempt"] = attempt
        if best is None or result["foreign_cores"] < best["foreign_cores"]:
            best = result
        if result["foreign_cores"] <= QUIET_CORES or attempt == (ATTEMPTS if retry else 1):
            break
        print(f"  other processes used {result['foreign_cores']:.2f} cores during {spec['mode']} "
              f"on {ranks} ranks: again when quiet", file=sys.stderr, flush=True)  # fmt: skip
        wait_until_quiet()
    return best


def run_job_once(ranks: int, spec: dict) -> dict:
    from spikex.launch.launcher import child_environment, mpiexec_command

    program = [sys.executable, __file__, "--child", json.dumps(spec)]
    busy, own = busy_cpu_seconds(), own_cpu_seconds()
    started = time.perf_counter()
    done = subprocess.run(
        mpiexec_command(ranks, program), capture_output=True, text=True, check=False,
        env=child_environment(ranks=ranks, threads=1), timeout=900,
    )  # fmt: skip
    wall = time.perf_counter() - started
    foreign = (busy_cpu_seconds() - busy - (own_cpu_seconds() - own)) / wall
    if done.returncode != 0:
        sys.exit(
            f"checkpoint bench: {spec['mode']} on {ranks} ranks failed:\n{done.stdout}\n{done.stderr}"
        )
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    result = json.loads(lines[0][len("RESULT ") :])
    result["job_wall_s"] = round(wall, 2)
    result["foreign_cores"] = round(max(foreign, 0.0), 3)
    result["load_average_end"] = round(os.getloadavg()[0], 2)
    return result


def checkpoint_sizes(directory: Path) -> dict:
    """Bytes of every file, and per table (cells, inflight, plastic, ...) the HDF5
    storage and element count of its datasets, summed over the rank files."""
    import h5py

    files = {path.name: path.stat().st_size for path in sorted(directory.iterdir())}
    tables: dict[str, dict] = {}
    columns: dict[str, int] = {}
    for name in files:
        if not name.endswith(".h5"):
            continue
        with h5py.File(directory / name, "r") as source:

            def visit(path, item):
                if isinstance(item, h5py.Dataset):
                    table = path.split("/")[0] if "/" in path else "scalars"
                    entry = tables.setdefault(table, {"bytes": 0})
                    entry["bytes"] += int(item.id.get_storage_size())
                    columns[path] = columns.get(path, 0) + int(item.size)

            source.visititems(visit)
    total = sum(files.values())
    stored = sum(entry["bytes"] for entry in tables.values())
    return {
        "bytes": total,
        "files": files,
        "tables": tables,
        "hdf5_and_manifest_overhead_bytes": total - stored,
        "rows": {
            "cells": sum(
                n for c, n in columns.items() if c.startswith("cells/") and c.endswith("/gid")
            ),
            "inflight_spikes": columns.get("inflight/gid", 0),
            "plastic_weights": columns.get("plastic/weight/value", 0),
            "plastic_targets": columns.get("plastic/weight/target", 0),
            "presynaptic_traces": columns.get("plastic/pre/source", 0),
            "recorded_spikes": columns.get("recorded/gid", 0),
        },
    }


def config_of(network: dict, recording: bool = False) -> dict:
    config = {"simulation": {"dt_ms": DT_MS}, "network": dict(network)}
    return config if recording else {**config, **NO_RECORDING}


def size_label(network: dict) -> str:
    if network["model"] == "hpc_benchmark":
        return (
            f"scale {network['scale']:g}, K = {network['indegree_e']:,}+{network['indegree_i']:,}"
        )
    return f"N = {network['cells']:,}, C = {network.get('indegree', 1000):,}"


def measure_case(name: str, network: dict, scratch: Path, other_p: tuple[int, ...]) -> dict:
    config = config_of(network)
    simulate_ms = SIMULATE_MS[network["model"]]
    case = {
        "network": name,
        "size": size_label(network),
        "config": config,
        "simulate_ms": simulate_ms,
    }
    saves, loads = [], []
    writers = (1, 2) if other_p else (1,)
    for ranks in writers:
        directory = scratch / f"p{ranks}"
        saved = run_job(ranks, {"mode": "save", "config": config, "simulate_ms": simulate_ms,
                                "directory": str(directory)})  # fmt: skip
        path = Path(saved.pop("checkpoint"))
        saved["checkpoint"] = checkpoint_sizes(path)
        saves.append(saved)
        readers = other_p if ranks == 2 else (1,)
        for readers_p in readers:
            job = {"config": config, "checkpoint": str(path)}
            loaded = run_job(readers_p, {"mode": "load", **job})
            fresh = run_job(readers_p, {"mode": "fresh", **job})
            loaded["fresh"] = {**fresh["fresh"], "rss_mb": fresh["rss_mb"],
                               "foreign_cores": fresh["foreign_cores"]}  # fmt: skip
            parts = run_job(readers_p, {"mode": "parts", **job})
            loaded["load_parts"] = {**parts["load_parts"], "rss_mb": parts["rss_mb"],
                                    "foreign_cores": parts["foreign_cores"]}  # fmt: skip
            loaded["written_on"] = ranks
            loaded["resume_ratio"] = round(loaded["load_s"] / loaded["fresh"]["fresh_build_s"], 2)
            loads.append(loaded)
            report(name, case["size"], saved, loaded)
        subprocess.run(["rm", "-rf", str(directory)], check=True)
    case["saves"], case["loads"] = saves, loads
    return case


def report(name: str, size: str, saved: dict, loaded: dict) -> None:
    mb = saved["checkpoint"]["bytes"] / 1e6
    print(
        f"{name:>21} {size:<30} P={saved['ranks']} -> P'={loaded['ranks']}: {mb:8.1f} MB, "
        f"save {saved['save_s']:6.2f} s, load {loaded['load_s']:6.2f} s, "
        f"fresh {loaded['fresh']['fresh_build_s']:6.2f} s (x{loaded['resume_ratio']:.2f})",
        file=sys.stderr, flush=True,
    )  # fmt: skip


def check_resume(scratch: Path) -> dict:
    """Saved on 2 ranks at t1, resumed on 3 to 2 t1: the spikes of an uninterrupted run."""
    config = config_of(CHECK, recording=True)
    whole = run_job(1, {"mode": "whole", "config": config, "simulate_ms": 2 * CHECK_T1_MS}, False)
    saved = run_job(2, {"mode": "save", "config": config, "simulate_ms": CHECK_T1_MS,
                        "directory": str(scratch / "check")}, retry=False)  # fmt: skip
    sizes = checkpoint_sizes(Path(saved["checkpoint"]))
    resumed = run_job(3, {"mode": "load", "config": config, "checkpoint": saved["checkpoint"],
                          "continue_ms": CHECK_T1_MS}, retry=False)  # fmt: skip
    fields = ("spikes_sha256", "spikes_total", "events_delivered")
    equal = all(whole[field] == resumed[field] for field in fields)
    check = {
        "network": "hpc_benchmark STDP, spike recording on",
        "size": size_label(CHECK),
        "config": config,
        "t1_ms": CHECK_T1_MS,
        "tstop_ms": 2 * CHECK_T1_MS,
        "uninterrupted": {"ranks": 1, **{field: whole[field] for field in fields}},
        "resumed": {"saved_on": 2, "ranks": 3, **{field: resumed[field] for field in fields}},
        "recorded_spikes_in_checkpoint": sizes["rows"]["recorded_spikes"],
        "recorded_table_bytes": sizes["tables"].get("recorded", {}).get("bytes", 0),
        "equal": equal,
    }
    if not equal:
        sys.exit(
            f"checkpoint bench: the resumed run differs from the uninterrupted one: {json.dumps(check)}"
        )
    print(
        f"check: resumed on 3 ranks = uninterrupted on 1 ({whole['spikes_total']} spikes)",
        file=sys.stderr,
    )
    return check


def measure(
    quick: bool, only: str | None = None, largest: bool = False, sizes_count: int = 0
) -> dict:
    load_start = [round(value, 2) for value in os.getloadavg()]
    began = time.perf_counter()
    cases = []
    with tempfile.TemporaryDirectory(prefix="spikex-bench-checkpoint-") as scratch:
        check = check_resume(Path(scratch)) if not (only or largest) else None
        for name, sizes in NETWORKS.items():
            count = sizes_count
            if only and name != only:
                continue
            chosen = (
                sizes[:1] if quick else sizes[-1:] if largest else sizes[:count] if count else sizes
            )
            for index, network in enumerate(chosen):
                other_p = OTHER_P if index == len(chosen) - 1 else ()
                cases.append(
                    measure_case(name, network, Path(scratch) / f"case-{len(cases)}", other_p)
                )
    return {
        "question": "checkpoint bytes per neuron and per synapse; write and read seconds per GB; "
        "Network.load on P' ranks against a fresh build there",
        "date_utc": datetime.now(UTC).strftime("%Y-%m-%d %H:%M"),
        "machine": {**machine(), "load_average_start": load_start},
        "settings": {
            "dt_ms": DT_MS,
            "threads_per_rank": 1,
            "simulate_ms": SIMULATE_MS,
            "spike_recording": False,
            "page_cache": "checkpoint files evicted (posix_fadvise DONTNEED) before each load",
            "quiet_cores": QUIET_CORES,
            "attempts": ATTEMPTS,
            "pieces": {
                "per_share": PIECES,
                "max_values": PIECE_VALUES,
                "min_values": MIN_PIECE_VALUES,
            },
            "sizes": sizes_count or len(HPC_SIZES),
            "quick": quick,
        },
        "wall_s": round(time.perf_counter() - began, 1),
        "check": check,
        "cases": cases,
    }


# ---- the docs block ------------------------------------------------------------------------


def _mb(value: float) -> str:
    return f"{value / 1e6:,.1f}" if value >= 1e5 else f"{value / 1e6:.3f}"


RATE_FROM_MB = 10.0  # below, fixed costs make MB/s and s/GB meaningless: "–"


def _rate(megabytes: float, seconds: float) -> str:
    return f"{megabytes / seconds:,.0f}" if seconds > 0 and megabytes >= RATE_FROM_MB else "–"


def _per_gb(seconds: float, megabytes: float) -> str:
    return f"{seconds / (megabytes / 1e3):,.1f}" if megabytes >= RATE_FROM_MB else "–"


def foreign_cores(results: dict) -> list[float]:
    """What other processes used during every kept measurement (cores)."""
    found = []
    for case in results["cases"]:
        found += [saved["foreign_cores"] for saved in case["saves"]]
        for loaded in case["loads"]:
            found += [loaded["foreign_cores"], loaded["fresh"]["foreign_cores"],
                      loaded["load_parts"]["foreign_cores"]]  # fmt: skip
    return found


def build_note(results: dict) -> str:
    """How much a build of the same network varies between processes here."""
    spreads = []
    for case in results["cases"]:
        saved = next(s for s in case["saves"] if s["ranks"] == 1)
        loaded = next(x for x in case["loads"] if x["written_on"] == 1 and x["ranks"] == 1)
        builds = [saved["fresh"]["fresh_build_s"], loaded["fresh"]["fresh_build_s"],
                  loaded["load_parts"]["config_s"] + loaded["load_parts"]["build_s"]]  # fmt: skip
        spreads.append((max(builds) / min(builds) - 1, min(builds) > 0.5, case))
    spread, _, case = max(spreads, key=lambda item: (item[1], item[0]))  # builds over 0.5 s first
    return (
        "* A build of the same network in another process took up to "
        f"{100 * spread:.0f}% longer here ({case['network']}, {case['size']}: three builds "
        "on one rank): *load / fresh* within that of 1 means no measurable cost."
    )


def stdp_note(results: dict) -> str:
    """The STDP figures in words, from the largest STDP case."""
    case = [c for c in results["cases"] if c["network"] == "hpc_benchmark STDP"][-1]
    saved = next(s for s in case["saves"] if s["ranks"] == 1)
    loaded = next(x for x in case["loads"] if x["written_on"] == 1 and x["ranks"] == 1)
    parts = loaded["load_parts"]
    pieces = results["settings"]["pieces"]
    return (
        "* A static network resumes in about the time of a fresh build: it is a build plus a "
        f"little state. With STDP ({case['size']}, one rank) *export* takes "
        f"{saved['export_s']:.2f} s of the engine's time against {saved['write_s']:.2f} s for "
        f"the files, and the restore (read and import) {parts['restore_s']:.2f} s: the export "
        "groups every plastic synapse by target in one counting pass (8 B each: its position "
        "and delay group), and the import passes over the rank's plastic synapses once per "
        f"piece (a rank's share in about {pieces['per_share']} pieces of "
        f"{pieces['min_values']:,} to {pieces['max_values']:,} values). Memory: saving raised the "
        f"rank's peak RSS from {saved['rss_after_simulate_mb']:,.0f} MB to "
        f"{saved['rss_after_save_mb']:,.0f} MB (the grouping and the columns of the whole "
        f"rank), while the load peaked at {loaded['rss_mb']:,.0f} MB against "
        f"{loaded['fresh']['rss_mb']:,.0f} MB for a fresh build: a restore holds one piece of "
        "the checkpoint at a time besides the network, and 4 B per local cell."
    )


def restore_s(parts: dict) -> float:
    """What Network.load does beyond a fresh build, from its parts timed alone."""
    return parts["verify_s"] + parts["restore_s"] + parts["init_s"]


def read_mb(per_rank: list[int]) -> str:
    """The most any rank read, in MB."""
    return f"{max(per_rank) / 1e6:,.1f}"


def docs_block(results: dict) -> str:
    m = results["machine"]
    foreign = foreign_cores(results)
    quiet = results["settings"]["quiet_cores"]
    noisy = sum(value > quiet for value in foreign)
    lines = [
        (
            f"Measured by `make bench-checkpoint` (`bench/checkpoint.py`; every figure in "
            f"`bench/results/checkpoint.json`) on {m['cpu'] or m['processor']}, {m['cpus']} cores, "
            f"{results['date_utc']} UTC, load average {m['load_average_start'][0]:.2f} before and "
            f"{m['load_average'][0]:.2f} after (1 min; the benchmark's own 4-rank jobs included). "
            f"Other processes used at most {max(foreign):.2f} cores during any of the "
            f"{len(foreign)} measurements kept (mean {sum(foreign) / len(foreign):.2f}; "
            + (
                f"a job that saw more than {quiet:g} was run again when the machine was quiet"
                + (f"; {noisy} stayed above" if noisy else "")
                if results["settings"]["attempts"] > 1
                else f"each job ran once: {noisy} saw more than {quiet:g}, and their times are "
                "noisy; memory and bytes read do not depend on the load"
            )
            + ")."
            + (
                f" Sizes: the first {results['settings']['sizes']} of the {len(HPC_SIZES)} the "
                "benchmark defines (the machine was shared; the larger ones did not fit the time "
                "there was)."
                if results["settings"].get("sizes", len(HPC_SIZES)) < len(HPC_SIZES)
                else ""
            )
            + " One thread per rank; spikes not recorded "
            "(as in `spikex run`, whose checkpoints point into the streamed spike file); "
            f"simulated {results['settings']['simulate_ms']['hpc_benchmark']:g} ms "
            f"(interval_fire {results['settings']['simulate_ms']['interval_fire']:g} ms) before "
            "the checkpoint; written and read on the local disk of a virtual machine."
        ),
        "",
        (
            "**Size.** Only what changes while running is saved: neuron state, spikes in flight and, "
            "with STDP, plastic weights and traces. Static synapses are rebuilt from the seed, so a "
            "static network's checkpoint is tiny whatever its synapse count."
        ),
        "",
        (
            "| network | size | neurons | synapses | plastic | checkpoint MB | B / neuron "
            "(cell state) | B / plastic synapse (plastic tables) | B / synapse (all) | network memory MB |"
        ),
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for case in results["cases"]:
        saved = case["saves"][0]
        sizes = saved["checkpoint"]
        rows, tables = sizes["rows"], sizes["tables"]
        plastic = rows["plastic_weights"]
        plastic_bytes = tables.get("plastic", {}).get("bytes", 0)
        cell_bytes = tables.get("cells", {}).get("bytes", 0)
        lines.append(
            f"| {case['network']} | {case['size']} | {saved['cells']:,} | {saved['synapses']:,} | "
            f"{plastic:,} | {_mb(sizes['bytes'])} | {cell_bytes / saved['cells']:.1f} | "
            f"{f'{plastic_bytes / plastic:.2f}' if plastic else '–'} | "
            f"{sizes['bytes'] / saved['synapses']:.3f} | {saved['memory_bytes'] / 1e6:,.0f} |"
            if saved["synapses"]
            else f"| {case['network']} | {case['size']} | {saved['cells']:,} | 0 | 0 | "
            f"{_mb(sizes['bytes'])} | {cell_bytes / saved['cells']:.1f} | – | – | "
            f"{saved['memory_bytes'] / 1e6:,.0f} |"
        )
    lines += [
        "",
        (
            "**Write and read, one rank.** *save* is `Network.save`, the process's first; its "
            "halves timed alone after it: *export* (the engine's state into columns) and *files* "
            "(`write_checkpoint` of those columns: HDF5 with fletcher32, fsync, SHA-256, manifest, "
            "renames). A process's first export of a large plastic network takes longer than the "
            "next (fresh memory): *save* > *export* + *files* there. *load* is "
            "`Network.load`; *fresh* is `from_config` + build + init of the same network; *restore* "
            "is what load does beyond a fresh build, its parts timed alone: verify (SHA-256 of "
            "every file) + restore (read and import) + init. MB/s and s/GB are over the "
            "checkpoint's bytes "
            "(– under 10 MB, where fixed costs are all there is)."
        ),
        "",
        (
            "| network | size | checkpoint MB | save s | export s | files s | write MB/s | "
            "write s/GB | load s | fresh s | load / fresh | restore s | restore MB/s | "
            "restore s/GB |"
        ),
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for case in results["cases"]:
        saved = next(s for s in case["saves"] if s["ranks"] == 1)
        loaded = next(x for x in case["loads"] if x["written_on"] == 1 and x["ranks"] == 1)
        megabytes = saved["checkpoint"]["bytes"] / 1e6
        restore = restore_s(loaded["load_parts"])
        lines.append(
            f"| {case['network']} | {case['size']} | {_mb(saved['checkpoint']['bytes'])} | "
            f"{saved['save_s']:.2f} | {saved['export_s']:.2f} | {saved['write_s']:.2f} | "
            f"{_rate(megabytes, saved['save_s'])} | {_per_gb(saved['save_s'], megabytes)} | "
            f"{loaded['load_s']:.2f} | {loaded['fresh']['fresh_build_s']:.2f} | "
            f"{loaded['resume_ratio']:.2f} | {restore:.2f} | {_rate(megabytes, restore)} | "
            f"{_per_gb(restore, megabytes)} |"
        )
    lines += [
        "",
        (
            "**Resuming on another P.** The largest size of each network, its checkpoint written on "
            "2 ranks (save s, for the 2 writers), loaded on P' ranks; *load / fresh* is the cost of "
            "resuming against building the same network afresh on those P' ranks. The parts of "
            "*load* timed one by one: *verify* (rank r checks the SHA-256 of blocks r, r + P', ... "
            "of the rank files' 16 MiB blocks), *build*, "
            "*restore* (each rank reads the key columns of every rank file, then only the HDF5 "
            "chunks that hold its rows, and puts them into the engine piece by piece). *read MB / "
            "rank* is the most any rank read (`/proc/self/io` rchar) while verifying and while "
            "restoring; *load / fresh peak* is the peak RSS per rank of the load against that of a "
            "fresh build. P' = 3 and 4 over-subscribe the 2 cores: their times are not those of 3 "
            "or 4 cores."
        ),
        "",
        (
            "| network | size | checkpoint MB (save s on 2) | P' | load s | fresh s | load / fresh "
            "| verify s | build s | restore s | read MB / rank: verify, restore | peak RSS / rank "
            "MB: load (fresh) | load / fresh peak |"
        ),
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for case in results["cases"]:
        on_two = [s for s in case["saves"] if s["ranks"] == 2]
        if not on_two:
            continue
        saved = on_two[0]
        for loaded in (x for x in case["loads"] if x["written_on"] == 2):
            parts = loaded["load_parts"]
            star = " (over-subscribed)" if loaded["ranks"] > m["cpus"] else ""
            lines.append(
                f"| {case['network']} | {case['size']} | {_mb(saved['checkpoint']['bytes'])} "
                f"({saved['save_s']:.2f}) | {loaded['ranks']}{star} | {loaded['load_s']:.2f} | "
                f"{loaded['fresh']['fresh_build_s']:.2f} | {loaded['resume_ratio']:.2f} | "
                f"{parts['verify_s']:.2f} | {parts['build_s']:.2f} | {parts['restore_s']:.2f} | "
                f"{read_mb(parts['verify_read_bytes'])}, {read_mb(parts['restore_read_bytes'])} | "
                f"{loaded['rss_mb']:,.0f} ({loaded['fresh']['rss_mb']:,.0f}) | "
                f"{loaded['rss_mb'] / loaded['fresh']['rss_mb']:.2f} |"
            )
    check = results["check"]
    lines += [
        "",
        (
            f"**The resume is checked, not assumed.** {check['network']} ({check['size']}) saved on "
            f"{check['resumed']['saved_on']} ranks at {check['t1_ms']:g} ms and resumed on "
            f"{check['resumed']['ranks']} ranks to {check['tstop_ms']:g} ms gives the "
            f"`spikes_sha256` and events delivered of an uninterrupted 1-rank run "
            f"({check['uninterrupted']['spikes_total']:,} spikes); the benchmark fails otherwise. "
            f"Its checkpoint held {check['recorded_spikes_in_checkpoint']:,} recorded spikes in "
            f"{_mb(check['recorded_table_bytes'])} MB (a Python run that records spikes keeps them "
            "in the checkpoint; `spikex run` streams them to the spike file instead)."
        ),
        "",
        "What the figures mean:",
        "",
        (
            "* Per plastic synapse a checkpoint holds its weight (8 bytes), plus per target a count "
            "and key digest, per (source, delay, synapse type) a presynaptic trace, and per neuron "
            "its postsynaptic history: hence a little more than 8 B. In hpc_benchmark only E→E "
            "synapses are plastic. B / neuron is the cell state (5 to 8 float64 values and the gid; "
            "`cells/` table, as stored) divided by the neurons: 72 B for iaf_psc_alpha and 48 B for "
            "interval_fire, more where a table's last HDF5 chunk (65,536 values) is stored whole "
            "though partly empty; spikes in flight and HDF5 metadata come on top (the checkpoint "
            "MB column has everything)."
        ),
        (
            "* Small checkpoints are dominated by fixed costs (HDF5 file creation, fsync, process "
            "collectives, a manifest): their MB/s says nothing about bandwidth; read the large rows."
        ),
        (
            "* A rank reads the chunks that hold its rows: a target's plastic weights are stored "
            "in 8 KB chunks, so with many inputs per target the volume a rank reads falls with P'; "
            "cell states (one row of 48-72 B per cell, the cells of round-robin ranks interleaved) "
            "are read in 512 KB chunks that hold every rank's cells, so each rank reads all of "
            "them unless its cells lie together in the files (`distribution.scheme = "
            '"consecutive"`), or in rank files it skips.'
        ),
        build_note(results),
        (
            "* The checkpoint files were evicted from the page cache before each load, but the "
            "verification reads them all first, so the restore's reads hit the cache; the virtual "
            "machine's host may cache the disk as well. Writes include fsync."
        ),
        stdp_note(results),
    ]
    return "\n".join(lines)


def doc_with_block(text: str, block: str, name: str = BLOCK) -> str:
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    start, stop = text.find(begin), text.find(end)
    if start < 0 or stop < start:
        raise ValueError(f"{DOC} has no {begin} ... {end} block")
    return text[: start + len(begin)] + "\n" + block + "\n" + text[stop:]


def comparison_block(comparison: dict) -> str:
    """Restore memory and bytes read per rank, before and after issue 56."""
    before, after = comparison["before"], comparison["after"]

    def loads(results: dict) -> dict:
        (case,) = [c for c in results["cases"] if c["network"] == "hpc_benchmark STDP"]
        return {(x["written_on"], x["ranks"]): (case, x) for x in case["loads"]}

    old, new = loads(before), loads(after)
    case = next(iter(new.values()))[0]
    saved = next(s for s in case["saves"] if s["ranks"] == 2)
    m = after["machine"]
    lines = [
        (
            f'**Restores before and after issue 56** (`bench/checkpoint.py --only "hpc_benchmark '
            f'STDP" --largest`, run with the code before and after; every figure in '
            f"`bench/results/checkpoint_restore.json`): hpc_benchmark STDP, {case['size']}, "
            f"{saved['checkpoint']['rows']['plastic_weights']:,} plastic synapses, a checkpoint of "
            f"{_mb(saved['checkpoint']['bytes'])} MB written on 2 ranks and loaded with "
            f"`Network.load` on P' ranks; on {m['cpu'] or m['processor']}, {m['cpus']} cores, "
            f"{before['date_utc']} and {after['date_utc']} UTC, load average "
            f"{before['machine']['load_average_start'][0]:.1f} and "
            f"{m['load_average_start'][0]:.1f} at the start (the cores were shared with other "
            "builds and tests: the times are noisy, each job ran once; peak memory and bytes "
            "read do not depend on the load). *Read MB / rank* is the most any rank read "
            "(`/proc/self/io` rchar) in the load's two parts timed alone: verifying the SHA-256 "
            "(before: rank 0 hashed every file; after: each rank 1/P' of the 16 MiB blocks) and "
            "reading the rows (before: every rank read every rank file whole; after: the key "
            "columns and the chunks of its rows)."
        ),
        "",
        (
            "| P' | peak RSS / rank MB, load before (fresh) | after (fresh) | load / fresh peak: "
            "before | after | read MB / rank, verify + rows: before | after | load s: before | "
            "after |"
        ),
        "|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for key in sorted(new):
        if key not in old or key[0] != 2:
            continue
        (_, b), (_, a) = old[key], new[key]
        bp, ap = b["load_parts"], a["load_parts"]
        b_read = f"{read_mb(bp['verify_read_bytes'])} + {read_mb(bp['rows_read_bytes'])}"
        a_read = f"{read_mb(ap['verify_read_bytes'])} + {read_mb(ap['restore_read_bytes'])}"
        star = " (over-subscribed)" if key[1] > m["cpus"] else ""
        lines.append(
            f"| {key[1]}{star} | {b['rss_mb']:,.0f} ({b['fresh']['rss_mb']:,.0f}) | "
            f"{a['rss_mb']:,.0f} ({a['fresh']['rss_mb']:,.0f}) | "
            f"{b['rss_mb'] / b['fresh']['rss_mb']:.2f} | {a['rss_mb'] / a['fresh']['rss_mb']:.2f} | "
            f"{b_read} | {a_read} | {b['load_s']:.1f} | {a['load_s']:.1f} |"
        )
    lines += [
        "",
        (
            "Before, the load held the rows of its whole share three times over besides the "
            "network: as numpy columns (read whole per file, then concatenated), copied into the "
            "engine's columns, and an index of the plastic table by target (8 B per synapse) — "
            "about 1.3 GB at P' = 1 here on top of a 1.3 GB build. After, it holds one piece (about "
            "1/16 of its share, at most 4 million values) at a time and 4 B per local cell, so "
            "its peak is the build's."
        ),
    ]
    return "\n".join(lines)


def write_docs(results: dict) -> bool:
    text = DOC.read_text(encoding="utf-8")
    new = doc_with_block(text, docs_block(results))
    if COMPARISON.exists():
        comparison = json.loads(COMPARISON.read_text(encoding="utf-8"))
        new = doc_with_block(new, comparison_block(comparison), COMPARISON_BLOCK)
    if new != text:
        DOC.write_text(new, encoding="utf-8")
    return new != text


def main() -> int:
    global ATTEMPTS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="the smallest size of each network only"
    )
    parser.add_argument(
        "--docs", action="store_true", help="only rewrite the docs block from the JSON"
    )
    parser.add_argument(
        "--check-docs", action="store_true", help="exit 1 when the docs block is stale"
    )
    parser.add_argument(
        "--only", choices=sorted(NETWORKS), help="one network only (printed, nothing written)"
    )
    parser.add_argument(
        "--largest", action="store_true", help="the largest size only (printed, nothing written)"
    )
    parser.add_argument(
        "--attempts", type=int, default=ATTEMPTS,
        help=f"runs of a job that saw other processes (default {ATTEMPTS}; 1: keep the first)",
    )  # fmt: skip
    parser.add_argument(
        "--sizes", type=int, default=0,
        help="the first N sizes of each network (the last of them loaded on every P'; default all)",
    )  # fmt: skip
    parser.add_argument(
        "--comparison", nargs=2, metavar=("BEFORE", "AFTER"),
        help="two --only \"hpc_benchmark STDP\" --largest results (before and after issue 56) "
        f"into {COMPARISON.name} and the docs",
    )  # fmt: skip
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        out = child(json.loads(args.child))
        if out is not None:
            print("RESULT " + json.dumps(out), flush=True)
        return 0
    if args.comparison:
        before, after = (json.loads(Path(p).read_text(encoding="utf-8")) for p in args.comparison)
        COMPARISON.write_text(json.dumps({"before": before, "after": after}, indent=2) + "\n")
        results = json.loads(OUTPUT.read_text(encoding="utf-8"))
        print(f"{DOC}: {'updated' if write_docs(results) else 'unchanged'}", file=sys.stderr)
        return 0
    if args.docs or args.check_docs:
        results = json.loads(OUTPUT.read_text(encoding="utf-8"))
        if args.check_docs:
            text = DOC.read_text(encoding="utf-8")
            expected = doc_with_block(text, docs_block(results))
            if COMPARISON.exists():
                comparison = json.loads(COMPARISON.read_text(encoding="utf-8"))
                expected = doc_with_block(expected, comparison_block(comparison), COMPARISON_BLOCK)
            if expected != text:
                print(f"checkpoint bench: the {BLOCK} block of {DOC} is stale; run "
                      "python bench/checkpoint.py --docs", file=sys.stderr)  # fmt: skip
                return 1
            return 0
        print(f"{DOC}: {'updated' if write_docs(results) else 'unchanged'}", file=sys.stderr)
        return 0
    ATTEMPTS = max(1, args.attempts)
    results = measure(args.quick, args.only, args.largest, args.sizes)
    if args.only or args.largest:  # a part: the committed figures stay
        scratch = Path(tempfile.gettempdir()) / "spikex-bench-checkpoint-part.json"
        scratch.write_text(json.dumps(results, indent=2) + "\n")
        print(f"{scratch} written", file=sys.stderr)
        return 0
    if args.quick:  # a smoke test: the committed figures stay
        scratch = Path(tempfile.gettempdir()) / "spikex-bench-checkpoint-quick.json"
        scratch.write_text(json.dumps(results, indent=2) + "\n")
        print(f"{scratch} written", file=sys.stderr)
        print(docs_block(results))
        return 0
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(json.dumps(results, indent=2) + "\n")
    write_docs(results)
    print(f"{OUTPUT} and {DOC} written ({results['wall_s']:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
