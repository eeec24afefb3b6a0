#!/usr/bin/env python3
"""Where software routing should start to win for GUPS, from the time model (issue 21, part 3).

For every time-model profile (``profiles/*.toml``: this machine, the emulated cluster's
1 Gbit/s and 100 Mbit/s links, Blue Gene/P) and P = 2 .. 65,536: the cost per update of
the direct grid and of the best balanced routed grid (``spikex.scaling.routing_model``),
whether routing wins, and the message cost above which it would. A model, no run: it
takes a second. Writes ``bench/results/routing_crossover.json`` and the table of
docs/user/gups.md::

    .venv/bin/python bench/routing_crossover.py [--docs-only]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from readme_numbers import write_block
from spikex.scaling.routing_model import BUDGET, crossover_table, first_winning_ranks
from spikex.scaling.time_model import load_profile

REPOSITORY = Path(__file__).resolve().parents[1]
OUTPUT = REPOSITORY / "bench" / "results" / "routing_crossover.json"
DOCS = REPOSITORY / "docs" / "user" / "gups.md"
BLOCK = "routing-crossover"
PROFILES = ("local", "netns-1gbit", "netns-100mbit", "bgp")
RANKS = [2**k for k in range(1, 17)]
SHOWN = (16, 64, 256, 1024, 4096, 65536)


def compute() -> dict:
    profiles = {}
    for name in PROFILES:
        machine = load_profile(REPOSITORY / "profiles" / f"{name}.toml")
        rows = crossover_table(machine, RANKS)
        profiles[name] = {
            "description": machine.description,
            "message_s": machine.send_overhead_s + machine.receive_overhead_s,
            "routing_wins_from": first_winning_ranks(rows),
            "rows": rows,
        }
    return {"question": "from which P and which message cost does routed GUPS beat the direct grid "
                        "(time model, uniform random owners)", "budget": BUDGET, "profiles": profiles}  # fmt: skip


def _ns(seconds: float | None) -> str:
    if seconds is None:
        return "never"
    return "any" if seconds == 0 else f"{seconds * 1e9:,.0f}"


def docs_block(result: dict) -> str:
    lines = [
        "Generated from `bench/results/routing_crossover.json` (`bench/routing_crossover.py`; a "
        "model, nothing timed). Per P: ns per update of the direct grid / of the best balanced "
        "routed grid (its shape), and in brackets the message cost (send + receive overhead, ns) "
        "above which routing wins; **bold** where it wins with the profile's own message cost.",
        "",
        "| profile (message cost) | wins from P | " + " | ".join(f"P = {p:,}" for p in SHOWN) + " |",
        "|---|---|" + "---|" * len(SHOWN),
    ]
    for name, profile in result["profiles"].items():
        cells = []
        for row in profile["rows"]:
            if row["ranks"] not in SHOWN:
                continue
            direct, grid = row["direct"]["seconds"], row["best_grid"]["seconds"]
            text = (f"{'–' if direct is None else f'{direct * 1e9:,.1f}'} / {grid * 1e9:,.1f} "
                    f"{'×'.join(map(str, row['best_grid']['dims']))} [{_ns(row['break_even_message_s'])}]")  # fmt: skip
            cells.append(f"**{text}**" if row["routing_wins"] else text)
        lines.append(f"| `{name}` ({profile['message_s'] * 1e9:,.0f} ns) | {profile['routing_wins_from'] or '–'} | "
                     + " | ".join(cells) + " |")  # fmt: skip
    return "\n".join(lines)


def write_docs(result: dict) -> None:
    write_block(docs_block(result), BLOCK, DOCS)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs-only", action="store_true", help="regenerate the docs table from the JSON")
    args = parser.parse_args()
    if args.docs_only:
        write_docs(json.loads(OUTPUT.read_text(encoding="utf-8")))
        return 0
    result = compute()
    OUTPUT.write_text(json.dumps(result, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    write_docs(result)
    for name, profile in result["profiles"].items():
        print(f"{name}: routing wins from P = {profile['routing_wins_from']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
