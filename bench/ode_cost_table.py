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
    seconds = result["steps"] * result["dt_ms"] / 1000.0
    lines = ["| model | integration | ns per cell and step | × iaf_psc_exp | rate (Hz) |", "|---|---|---|---|---|"]
    for name, m in result["models"].items():
        kind = m.get("integration") or ("exact propagators" if name == "iaf_psc_exp" else "ODE layer")
        rate = m["spikes"] / (result["cells"] * seconds)
        lines.append(
            f"| `{name}` | {kind} | {m['ns_per_cell_step']:.1f} | {m['ns_per_cell_step'] / exact:.0f} | {rate:.0f} |"
        )
    lines.append("")
    load = result["load_average_1min"]
    busy = " (other engineers' compiles: the times are inflated by contention)" if load > 2 else ""
    lines.append(
        f"{result['cells']:,} cells, {result['steps']:,} steps, one thread, the fastest of 3 runs; "
        f"the machine's 1-minute load average was {load:.2f} on 2 cores{busy}. *rate*: spikes per "
        "cell and second under the benchmark's drive."
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
