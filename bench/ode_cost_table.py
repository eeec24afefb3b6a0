"""The cost table of docs/dev/ode.md from bench/results/model_step_cost.json and, for the
lanes kernels' baseline clone, model_step_cost_baseline.json (both written by
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
BASELINE = ROOT / "bench" / "results" / "model_step_cost_baseline.json"  # SPIKEX_VECTOR_ISA=baseline
DOC = ROOT / "docs" / "dev" / "ode.md"
BLOCK = re.compile(r"(<!-- model step cost -->\n)(.*?)(<!-- end model step cost -->)", re.S)


def load() -> tuple[dict, dict | None]:
    baseline = json.loads(BASELINE.read_text()) if BASELINE.exists() else None
    return json.loads(RESULT.read_text()), baseline


def same_spikes(result: dict, baseline: dict) -> bool:
    return all(baseline["models"][name]["spikes"] == m["spikes"] for name, m in result["models"].items())


def table(result: dict, baseline: dict | None = None) -> str:
    exact = result["models"]["iaf_psc_exp"]["ns_per_cell_step"]
    seconds = result["steps"] * result["dt_ms"] / 1000.0
    lines = ["| model | integration | ns per cell and step | × iaf_psc_exp | rate (Hz) |", "|---|---|---|---|---|"]
    if baseline is not None:
        lines = [lines[0] + " baseline clone (ns) |", lines[1] + "---|"]
    for name, m in result["models"].items():
        kind = m.get("integration") or ("exact propagators" if name == "iaf_psc_exp" else "ODE layer")
        rate = m["spikes"] / (result["cells"] * seconds)
        row = f"| `{name}` | {kind} | {m['ns_per_cell_step']:.1f} | {m['ns_per_cell_step'] / exact:.0f} | {rate:.0f} |"
        if baseline is not None:
            row += f" {baseline['models'][name]['ns_per_cell_step']:.1f} |"
        lines.append(row)
    lines.append("")
    load = result["load_average_1min"]
    busy = " (other engineers' compiles: the times are inflated by contention)" if load > 2 else ""
    lines.append(
        f"{result['cells']:,} cells, {result['steps']:,} steps, one thread, the fastest of 3 runs, "
        f"the lanes kernels' {result.get('vector_isa', 'baseline')} clone (docs/dev/ode.md); "
        f"the machine's 1-minute load average was {load:.2f} on 2 cores{busy}. *rate*: spikes per "
        "cell and second under the benchmark's drive."
        + (
            f" *baseline clone*: the same run with SPIKEX_VECTOR_ISA=baseline (SSE2, libm's exp and pow per lane; "
            f"load {baseline['load_average_1min']:.2f}): "
            + ("the same spike counts." if same_spikes(result, baseline) else "DIFFERENT spike counts (a bug).")
            if baseline is not None
            else ""
        )
    )
    return "\n".join(lines) + "\n"


def refreshed(text: str, result: dict, baseline: dict | None = None) -> str:
    return BLOCK.sub(lambda m: m.group(1) + table(result, baseline) + m.group(3), text)


def main() -> int:
    result, baseline = load()
    DOC.write_text(refreshed(DOC.read_text(), result, baseline))
    print(f"rewrote {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
