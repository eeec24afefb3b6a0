#!/usr/bin/env python3
"""Bytes per spike on the wire, per exchange method, for three networks on 2 and 4 ranks.

Question answered (issue 21, part 4: "spikes in <= 3 bytes on the wire, for every method"):
how many bytes does each exchange method put on the wire per spike — per spike and target
rank for the methods that send one copy per target rank — for the demo network, the
hpc_benchmark and the microcircuit? Every registered method (spikex.methods, the C++
registry: nothing listed here by hand) runs with its defaults through ``spikex run`` on 2
and 4 ranks, plus the few declared variants that change what goes on the wire
(``WIRE_VARIANTS``). From each summary.json: ``exchange.wire_bytes`` (bytes of encoded
spikes: the codec's blocks, a one-spike message, a window entry or a routed bucket),
``wire_spikes`` (the spikes, or target entries, in them), ``wire_bytes_per_spike``, and
``bytes_sent`` (everything handed to MPI: block headers, fixed slots and section padding
too). NEST sends 8 bytes per spike and target rank, Arbor 16 per spike (issue 21).

Every run of a network must give the same ``spikes_sha256`` (all methods, both rank
counts); if not, the script says which, writes the JSON with ``"sha256_agree": false``
and exits 1: that is a bug of the method, not a benchmark result.

Networks: ``spikex demo``'s configuration (examples/hines2011_demo.toml, as it is);
examples/hpc_benchmark_laptop.toml as it is (11,250 neurons, K = 3,750, 1.1 s); the
microcircuit (examples/microcircuit.toml) with all its 77,169 neurons but k_scaling = 0.1
(30 M synapses, so a run takes about 15 s here instead of minutes; NEST's DC
compensation keeps the rates). Writes ``bench/results/wire_bytes.json`` and the table
between ``<!-- wire-bytes:begin -->`` and ``<!-- wire-bytes:end -->`` of
docs/methods/wire_format.md::

    .venv/bin/python bench/wire_bytes.py                 # about 9 minutes on 2 cores
    .venv/bin/python bench/wire_bytes.py --quick         # tiny networks, printed only
    .venv/bin/python bench/wire_bytes.py --docs          # only rewrite the docs block
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from readme_numbers import docs_from_results, write_block
from spikex.compare.method_variants import parse_method_variant
from spikex.cli.demo import DEMO_CONFIG
from spikex.methods import EXCHANGE_METHODS, all_variant_labels
from spikex_runs import machine, result_header, spikex_run

REPOSITORY = Path(__file__).resolve().parents[1]
OUTPUT = REPOSITORY / "bench" / "results" / "wire_bytes.json"
DOC = REPOSITORY / "docs" / "methods" / "wire_format.md"
BLOCK = "wire-bytes"
RANKS = (2, 4)
QUESTION = (
    "Bytes on the wire per spike (and target rank) of every exchange method for the demo "
    "network, the hpc_benchmark and the microcircuit on 2 and 4 ranks (issue 21: <= 3)"
)
# Declared variants (spikex.methods.all_variant_labels) that change what a spike looks like
# on the wire; the others (slots, lookups, sub-intervals, budgets) only change how the same
# bytes travel.
WIRE_VARIANTS = {
    "allgather:compress=false": "8-byte (gid, step) entries: the format the codec replaced",
    "alltoall:connections.sort_by_source=false": "one entry per connection; item space = the "
    "receiver's connections",
    "routed:compress=false": "items as they are, without the bucket codec",
    "routed:compress=true": "buckets coded as blocks also where the items take 3 bytes or fewer "
    "(the default codes only wider ones)",
}
# Not here: multisend:phases=2, whose relayed messages carry the gid (item space = all cells):
# with F <= 3 remote target ranks (P <= 4) every target rank is its own relay group
# (s = floor(sqrt(F)) = 1), nothing is relayed and the bytes are multisend's.
# Issue 21: what the other simulators send.
REFERENCES = {
    "NEST": {"bytes_per_spike": 8, "per": "spike and target rank"},
    "Arbor": {"bytes_per_spike": 16, "per": "spike"},
}
NETWORKS = (
    {
        "name": "demo",
        "config": str(DEMO_CONFIG),
        "overrides": [],
        "scale": "as `spikex demo` runs it: 8,192 interval_fire cells, 1,000 inputs, 200 ms",
    },
    {
        "name": "hpc_benchmark",
        "config": "examples/hpc_benchmark_laptop.toml",
        "overrides": [],
        "scale": "the laptop variant as it is: 11,250 neurons, K = 3,750, 1,100 ms",
    },
    {
        "name": "microcircuit",
        "config": "examples/microcircuit.toml",
        "overrides": ["network.k_scaling=0.1"],
        "scale": "all 77,169 neurons, k_scaling = 0.1 (30 M synapses), 500 + 1,000 ms",
    },
)
# --quick: the same three networks, tiny, to try the script.
QUICK_OVERRIDES = {
    "demo": ["network.cells=512", "network.indegree=100", "simulation.tstop_ms=40"],
    "hpc_benchmark": ["network.scale=0.1", "simulation.tstop_ms=100"],
    "microcircuit": ["network.n_scaling=0.05", "network.k_scaling=0.05",
                     "simulation.presim_ms=50", "simulation.tstop_ms=150"],
}  # fmt: skip


def labels() -> list[str]:
    declared = set(all_variant_labels())
    unknown = sorted(set(WIRE_VARIANTS) - declared)
    if unknown:
        sys.exit(f"wire_bytes: {unknown} are no longer declared variants (spikex.methods)")
    return [*EXCHANGE_METHODS, *WIRE_VARIANTS]


def one_run(network: dict, label: str, ranks: int, directory: Path, extra: list[str]) -> dict:
    overrides = [*network["overrides"], *extra, *parse_method_variant(label).run_overrides()]
    started = time.perf_counter()
    summary = spikex_run(REPOSITORY / network["config"], ranks, directory, overrides)
    exchange = summary["exchange"]
    wire_spikes = exchange.get("wire_spikes", 0)
    emitted = exchange.get("spikes_emitted", 0)  # every spike of the run (spikes_total: recorded)
    return {
        "network": {
            key: summary[key] for key in ("cells", "connections", "dt_ms", "steps_per_interval")
        },
        "label": label,
        "method": summary["method"],
        "ranks": ranks,
        "spikes_total": summary["spikes_total"],
        "spikes_sha256": summary["spikes_sha256"],
        "wire_bytes": exchange.get("wire_bytes"),
        "wire_spikes": wire_spikes,
        "wire_bytes_per_spike": exchange.get("wire_bytes_per_spike"),
        "encoder_sorts": exchange.get("encoder_sorts"),  # blocks the codec had to sort
        "bytes_sent": exchange.get("bytes_sent"),
        "bytes_sent_per_wire_spike": exchange["bytes_sent"] / wire_spikes if wire_spikes else None,
        "spikes_emitted": emitted,
        "wire_spikes_per_spike": wire_spikes / emitted if emitted else None,
        "seconds": round(time.perf_counter() - started, 1),
    }


def measure(quick: bool) -> dict:
    load_start = machine()["load_average"]
    started = time.perf_counter()
    networks, disagree = [], []
    with tempfile.TemporaryDirectory(prefix="spikex-wire-bytes-") as scratch:
        for network in NETWORKS:
            extra = QUICK_OVERRIDES[network["name"]] if quick else []
            runs = [
                one_run(network, label, ranks, Path(scratch) / "run", extra)
                for ranks in RANKS
                for label in labels()
            ]
            first = runs[0]
            hashes = {run["spikes_sha256"] for run in runs}
            if len(hashes) > 1:
                differ = [f"{r['label']} np={r['ranks']}" for r in runs
                          if r["spikes_sha256"] != first["spikes_sha256"]]  # fmt: skip
                disagree.append(f"{network['name']}: {', '.join(differ)} differ from "
                                f"{first['label']} np={first['ranks']}")  # fmt: skip
            networks.append({
                "name": network["name"],
                "config": network["config"],
                "overrides": [*network["overrides"], *extra],
                "scale": "quick: " + ", ".join(extra) if quick else network["scale"],
                **first["network"],
                "spikes_total": first["spikes_total"],
                "spikes_emitted": first["spikes_emitted"],
                "spikes_sha256": first["spikes_sha256"],
                "sha256_agree": len(hashes) == 1,
                "runs": [{k: v for k, v in run.items() if k != "network"} for run in runs],
            })  # fmt: skip
    return {
        **result_header(QUESTION, load_start, started),
        "ranks": list(RANKS),
        "wire_variants": WIRE_VARIANTS,
        "references": REFERENCES,
        "sha256_agree": not disagree,
        "sha256_disagreements": disagree,
        "networks": networks,
    }


# --- the docs block ------------------------------------------------------------------------


def _bytes(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def _load(values: list[float]) -> str:
    return ", ".join(f"{v:g}" for v in values)


def _over_three(networks: list[dict]) -> str:
    """One sentence: which variants put more than 3 bytes per spike on the wire, and how many."""
    values: dict[str, list[float]] = {}
    for network in networks:
        for run in network["runs"]:
            if run["wire_bytes_per_spike"] is not None:
                values.setdefault(run["label"], []).append(run["wire_bytes_per_spike"])
    over = {label: v for label, v in values.items() if max(v) > 3}
    within = [label for label in values if label not in over]
    if not over:
        return "Every variant measured stays at or below 3 bytes per spike."

    def span(v: list[float]) -> str:
        low, high = f"{min(v):.2f}", f"{max(v):.2f}"
        return low if low == high else f"{low}–{high}"

    return (
        "At or below 3 bytes per spike in every run: "
        + ", ".join(f"`{label}`" for label in within)
        + ". Above 3: "
        + ", ".join(f"`{label}` ({span(v)})" for label, v in over.items())
        + "."
    )


def _sorts(networks: list[dict]) -> str:
    """One sentence: how many blocks the encoder had to sort, per variant that reports it."""
    sorts: dict[str, int] = {}
    for network in networks:
        for run in network["runs"]:
            if run.get("encoder_sorts") is not None:
                sorts[run["label"]] = sorts.get(run["label"], 0) + int(run["encoder_sorts"])
    if not sorts:
        return ""
    return (
        "Blocks the encoder had to sort (`encoder_sorts`, all runs of a variant together; a block "
        "that arrives in key order is coded without a sort): "
        + ", ".join(f"`{label}` {count:,}" for label, count in sorts.items())
        + "."
    )


def docs_block(results: dict) -> str:
    m, networks = results["machine"], results["networks"]
    ranks = results["ranks"]
    start, end = m["load_average_start"], m["load_average"]
    columns = [f"{n['name']} P = {p}" for n in networks for p in ranks]
    header = "| method | " + " | ".join(columns) + " |"
    rule = "|---|" + "---|" * (len(networks) * len(ranks))

    def row(label: str, key: str, mark_over: bool) -> str:
        cells = []
        for network in networks:
            for p in ranks:
                run = next(r for r in network["runs"] if r["label"] == label and r["ranks"] == p)
                text = _bytes(run[key])
                over = mark_over and run[key] is not None and run[key] > 3
                cells.append(f"**{text}**" if over else text)
        return f"| `{label}` | " + " | ".join(cells) + " |"

    labels_run = list(dict.fromkeys(r["label"] for n in networks for r in n["runs"]))
    lines = [
        (
            f"Measured by `make bench-wire` (`bench/wire_bytes.py`, {results['date_utc']} UTC, "
            f"{results['seconds']:.0f} s) on {m['processor']}, {m['cpus']} cores, load average "
            f"(1, 5, 15 min) {_load(start)} at the start and {_load(end)} at the end (bytes do "
            "not depend on the load; they are counted, not timed). Networks:"
        ),
        "",
    ]
    for n in networks:
        lines.append(
            f"* **{n['name']}**: `{n['config']}`"
            + (f" with {', '.join(f'`{o}`' for o in n['overrides'])}" if n["overrides"] else "")
            + f" — {n['scale']}; {n['cells']:,} cells, {n['connections']:,} connections, "
            f"M = {n['steps_per_interval']} step{'s' if n['steps_per_interval'] != 1 else ''} "
            f"of {n['dt_ms']:g} ms per interval, "
            f"{n['spikes_emitted']:,} spikes ({n['spikes_total']:,} recorded), the same "
            "`spikes_sha256` in every run: "
            f"{'yes' if n['sha256_agree'] else '**NO**'}."
        )
    lines += [
        "",
        "`exchange.wire_bytes_per_spike` (bold: above 3 bytes):",
        "",
        header,
        rule,
        *(row(label, "wire_bytes_per_spike", True) for label in labels_run),
    ]
    for name, ref in results["references"].items():
        lines.append(
            f"| {name} ({ref['per']}; issue 21) | "
            + " | ".join(str(ref["bytes_per_spike"]) for _ in networks for _ in ranks)
            + " |"
        )
    lines += [
        "",
        _over_three(networks),
        *(["", _sorts(networks)] if _sorts(networks) else []),
        "",
        (
            "Everything handed to MPI per wire spike (`bytes_sent / wire_spikes`: with block "
            "lengths, Allgather's fixed slots, Alltoall's section headers and padding):"
        ),
        "",
        header,
        rule,
        *(row(label, "bytes_sent_per_wire_spike", False) for label in labels_run),
        "",
        (
            "Wire spikes per spike (`wire_spikes / spikes_emitted`): 1 for Allgather, remote target "
            "ranks per spike for the point-to-point methods, target ranks (the own included) for "
            "alltoall and alltoallv, item hops for routed (remote target ranks on a direct grid), "
            "target connections without `sort_by_source`:"
        ),
        "",
        header,
        rule,
        *(row(label, "wire_spikes_per_spike", False) for label in labels_run),
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny networks, printed only")
    parser.add_argument("--docs", action="store_true", help="only rewrite the docs block")
    parser.add_argument("--check-docs", action="store_true", help="exit 1 if the block is stale")
    args = parser.parse_args()
    if args.docs or args.check_docs:
        return docs_from_results(OUTPUT, docs_block, BLOCK, DOC, "wire_bytes.py", args.check_docs)
    results = measure(args.quick)
    if args.quick:
        print(docs_block(results))
    else:
        OUTPUT.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
        changed = write_block(docs_block(results), BLOCK, DOC)
        print(f"{OUTPUT.relative_to(REPOSITORY)} written ({results['seconds']} s); "
              f"{DOC.relative_to(REPOSITORY)} {'updated' if changed else 'unchanged'}")  # fmt: skip
    if not results["sha256_agree"]:
        print("wire_bytes: spikes_sha256 differ between runs of the same network (a bug):\n  "
              + "\n  ".join(results["sha256_disagreements"]), file=sys.stderr)  # fmt: skip
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
