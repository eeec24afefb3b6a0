"""The cost table of docs/dev/ode.md from bench/results/model_step_cost.json (written by
`make bench-cpp`): ``python bench/ode_cost_table.py`` rewrites the block between
``<!-- model step cost -->`` and ``<!-- end model step cost -->``; a test checks it is
current."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULT = ROOT / "bench" / "results" / "model_step_cost.json"
DOC = ROOT / "docs" / "dev" / "ode.md"
BLOCK = re.compile(r"(<!-- model step cost -->\n)(.*?)(<!-- end model step cost -->)", re.S)


def table(result: dict) -> str:
    exact = result["models"]["iaf_psc_exp"]["ns_per_cell_step"]
    lines = ["| model | integration | ns per cell and step | × iaf_psc_exp |", "|---|---|---|---|"]
    for name, m in result["models"].items():
        kind = m.get("integration") or ("exact propagators" if name == "iaf_psc_exp" else "ODE layer")
        lines.append(f"| `{name}` | {kind} | {m['ns_per_cell_step']:.1f} | {m['ns_per_cell_step'] / exact:.0f} |")
    lines.append("")
    lines.append(
        f"{result['cells']:,} cells, {result['steps']:,} steps, one thread, the fastest of 3 runs; "
        f"the machine's 1-minute load average was {result['load_average_1min']:.2f} on 2 cores."
    )
    return "\n".join(lines) + "\n"


def refreshed(text: str, result: dict) -> str:
    return BLOCK.sub(lambda m: m.group(1) + table(result) + m.group(3), text)


def main() -> int:
    result = json.loads(RESULT.read_text())
    DOC.write_text(refreshed(DOC.read_text(), result))
    print(f"rewrote {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
