"""Predictions against what can be checked: measured runs here and the papers' tables.

``python -m spikex.scaling`` (``make scaling``, called by ``make results``) runs:

1. measured: every method of a small network on P = 1..16 ranks of this machine (one SPMD
   job per P, the code path of ``spikex run``), and the dry run of the same network for
   the same P: counters compared one by one (they must be equal), exchange time per
   interval compared with the ``local`` profile's prediction;
2. papers: dry runs of scaled-down versions of the papers' networks at 10^3-10^5 virtual
   ranks with the ``bgp`` profile — trend and crossover against Hines et al. Table 1 and
   the linear growth of NEST 4g's Allgather time — plus NEST Figure 1 (closed form and
   measured on our connectivity) and Garg & Sabharwal Tables 2 and 3;

and writes ``docs/scaling.md`` with its figures and ``docs/scaling/validation.json``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from ..launch.launcher import child_environment, mpiexec_command
from ..counters import names
from ..methods import EXCHANGE_METHODS, capability
from .analytic import targets_on_rank
from .dryrun import execute_dryrun, plan_dryrun
from .time_model import interval_times

EXACT_COUNTERS = names(
    "messages_sent", "bytes_sent", "bytes_received", "spikes_sent", "spikes_received",
    "spikes_matched", "overflow_rounds", "entries_sent", "entries_received", "target_entries",
    "spikes_local", "phase_two_sent", "relayed_spikes", "target_rank_entries", "items_sent",
    "hops", "forwarded", "persistent_requests", "slots_scanned", "wire_bytes", "wire_spikes",
    "delivery_groups",
)  # fmt: skip
# What follows from the coded block sizes (exchange/spike_codec.hpp): exact only where the
# dry run knows every receiver's locations (its property wire_exact), else estimated.
WIRE_DEPENDENT = names("bytes_sent", "bytes_received", "wire_bytes", "messages_sent", "rounds", "overflow_rounds")


def exact_counters(dry_method: dict) -> tuple[str, ...]:
    """The counters a dry run of one variant predicts exactly."""
    if dry_method["properties"].get("wire_exact", True):
        return EXACT_COUNTERS
    return tuple(name for name in EXACT_COUNTERS if name not in WIRE_DEPENDENT)
# Every registered method with its defaults, and the two-phase relay (Hines et al. 2011).
MEASURED_VARIANTS = (*EXCHANGE_METHODS, "multisend:phases=2")
MEASURED_NETWORK = """
[simulation]
tstop_ms = 100.0
seed = 3

[network]
cells = 1024
indegree = 100
indegree_spread = 20
weight = 0.0
weight_spread = 0.05
"""

SPMD = """
    import gc, json, sys
    import spikex as sx
    from spikex.compare.method_variants import parse_method_variant
    config, variants, tstop = sys.argv[1], sys.argv[2].split(";"), float(sys.argv[3])
    out = {}
    for text in variants:
        variant = parse_method_variant(text)
        net = sx.Network.from_config(config, overrides=list(variant.run_overrides()))
        summary = net.simulate(tstop).summary
        out[text] = {k: summary[k] for k in ("exchange", "memory_bytes", "time_s", "spikes_sha256")}
        del net
        gc.collect()
    if sx.Network().rank == 0:
        with open(sys.argv[4], "w") as f:
            json.dump(out, f)
"""


def measure_runs(config: Path, ranks: int, variants, tstop_ms: float, workdir: Path) -> dict:
    """Every variant on ``ranks`` ranks in one SPMD job; summary fields per variant."""
    script = workdir / "measure.py"
    script.write_text(textwrap.dedent(SPMD))
    output = workdir / f"measured-np{ranks}.json"
    command = mpiexec_command(ranks, [sys.executable, str(script), str(config), ";".join(variants),
                                      str(tstop_ms), str(output)])  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, env=child_environment(),
                          stdin=subprocess.DEVNULL, timeout=3600)  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"measuring on {ranks} ranks failed:\n{done.stderr[-3000:]}")
    return json.loads(output.read_text())


def compare_counts(real: dict, dry: dict) -> dict:
    """Per variant: counters compared, those that differ, predicted vs measured time."""
    rows = {}
    for label, entry in real.items():
        method = dry["methods"][label]
        sums = method["sums"]
        compared, differ = [], []
        for name in exact_counters(method):
            if name in sums and name in entry["exchange"]:
                compared.append(name)
                if sums[name] != entry["exchange"][name]:
                    differ.append(f"{name} {sums[name]:g} vs {entry['exchange'][name]:g}")
        rows[label] = {"compared": compared, "differ": differ}
    return rows


def measured_seconds(entry: dict, method: str) -> float:
    """Measured exchange time of a run (max over ranks); point-to-point methods add the
    send initiation the model charges to the exchange."""
    t = entry["time_s"]
    return t["exchange"] + (t.get("send", 0.0) if capability(method, "point_to_point") else 0.0)


def local_validation(workdir: Path, ranks_list=(1, 2, 4, 8, 16), profile=None) -> dict:
    config = workdir / "measured.toml"
    config.write_text(textwrap.dedent(MEASURED_NETWORK))
    out = {"config": textwrap.dedent(MEASURED_NETWORK).strip(), "ranks": {}}
    for ranks in ranks_list:
        start = time.perf_counter()
        real = measure_runs(config, ranks, MEASURED_VARIANTS, 100.0, workdir)
        dry = execute_dryrun(plan_dryrun(config, ranks, ",".join(MEASURED_VARIANTS)))
        counts = compare_counts(real, dry)
        for label, row in counts.items():
            method = dry["methods"][label]
            row["measured_s"] = measured_seconds(real[label], method["method"])
            if profile is not None:
                row["predicted_s"] = sum(interval_times(method, ranks, profile))
            row["memory"] = {
                name: {"model": stats["max"], "measured": real[label]["memory_bytes"][name]["max"]}
                for name, stats in method["memory_bytes"].items()
                if name in real[label]["memory_bytes"]
            }
        out["ranks"][ranks] = {"variants": counts, "seconds": round(time.perf_counter() - start, 1)}
        print(f"scaling: measured P={ranks}", file=sys.stderr, flush=True)
    return out


# ---- the papers' regimes, by dry run ----------------------------------------------------

HINES_NETWORK = """
[simulation]
tstop_ms = {tstop}
seed = 1

