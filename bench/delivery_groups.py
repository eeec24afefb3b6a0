#!/usr/bin/env python3
"""The time model on a network with many delay groups a spike (issue 21, part 3).

Runs the microcircuit at 10 % (delays drawn from normal distributions: about 28 delay
groups a spike on a rank) on 1 and 2 ranks with Allgather without the codec, the dry run
of the same spike train, and the ``local`` profile's prediction of the exchange time, with
and without the further delivery groups (``delivery_group_s``). Writes
``bench/results/delivery_groups.json`` and its table in docs/user/model.md::

    .venv/bin/python bench/delivery_groups.py [--profile profiles/local.toml] [--docs | --check-docs]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from readme_numbers import add_docs_options, docs_only, write_block
from spikex.scaling.time_model import load_profile, predict
from spikex_runs import machine, result_header, spikex_command, spikex_run

REPOSITORY = Path(__file__).resolve().parents[1]
OUTPUT = REPOSITORY / "bench" / "results" / "delivery_groups.json"
DOC = REPOSITORY / "docs" / "user" / "model.md"
BLOCK = "delivery-groups"
CONFIG = REPOSITORY / "examples" / "microcircuit.toml"
OVERRIDES = [
    "network.n_scaling=0.1",
    "network.k_scaling=0.1",
    "simulation.presim_ms=0.0",
    "simulation.tstop_ms=700.0",
    "exchange.method=allgather",
    "exchange.compress=false",
]


def dry_run(ranks: int, spikes: Path, output: Path) -> dict:
    command = [*spikex_command(), "model", "dryrun", str(CONFIG), "--np", str(ranks),
               "--spikes", str(spikes), "-o", str(output)]  # fmt: skip
    for override in OVERRIDES:
        command += ["--set", override]
    done = subprocess.run(command, check=False, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"bench: {' '.join(command)} failed:\n{done.stderr}")
    return json.loads(output.read_text(encoding="utf-8"))


def docs_block(result: dict) -> str:
    """The table of docs/user/model.md, from the result file."""
    start, end = result["machine"]["load_average_start"][0], result["machine"]["load_average"][0]
    lines = [
        (
            f"Generated from `bench/results/delivery_groups.json` (`bench/delivery_groups.py`, "
            f"{result['date_utc']} UTC, {result['machine']['cpus']} cores, load average {start} "
            f"at the start and {end} at the end): the microcircuit at 10 % from t = 0 for 700 ms, "
            f"Allgather with 8-byte entries, `{result['profile']}` (spike_handling_s "
            f"{result['spike_handling_s'] * 1e9:.1f} ns, delivery_group_s "
            f"{result['delivery_group_s'] * 1e9:.1f} ns)."
        ),
        "",
        (
            "| P | spikes delivered (summed over ranks) | delivery groups (run = dry run) "
            "| groups a spike | exchange measured | predicted "
            "| predicted without delivery_group_s |"
        ),
        "|---|---|---|---|---|---|---|",
    ]
    for case in result["cases"]:
        same = "=" if case["delivery_groups"] == case["dry_run_delivery_groups"] else "≠"
        measured = case["measured_exchange_s"]
        lines.append(
            f"| {case['ranks']} | {case['spikes_matched']:,} | {case['delivery_groups']:,} {same} "
            f"{case['dry_run_delivery_groups']:,.0f} | {case['delivery_groups'] / case['spikes_matched']:.1f} | "
            f"{measured * 1e3:.2f} ms | {case['predicted_s'] * 1e3:.2f} ms ({case['predicted_s'] / measured:.2f} ×) | "
            f"{case['predicted_without_groups_s'] * 1e3:.2f} ms "
            f"({case['predicted_without_groups_s'] / measured:.2f} ×) |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", type=Path, default=REPOSITORY / "profiles" / "local.toml")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    add_docs_options(parser)
    args = parser.parse_args()
    status = docs_only(args, OUTPUT, docs_block, BLOCK, DOC, "delivery_groups.py")
    if status is not None:
        return status
    profile = load_profile(args.profile)
    without = dataclasses.replace(profile, values={**profile.values, "delivery_group_s": 0.0})
    load_start, started = machine()["load_average"], time.perf_counter()
    cases = []
    with tempfile.TemporaryDirectory(prefix="spikex-groups-") as work:
        for ranks in (1, 2):
            run = spikex_run(CONFIG, ranks, Path(work) / f"run{ranks}", OVERRIDES)
            dry = dry_run(
                ranks, Path(work) / f"run{ranks}" / "spikes.h5", Path(work) / f"dry{ranks}.json"
            )
            exchange = run["exchange"]
            cases.append({
                "ranks": ranks,
                "spikes_matched": exchange["spikes_matched"],
                "delivery_groups": exchange["delivery_groups"],
                "dry_run_delivery_groups": dry["methods"]["allgather"]["sums"]["delivery_groups"],
                "measured_exchange_s": run["time_s"]["exchange"],
                "predicted_s": predict(dry, profile)["methods"]["allgather"]["run_s"],
                "predicted_without_groups_s": predict(dry, without)["methods"]["allgather"]["run_s"],
            })  # fmt: skip
            print(json.dumps(cases[-1]), file=sys.stderr)
    result = result_header(
        "Exchange time of the microcircuit (10 %, Allgather, 8-byte entries) measured and "
        "predicted by the local profile, with and without delivery_group_s",
        load_start,
        started,
    )
    result |= {"profile": str(args.profile.relative_to(REPOSITORY)), "delivery_group_s": profile.delivery_group_s,
               "spike_handling_s": profile.spike_handling_s, "run": OVERRIDES, "cases": cases}  # fmt: skip
    args.output.parent.mkdir(parents=True, exist_ok=True)
    temporary = args.output.with_suffix(f".tmp{os.getpid()}")
    temporary.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    temporary.replace(args.output)  # atomically
    changed = args.output == OUTPUT and write_block(docs_block(result), BLOCK, DOC)
    print(
        f"bench: wrote {args.output}; {DOC.name} {'updated' if changed else 'unchanged'}",
        file=sys.stderr,
    )
    return 0 if all(c["delivery_groups"] == c["dry_run_delivery_groups"] for c in cases) else 1


if __name__ == "__main__":
    sys.exit(main())
