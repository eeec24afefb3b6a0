#!/usr/bin/env python3
"""Measured: from which P routed GUPS beats the direct grid on this machine (issue 21, part 3).

``spikex gups`` on P ranks (default 16, 32, 64, 128), on the direct grid [P] and on the
balanced 2-D grid (``routing_model.balanced_dims(P, 2)``), the budget 1,024, in turn (for
each setting, for each repeat, for each P, both grids) and the best GUPS of each:

* ``node-mpi``: one node, MPI messages (``--no-shared-memory``): the message cost the
  ``local`` profile measures (OpenMPI's shared-memory transport);
* ``node-mailboxes``: one node, shared-memory mailboxes (``--shared-memory``: a message is
  a copy into the receiver's slot, and a sender waits while both of its slots are full);
* ``cluster-mpi``: ``scripts/mini_cluster.sh`` with 4 hosts (network namespaces, real TCP
  over links limited by tbf to ``--cluster-rate``), P / 4 ranks each, MPI messages
  (``netns-<rate>`` profile). Needs root.

All P ranks share this machine's cores (P = 128 on 2 cores is 64 ranks a core): a rank
waiting for a message yields its core, so what is measured is the total work of all
ranks (hops, messages, the scheduler's switches), not a rank's latency. Next to each
measurement: the time model's ratio for the same grids (``routing_model.grid_cost``, the
profile of the setting) and the grid ``--dims auto`` picks.

The results file is rewritten after every run; ``--resume`` keeps its runs and adds the
missing ones (an interrupted measurement goes on where it stopped).
Writes ``bench/results/routing_measured.json`` and the block "routing-measured" of
docs/user/gups.md::

    .venv/bin/python bench/routing_measured.py [--ranks 16,32,64,128] [--repeats 2] [--resume]
        [--settings node-mpi,node-mailboxes,cluster-mpi] [--cluster-rate 1gbit] [--docs-only]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from readme_numbers import write_block
from spikex import _core
from spikex.results.machine import describe_machine, load_average_now
from spikex.scaling.gups import DEFAULT_LANES
from spikex.scaling.routing_model import BUDGET, balanced_dims, grid_cost
from spikex.scaling.time_model import load_profile

REPOSITORY = Path(__file__).resolve().parents[1]
SPIKEX = REPOSITORY / ".venv/bin/spikex"
OUTPUT = REPOSITORY / "bench" / "results" / "routing_measured.json"
DOCS = REPOSITORY / "docs" / "user" / "gups.md"
BLOCK = "routing-measured"
CLUSTER_SCRIPT = REPOSITORY / "scripts" / "mini_cluster.sh"
CLUSTER_ENV = {"MINI_CLUSTER_PREFIX": "rm", "MINI_CLUSTER_NET": "10.233.0"}  # its own, beside the tests'
CLUSTER_STATE = Path("/run/spikex-mini-cluster-rm")
CLUSTER_HOSTS = 4
LOG2_TABLE = 22


def settings(cluster_rate: str) -> dict[str, dict]:
    """The settings by key; every one runs the same grids and P."""
    return {
        "node-mpi": {"name": "one node, MPI messages", "args": ["--no-shared-memory"], "profile": "local",
                     "cluster": None},
        "node-mailboxes": {"name": "one node, mailboxes", "args": ["--shared-memory"], "profile": None,
                           "cluster": None},
        # MPI messages within a host too: the setting measures the transports that the
        # profile netns-<rate> models (OpenMPI's, over TCP between the hosts).
        "cluster-mpi": {"name": f"{CLUSTER_HOSTS} emulated hosts, {cluster_rate}/s links, MPI messages",
                        "args": ["--no-shared-memory"], "profile": f"netns-{cluster_rate}", "cluster": cluster_rate},
    }  # fmt: skip


def grids(ranks: int) -> dict[str, list[int]]:
    return {"direct": [ranks], "routed": list(balanced_dims(ranks, 2))}


# ---- the emulated cluster -------------------------------------------------------------------


def cluster(*words: str) -> None:
    done = subprocess.run([str(CLUSTER_SCRIPT), *words], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          env={**os.environ, **CLUSTER_ENV}, check=False)  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"mini_cluster.sh {' '.join(words)} failed ({done.returncode}): {done.stderr.strip()}")


def cluster_launch_args(ranks: int) -> list[str]:
    """spikex gups options that put P / 4 ranks on each emulated host."""
    words = (CLUSTER_STATE / "mpiexec_args").read_text().split()
    hosts = [line.split()[0] for line in (CLUSTER_STATE / "hostfile").read_text().splitlines() if line.strip()]
    per_host = ranks // len(hosts)
    placement = ["--host", ",".join(f"{h}:{per_host}" for h in hosts)]
    return [f"--launcher-args={' '.join([*words, *placement])}"]


# ---- one run --------------------------------------------------------------------------------


def run_gups(ranks: int, dims: list[int], setting: dict, work: Path) -> dict:
    output = work / f"gups-{ranks}-{'x'.join(map(str, dims))}.json"
    command = [str(SPIKEX), "gups", "--np", str(ranks), "--dims", "x".join(map(str, dims)),
               "--log2-table", str(LOG2_TABLE), *setting["args"], "-o", str(output)]  # fmt: skip
    if setting["cluster"]:
        command += cluster_launch_args(ranks)
    load_before = load_average_now()
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    result = json.loads(output.read_text())
    if not result["passed"] or result["errors"] != 0:
        raise RuntimeError(f"{' '.join(command)}: {result['errors']} verification errors")
    keep = ("gups", "time_s", "bucket_capacity", "lanes", "messages_sent", "mean_updates_per_message",
            "mean_hops", "shared_memory_messages", "errors")  # fmt: skip
    return {**{k: result[k] for k in keep}, "dims": result["dims"], "wall_s": round(time.monotonic() - started, 1),
            "load_before": load_before, "load_after": load_average_now()}  # fmt: skip


def model_ratio(profile: str | None, ranks: int) -> float | None:
    """The time model's direct / routed cost per update (> 1: routing wins)."""
    if profile is None:
        return None
    machine = load_profile(REPOSITORY / "profiles" / f"{profile}.toml")
    cost = {name: grid_cost(tuple(dims), machine)["seconds"] for name, dims in grids(ranks).items()}
    return None if cost["direct"] is None else cost["direct"] / cost["routed"]


