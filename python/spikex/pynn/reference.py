"""The table of what spikex.pynn runs (docs/user/pynn.md), from its standard types and
the model registry: each PyNN cell type, current source and synapse type with the spikex
model (and NEST model) behind it, what it records and how it differs from pyNN.nest; then
every other standard type PyNN defines, which spikex.pynn refuses by name. A test keeps
the page current; ``python -m spikex.pynn.reference`` rewrites it::

    <!-- pynn types -->
    ... (generated) ...
    <!-- end pynn types -->
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

PAGE = "docs/user/pynn.md"
BLOCK = re.compile(r"(<!-- pynn types -->\n)(.*?)(<!-- end pynn types -->)", re.S)


def _model_link(model: str) -> str:
    from ..models import MODELS

    entry = MODELS[model]
    page = entry["docs_page"].removeprefix("docs/")
    nest = entry["nest_model"]
    text = f"[`{model}`](../{page})"
    return text + (f" (NEST `{nest}`)" if nest and nest != model else "")


def table() -> str:
    from . import standardmodels as sm

    lines = ["| PyNN | spikex | records | differences from pyNN.nest |", "|---|---|---|---|"]
    for cls in sm.STANDARD_CELL_TYPES:
        records = ", ".join(f"`{v}`" for v in ["spikes", *cls.variable_map])
        differences = getattr(cls, "differences", "")
        lines.append(f"| `{cls.__name__}` | {_model_link(cls.spikex_model)} | {records} | {differences} |")
    from . import point_neuron as pn

    lines.append(f"| `PointNeuron` | one of the models below, by its parts | `spikes`, the neuron's, `<receptor>.isyn` / `<receptor>.gsyn` | {pn.PointNeuron.differences} |")
    for cls in pn.POINT_NEURON_PARTS:
        models = ", ".join(_model_link(m) for m in cls.possible_models)
        records = ", ".join(f"`{v}`" for v in cls.variable_map)
        differences = getattr(cls, "differences", "")
        lines.append(f"| `{cls.__name__}` | {models} | {records} | {differences} |")
    for cls in sm.CURRENT_SOURCES:
        differences = getattr(cls, "differences", "")
        lines.append(f"| `{cls.__name__}` | {_model_link(cls.spikex_model)} | | {differences} |")
    for cls, model, differences in sm.SYNAPSE_TYPES:
        lines.append(f"| `{cls.__name__}` | {model} | | {differences} |")
    names = ", ".join(f"`{n}`" for n in refused())
    lines += ["", f"Refused with `NotImplementedError` naming the type: {names}."]
    return "\n".join(lines) + "\n"


def refused() -> list[str]:
    import spikex.pynn as sim

    return sorted(
        name
        for name, obj in vars(sim).items()
        if isinstance(obj, type) and getattr(obj, "_spikex_refused", False)
    )


def main(root: Path) -> int:
    path = root / PAGE
    text = path.read_text()
    new, count = BLOCK.subn(lambda m: m.group(1) + table() + m.group(3), text)
    if count != 1:
        print(f"{PAGE}: no <!-- pynn types --> block", file=sys.stderr)
        return 1
    if new != text:
        path.write_text(new)
        print(f"rewrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else ".")))