[network]
cells = {cells}
indegree = {indegree}
indegree_spread = 0
"""
# Hines Table 1: 2 M cells, 1,000 inputs, 8 K-64 K BG/P cores. Here the real rank counts
# and inputs per cell (so the fan-out of a cell, ~1,000 of P ranks, is the paper's), with
# 16 times fewer cells (131,072: 16 down to 2 cells per rank instead of 256 down to 32).
HINES_CELLS = 131_072
HINES_RANKS = (8192, 16384, 32768, 65536)
HINES_VARIANTS = ("allgather", "multisend", "multisend:phases=2", "persistent")
# NEST weak scaling: a fixed number of cells per rank, P growing (4g = allgather, 5g =
# alltoall; alltoallv beside it).
NEST_CELLS_PER_RANK = 8
NEST_INDEGREE = 1000
NEST_RANKS = (256, 1024, 4096, 16384)
SAMPLE_RANKS = 32


def _dryrun_sweep(config: Path, ranks_list, variants: str):
    """Dry runs of one network for several P, one spike train for all of them.

    With zero weights interval_fire cells ignore their inputs, so the spike train comes
    from a run of the same cells without connections (checked by the test suite: the
    same spikes_sha256); that keeps 10^8 connections out of a one-rank simulation.
    """
    from .dryrun import spike_train

    train = None
    for ranks in ranks_list:
        plan = plan_dryrun(config, ranks, variants, sample_ranks=SAMPLE_RANKS)
        if train is None:
            network = plan.config["network"]
            if network["weight"] != 0 or network["weight_spread"] != 0:
                raise ValueError("the connection-free spike train needs zero weights")
            unconnected = json.loads(json.dumps(plan.config))
            unconnected["network"].update(indegree=0, indegree_spread=0)
            train = spike_train(unconnected, None)
        yield ranks, execute_dryrun(plan, train)


def paper_sweeps(workdir: Path, profile, quick: bool = False) -> dict:
    out = {"hines_table1": [], "nest_weak": []}
    tstop = 40.0 if quick else 60.0
    config = workdir / "hines_scaled.toml"
    config.write_text(textwrap.dedent(HINES_NETWORK.format(tstop=tstop, cells=HINES_CELLS, indegree=1000)))
    for ranks, dry in _dryrun_sweep(config, HINES_RANKS[: 3 if quick else None], ",".join(HINES_VARIANTS)):
        row = {"ranks": ranks, "cells_per_rank": HINES_CELLS / ranks}
        for label, method in dry["methods"].items():
            times = interval_times(method, ranks, profile)
            row[label] = {
                "exchange_s_per_interval": sum(times) / len(times),
                "messages_max": method["totals"]["messages_sent"]["max"],
                "bytes_received_max": method["totals"].get("bytes_received", {}).get("max"),
                "fanout_max": method["fanout"].get("remote_target_ranks", {}).get("max"),
            }
        out["hines_table1"].append(row)
        out["hines_spike_train"] = dry["spike_train"]
        print(f"scaling: Hines dry run P={ranks}", file=sys.stderr, flush=True)
    for ranks in NEST_RANKS[: 3 if quick else None]:
        cfg = workdir / f"nest_weak_{ranks}.toml"
        text = HINES_NETWORK.format(tstop=tstop, cells=ranks * NEST_CELLS_PER_RANK, indegree=NEST_INDEGREE)
        cfg.write_text(textwrap.dedent(text))
        ((_, dry),) = _dryrun_sweep(cfg, (ranks,), "allgather,alltoall,alltoallv")
        row = {"ranks": ranks, "cells": ranks * NEST_CELLS_PER_RANK}
        for label, method in dry["methods"].items():
            times = interval_times(method, ranks, profile)
            row[label] = {
                "exchange_s_per_interval": sum(times) / len(times),
                "receive_buffer_bytes": method["memory_bytes"]["receive_buffers"]["max"],
            }
        out["nest_weak"].append(row)
        print(f"scaling: NEST weak dry run P={ranks}", file=sys.stderr, flush=True)
    return out


def nest_figure1_measured(workdir: Path) -> list[dict]:
    """Fractions of (cell, rank) pairs with 0, 1, >1 targets on our real connectivity."""
    from ..api.network import Network

    rows = []
    cells, indegree = 4096, 500
    config = {"network": {"cells": cells, "indegree": indegree, "indegree_spread": 0}}
    for ranks in (16, 64, 256, 1024, 4096):
        net = Network.from_config(config)
        one, more, pairs = net.dry_run_partition(ranks).target_pairs()
        closed = targets_on_rank([ranks], indegree)
        rows.append({
            "ranks": ranks, "one": one / pairs, "more": more / pairs, "zero": 1 - (one + more) / pairs,
            "closed_one": float(closed["one"][0]), "closed_more": float(closed["more"][0]),
            "closed_zero": float(closed["zero"][0]),
        })  # fmt: skip
    return rows