def summarise(data: dict) -> None:
    """The per-P rows of every setting from its runs so far (best GUPS of each grid)."""
    data["settings"] = []
    for key, setting in data["runs"].items():
        rows = []
        for ranks in data["ranks"]:
            by_grid = setting["by_ranks"].get(str(ranks), {})
            if set(by_grid) != {"direct", "routed"}:
                continue
            best = {name: max(r["gups"] for r in runs) for name, runs in by_grid.items()}
            rows.append({
                "ranks": ranks,
                "grids": grids(ranks),
                "best_gups": best,
                "runs_per_grid": min(len(runs) for runs in by_grid.values()),
                "routed_over_direct": best["routed"] / best["direct"],
                "model_routed_over_direct": model_ratio(setting["profile"], ranks),
                "auto_dims": _core.route_plan(ranks, "auto", BUDGET, DEFAULT_LANES)["dims"],
            })  # fmt: skip
        data["settings"].append({"key": key, "name": setting["name"], "args": setting["args"],
                                 "profile": setting["profile"], "rows": rows})  # fmt: skip


def save(data: dict) -> None:
    summarise(data)
    data["load_average_end"] = load_average_now()
    temporary = OUTPUT.with_suffix(".json.tmp")
    temporary.write_text(json.dumps(data, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    temporary.replace(OUTPUT)


def measure(ranks_list: list[int], repeats: int, keys: list[str], cluster_rate: str, resume: bool) -> dict:
    """Runs every (setting, repeat, P, grid) not yet in the results file (with ``resume``),
    saving after each run, so that an interrupted measurement goes on where it stopped."""
    machine = describe_machine(REPOSITORY)
    started = time.monotonic()
    data = json.loads(OUTPUT.read_text(encoding="utf-8")) if resume and OUTPUT.exists() else {}
    data.update({
        "question": "from which P does routed GUPS beat the direct grid, measured on this machine",
        "machine": f"{machine.cpu}, {machine.cores} cores, {machine.mpi}",
        "cores": machine.cores,
        "log2_table": LOG2_TABLE,
        "budget": BUDGET,
        "lanes": DEFAULT_LANES,
        "repeats": repeats,
        "ranks": ranks_list,
    })  # fmt: skip
    data.setdefault("date", machine.date)
    data.setdefault("load_average_start", machine.load_average)
    data.setdefault("duration_s", 0)
    data.setdefault("runs", {})
    known = settings(cluster_rate)
    with tempfile.TemporaryDirectory(prefix="spikex-routing-") as work:
        for key in keys:
            setting = known[key]
            entry = data["runs"].setdefault(key, {"by_ranks": {}})
            entry.update({k: setting[k] for k in ("name", "args", "profile")})
            if setting["cluster"]:
                cluster("up", str(CLUSTER_HOSTS), "--rate", setting["cluster"], "--slots", str(max(ranks_list)))
            try:
                for repeat in range(repeats):
                    for ranks in ranks_list:
                        for name, dims in grids(ranks).items():
                            done = entry["by_ranks"].setdefault(str(ranks), {}).setdefault(name, [])
                            if len(done) > repeat:
                                continue
                            run_started = time.monotonic()
                            row = run_gups(ranks, dims, setting, Path(work))
                            done.append(row)
                            data["duration_s"] += round(time.monotonic() - run_started)
                            save(data)
                            print(f"routing_measured: {setting['name']} P={ranks} {name} {dims} #{repeat}: "
                                  f"{row['gups']:.5f} GUPS, load {row['load_before']}", file=sys.stderr, flush=True)  # fmt: skip
            finally:
                if setting["cluster"]:
                    cluster("down")
    save(data)
    print(f"routing_measured: {round(time.monotonic() - started)} s", file=sys.stderr)
    return data


# ---- the docs -------------------------------------------------------------------------------


def _ratio(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def docs_block(data: dict) -> str:
    ranks = data["ranks"]
    lines = [
        f"Measured by `bench/routing_measured.py` ({data['date']}, {data['duration_s']} s) on {data['machine']}; "
        f"load average (1, 5, 15 min) {data['load_average_start']} at the start and {data['load_average_end']} at "
        f"the end. `spikex gups`, 2^{data['log2_table']} words, budget {data['budget']:,}, {data['lanes']} lanes, "
        f"every run verified with 0 errors; best GUPS of {data['repeats']} runs of each, run in turn. All ranks "
        f"share the {data['cores']} cores. Per P: GUPS on the direct grid / on the balanced 2-D grid (its shape), "
        "and in brackets routed ÷ direct measured, then as the time model predicts it with the setting's profile; "
        "**bold** where routing wins.",
        "",
        "| setting (profile) | " + " | ".join(f"P = {p}" for p in ranks) + " |",
        "|---|" + "---|" * len(ranks),
    ]
    for setting in data["settings"]:
        cells = []
        for row in setting["rows"]:
            best, shape = row["best_gups"], "×".join(map(str, row["grids"]["routed"]))
            text = (f"{best['direct']:.4f} / {best['routed']:.4f} {shape} "
                    f"[{row['routed_over_direct']:.2f}; {_ratio(row['model_routed_over_direct'])}]")  # fmt: skip
            cells.append(f"**{text}**" if row["routed_over_direct"] > 1 else text)
        profile = f"`{setting['profile']}`" if setting["profile"] else "no profile"
        lines.append(f"| {setting['name']} ({profile}) | " + " | ".join(cells) + " |")
    auto = {row["ranks"]: row["auto_dims"] for row in data["settings"][0]["rows"]}
    lines += ["", "`--dims auto` picks: " + ", ".join(
        f"P = {p}: {'×'.join(map(str, d)) if len(d) > 1 else 'direct'}" for p, d in auto.items()) + "."]  # fmt: skip
    return "\n".join(lines)


def write_docs(data: dict) -> None:
    write_block(docs_block(data), BLOCK, DOCS)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ranks", default="16,32,64,128", help="comma-separated P (multiples of 4 for the cluster)")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--settings", default="node-mpi,node-mailboxes,cluster-mpi",
                        help="comma-separated: node-mpi, node-mailboxes, cluster-mpi (needs root)")
    parser.add_argument("--cluster-rate", default="1gbit", help="tc rate of the emulated hosts' links")
    parser.add_argument("--resume", action="store_true", help="keep the runs in the results file, add the missing")
    parser.add_argument("--docs-only", action="store_true", help="regenerate the docs block from the JSON")
    args = parser.parse_args()
    if args.docs_only:
        write_docs(json.loads(OUTPUT.read_text(encoding="utf-8")))
        return 0
    keys = args.settings.split(",")
    unknown = set(keys) - set(settings(args.cluster_rate))
    if unknown:
        parser.error(f"--settings: unknown {sorted(unknown)}")
    data = measure([int(p) for p in args.ranks.split(",")], args.repeats, keys, args.cluster_rate, args.resume)
    write_docs(data)
    print(docs_block(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
