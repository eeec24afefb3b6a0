"""Each model's reference tables from the model registry: its parameters (name, unit,
default, allowed values, meaning) and its recordable state (synapse types alike); and
the connection rules' table from the connection-rule registry (docs/user/connection_rules.md). The model pages under
docs/models/ hold them between markers, and a test keeps them current::

    <!-- parameters: iaf_cond_exp -->
    ... (generated) ...
    <!-- end parameters -->

``python -m spikex.models.reference`` rewrites every page's tables from the registry.
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

from . import CONNECTION_RULE_TYPES, MODELS, SYNAPSE_TYPES

BLOCK = re.compile(r"(<!-- parameters: (\w+) -->\n)(.*?)(<!-- end parameters -->)", re.S)
RULES_BLOCK = re.compile(r"(<!-- connection rules -->\n)(.*?)(<!-- end connection rules -->)", re.S)
RULES_PAGE = "docs/user/connection_rules.md"


def _number(x: float) -> str:
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if abs(x) > 1e300:
        return "lowest double" if x < 0 else "largest double"
    text = repr(float(x))
    text = text[:-2] if text.endswith(".0") else text
    return text.replace("-", "−")


def _default(spec: dict) -> str:
    if spec["shape"] == "per_cell_list":
        return spec["default_rule"] or "none"
    if spec["default_rule"]:
        return spec["default_rule"]
    return _number(spec["default"])


def _allowed(spec: dict) -> str:
    text = spec["allowed"].removeprefix("must be ")
    return text or "any"


def _kind(spec: dict) -> str:
    return "a list per cell" if spec["shape"] == "per_cell_list" else "per cell"


def synapse_pages() -> set[str]:
    """The docs pages of the synapse types that have one."""
    return {f"docs/models/{e['docs_page']}" for e in SYNAPSE_TYPES.values() if e["docs_page"]}


def parameter_table(model: str) -> str:
    """The Markdown tables of `model` (a model or a synapse type): parameters, then
    recordable state (if any)."""
    entry = MODELS.get(model) or SYNAPSE_TYPES[model]
    varies = _kind if model in MODELS else (lambda spec: "per connect call")
    unit = lambda u: "" if u == "1" else u  # noqa: E731
    lines = [
        "| parameter | unit | default | allowed | varies | meaning |",
        "|---|---|---|---|---|---|",
    ]
    for spec in entry["parameter_specs"]:
        lines.append(
            f"| `{spec['name']}` | {unit(spec['unit'])} | {_default(spec)} | {_allowed(spec)} | "
            f"{varies(spec)} | {spec['meaning']} |"
        )
    if entry.get("state_specs"):
        lines += ["", "| recordable | unit | settable between runs | meaning |", "|---|---|---|---|"]
        for v in entry["state_specs"]:
            settable = "yes" if v.get("settable", True) else "no (as NEST)"
            name = f"{v['name']}_<port>" if v.get("per_port") else v["name"]  # one per receptor port
            lines.append(f"| `{name}` | {unit(v['unit'])} | {settable} | {v['meaning']} |")
    return "\n".join(lines) + "\n"


def connection_rule_table() -> str:
    """The Markdown table of the connection rules of the registry."""
    lines = [
        "| rule | parameter | allowed | allow_autapses | allow_multapses | what it draws | from |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, entry in CONNECTION_RULE_TYPES.items():
        specs = entry["parameter_specs"]
        parameter = ", ".join(f"`{p['name']}`" for p in specs) or "—"
        allowed = ", ".join(_allowed(p) for p in specs) or "—"
        if entry["takes_indegree_spread"]:
            parameter += ", `indegree_spread`"
        flags = [
            str(entry[f]).lower() if entry["self_connection_flags"] else f"{str(entry[f]).lower()} (fixed)"
            for f in ("allow_autapses", "allow_multapses")
        ]
        lines.append(
            f"| `{name}` | {parameter} | {allowed} | {flags[0]} | {flags[1]} | {entry['description']} | "
            f"{entry['origin']} |"
        )
    return "\n".join(lines) + "\n"


def refreshed(text: str) -> str:
    """`text` with every marked table regenerated."""
    text = BLOCK.sub(lambda m: m.group(1) + parameter_table(m.group(2)) + m.group(4), text)
    return RULES_BLOCK.sub(lambda m: m.group(1) + connection_rule_table() + m.group(3), text)


def marked_models(text: str) -> list[str]:
    return [m.group(2) for m in BLOCK.finditer(text)]


def main(root: Path) -> int:
    changed = []
    for page in sorted({entry["docs_page"] for entry in MODELS.values()} | {RULES_PAGE} | synapse_pages()):
        path = root / page
        text = path.read_text()
        new = refreshed(text)
        if new != text:
            path.write_text(new)
            changed.append(page)
    print("rewrote " + (", ".join(changed) if changed else "nothing"))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()))
