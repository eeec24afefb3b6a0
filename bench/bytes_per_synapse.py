"""Bytes per synapse of spikex's connection store for every benchmark network.

Runs each example network briefly (the store is built in full; 10 ms are simulated) on one
rank and reads ``synapses`` and ``bytes_per_synapse`` from its summary.json: spikex's own
accounting of the connection and source tables (``docs/user/cli.md``); also the bytes per
neuron of the cells' state (``memory_bytes.cells`` / ``cells``) and the process's peak RSS
per synapse (``peak_rss_mb``: the interpreter and libraries included, and the build's
peak, which is where a network's memory tops out). Writes
``bench/results/bytes_per_synapse.json`` and the "bytes-per-synapse" section of
``docs/user/memory.md``::

    python bench/bytes_per_synapse.py [--full]   # --full: the full-size networks (minutes, GBs)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "nest"))
from report import machine, run_stamp, update_section, write_json
from spikex_runs import spikex_run

REPO = HERE.parent
RESULT = REPO / "bench" / "results" / "bytes_per_synapse.json"
DOC = REPO / "docs" / "user" / "memory.md"

# (name, example config, overrides at the small size, overrides added at full size)
NETWORKS = [
    ("hines2011_demo", "hines2011_demo.toml", [], []),
    ("hpc_benchmark static (K = 3,750)", "hpc_benchmark_laptop.toml", [], []),
    ("hpc_benchmark STDP (K = 3,750)", "hpc_benchmark_laptop.toml", ["network.plastic=true"], []),
    (
        "microcircuit",
        "microcircuit.toml",
        ["network.n_scaling=0.1", "network.k_scaling=0.1"],
        ["network.n_scaling=1.0", "network.k_scaling=1.0"],
    ),
]


def measure(full: bool) -> dict:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, config, small, large in NETWORKS:
            overrides = [*small, *(large if full else []), "simulation.tstop_ms=10", "simulation.presim_ms=0"]
            summary = spikex_run(REPO / "examples" / config, 1, Path(tmp) / "out", overrides)
            rows.append(
                {
                    "network": name,
                    "config": f"examples/{config}",
                    "overrides": overrides,
                    "synapses": int(summary["synapses"]),
                    "bytes_per_synapse": float(summary["bytes_per_synapse"]),
                    "cells": int(summary["cells"]),
                    "cell_bytes_per_neuron": summary["memory_bytes"]["cells"]["max"] / summary["cells"],
                    "peak_rss_mb": float(summary["peak_rss_mb"]["max"]),
                    "measured": run_stamp(),
                }
            )
    return {"machine": machine(), "rows": rows}


def markdown(result: dict) -> str:
    lines = [
        f"Measured {result['machine']['date_utc']} UTC by `bench/bytes_per_synapse.py` "
        "(one rank; connection + source tables per synapse, spikex's own accounting).",
        "",
        "| network | overrides | synapses | bytes per synapse | cell state: bytes per neuron | peak RSS (MB) | peak RSS per synapse (bytes) |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in result["rows"]:
        shown = [o for o in row["overrides"] if not o.startswith("simulation.")]
        per_neuron = f"{row['cell_bytes_per_neuron']:.0f}" if "cells" in row else "–"
        peak = f"{row['peak_rss_mb']:,.0f}" if "peak_rss_mb" in row else "–"
        peak_per = (
            f"{row['peak_rss_mb'] * 2**20 / row['synapses']:.1f}" if "peak_rss_mb" in row else "–"
        )
        lines.append(
            f"| {row['network']} | {', '.join(shown) or '–'} | {row['synapses']:,} "
            f"| {row['bytes_per_synapse']:.2f} | {per_neuron} | {peak} | {peak_per} |"
        )
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true", help="the full-size networks")
    parser.add_argument("--report-only", action="store_true", help="rewrite the doc from the JSON")
    args = parser.parse_args(argv)
    if args.report_only:
        import json

        result = json.loads(RESULT.read_text())
    else:
        result = measure(args.full)
        write_json(RESULT, result)
    text = markdown(result)
    update_section("bytes-per-synapse", text, doc=DOC)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
