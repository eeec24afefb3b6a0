"""Cell types from spikex's own models, in the models' own names and NEST's units:
``native_cell_type(model)`` (pyNN.nest's function of that name) and
``nestml_cell_type(name, nestml_description)`` (PyNN 0.13's ``pyNN.nest.nestml``), which
builds a NESTML model for spikex first (docs/user/nestml.md).

A native cell type's parameters are the model's registry entry (``spikex.models.MODELS``):
its parameters with their defaults, its state variables as initial values and
recordables. As in pyNN.nest, weights are given in nA (current inputs) or uS
(conductance inputs) and reach the model x 1000, and a model counts as conductance-based
when a state variable's name starts with "g" (inhibitory weights then positive in PyNN,
negated for the model, as pyNN.nest does). A model with named receptor ports (NESTML's
receptor types) takes PyNN's ``receptor_type`` as the port's name, each weight with its
sign.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from pyNN import errors
from pyNN.standardmodels import StandardCellType, build_translations

# spikex's own per-cell parameter that spikex.pynn sets from STDP projections.
_SET_BY_SPIKEX = frozenset({"tau_minus"})


def _default(specs: dict[str, dict], name: str, seen: frozenset[str] = frozenset()) -> float:
    """A parameter's default; one given as another parameter's value (NESTML's
    ``V_m mV = E_L``) takes that one's."""
    spec = specs[name]
    if spec.get("default") is not None:
        return float(spec["default"])
    rule = (spec.get("default_rule") or "").strip()
    if rule in specs and rule not in seen:
        return _default(specs, rule, seen | {name})
    return 0.0


def native_cell_type(model_name: str) -> type[StandardCellType]:
    """A PyNN cell type for spikex neuron model `model_name` (built in, or loaded from
    NESTML), with the model's parameter names and units."""
    from ..models import MODELS, refresh_models

    refresh_models()
    entry = MODELS.get(model_name)
    if entry is None or entry["kind"] != "neuron":
        neurons = sorted(name for name, e in MODELS.items() if e["kind"] == "neuron")
        raise errors.InvalidModelError(
            f"spikex.pynn: native_cell_type({model_name!r}): no spikex neuron model of that name "
            f"(models: {', '.join(neurons)}; a NESTML model: nestml_cell_type)"
        )
    ports = list(entry.get("receptor_port_names") or [])
    if entry.get("has_receptor_ports") and not ports:
        raise NotImplementedError(
            f"spikex.pynn: native_cell_type({model_name!r}): ports numbered by a parameter list "
            "(the multisynapse models) have no names for PyNN's receptor_type: use PointNeuron"
        )
    specs = {p["name"]: p for p in entry["parameter_specs"] if p["shape"] == "per_cell"}
    states = [s for s in entry["state_specs"] if not s.get("per_port")]
    initial = {s["name"]: _default(specs, s["name"]) for s in states if s["name"] in specs}
    parameters = {
        name: _default(specs, name) for name in specs if name not in initial and name not in _SET_BY_SPIKEX
    }
    recordable = ["spikes", *(s["name"] for s in states)]
    attributes = {
        "__doc__": f"spikex's {model_name}: {entry['description']}",
        "__module__": __name__,
        "default_parameters": parameters,
        "default_initial_values": initial,
        "translations": build_translations(*((name, name) for name in parameters)),
        "recordable": recordable,
        "units": {"spikes": "", **{s["name"]: s["unit"] for s in states}},
        "variable_map": {s["name"]: s["name"] for s in states},
        "scale_factors": {},
        # named ports (NESTML's receptor types): receptor_type "AMPA" is port 1, ... and each
        # weight keeps its sign; otherwise the weight's sign chooses, as for PyNN's types
        "receptor_types": tuple(ports) or ("excitatory", "inhibitory"),
        "has_receptor_ports": bool(ports),
        "get_receptor_type": lambda self, name: ports.index(name) + 1,
        "injectable": bool(entry["accepts_current"]),
        "conductance_based": any(s["name"].startswith("g") for s in states),
        "nest_model": model_name,
        "spikex_model": model_name,
        "weight_scale": 1.0,  # the synapse's x 1000 (nA -> pA, uS -> nS), as pyNN.nest
    }
    return type(model_name, (StandardCellType,), attributes)


def _nestml_file(description: str | os.PathLike) -> Path:
    """A path to a .nestml file, or NESTML source text written to a file named by its
    content in the model cache (the same text, the same file, on every rank)."""
    if isinstance(description, os.PathLike) or (
        "\n" not in str(description) and Path(str(description)).suffix == ".nestml"
    ):
        path = Path(description)
        if not path.is_file():
            raise errors.InvalidModelError(f"spikex.pynn: nestml_cell_type: {path} does not exist")
        return path
    from ..nestml import cache_dir

    text = str(description)
    found = re.search(r"^\s*model\s+([A-Za-z_][A-Za-z0-9_]*)\s*:", text, re.MULTILINE)
    if found is None:
        raise errors.InvalidModelError(
            "spikex.pynn: nestml_cell_type: the description is neither a .nestml file nor "
            "NESTML text with a 'model <name>:' line"
        )
    directory = cache_dir() / "sources" / hashlib.sha256(text.encode()).hexdigest()[:16]
    path = directory / f"{found.group(1)}.nestml"
    if not path.is_file():
        directory.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.{os.getpid()}")
        partial.write_text(text)
        partial.replace(path)  # atomic: ranks writing the same text never see half a file
    return path


def nestml_cell_type(name: str, nestml_description: str | os.PathLike) -> type[StandardCellType]:
    """PyNN 0.13's ``nestml_cell_type``: a cell type for the neuron model of a NESTML
    description (a path to a .nestml file, or the NESTML text itself). The model is built
    for spikex (cached by its content and spikex's version) and registered now, on every
    rank (collective under MPI: rank 0 builds); unlike pyNN.nest, before or after
    ``setup()``. The engine knows the model by its NESTML name (``model <name>:``); the
    class is called `name`."""
    from ..models import load_nestml

    model = load_nestml(_nestml_file(nestml_description))
    cell_type = native_cell_type(model)
    cell_type.__name__ = cell_type.__qualname__ = name
    return cell_type
