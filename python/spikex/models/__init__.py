"""The neuron models and devices (``MODELS``, from the C++ registry), and for the models a
configuration file can name (``network.model``) their parameters' configuration keys.

``MODEL_PARAMETERS`` maps each such model's parameter names (as given to
``Network.create`` and to the C++ engine) to the configuration key that documents and
validates the same quantity, so a parameter has one type, one range and one sentence
wherever it is set. Every other model's parameters are checked by the C++ core.
"""

from __future__ import annotations

from .. import _core

#: Every neuron model and device of the C++ registry (cpp/spikex/models/model_registry.cpp):
#: name -> {kind, output, description, parameters, parameter_specs, state_variables,
#: state_specs, accepts_current, has_receptor_ports, receptor_port_names, checkpoint_state,
#: receptors, integration, nest_model, pynn_types, docs_page}; each parameter spec: name, unit, default, default_rule, range,
#: allowed (the range in words), meaning, shape ("per_cell" or "per_cell_list").
MODELS: dict[str, dict] = {entry["name"]: entry for entry in _core.model_registry()}

#: Each model's list parameters, given as a list of numbers per cell (spike_times, amplitude_times).
LIST_PARAMETERS: dict[str, frozenset[str]] = {
    name: frozenset(p["name"] for p in entry["parameter_specs"] if p["shape"] == "per_cell_list")
    for name, entry in MODELS.items()
}


def refresh_models() -> None:
    """Adds the models registered at run time (model libraries: ``load_nestml``) to
    ``MODELS`` and ``LIST_PARAMETERS`` (the same dicts, updated in place)."""
    for entry in _core.model_registry():
        if entry["name"] not in MODELS:
            MODELS[entry["name"]] = entry
            LIST_PARAMETERS[entry["name"]] = frozenset(
                p["name"] for p in entry["parameter_specs"] if p["shape"] == "per_cell_list"
            )


def load_nestml(path, output_dir=None) -> str:
    """Builds (if needed) and registers the neuron model of a NESTML file on every rank;
    returns its name (the NESTML model's), which ``Network.create`` then takes.

    Parameters
    ----------
    path : path
        A ``.nestml`` file with one neuron model, or a library built by
        ``spikex model build``.
    output_dir : path, optional
        Where the built library goes (default: the cache, ``spikex.nestml.cache_dir()``);
        under MPI a directory every rank sees. docs/user/nestml.md.
    """
    from ..nestml import load

    name = load(path, output_dir)
    refresh_models()
    return name


def is_state_variable(model: str, name: str) -> bool:
    """Whether ``name`` is a recordable state variable of ``model``: one of its
    ``state_variables``, or a per-port one (``"g_<port>"``) with a port number (the core
    checks the port against the population's receptor ports)."""
    for spec in MODELS[model].get("state_specs", []):
        if not spec.get("per_port"):
            if spec["name"] == name:
                return True
            continue
        port = name[len(spec["name"]) + 1 :]
        if name.startswith(spec["name"] + "_") and port.isdigit() and not port.startswith("0"):
            return True
    return False


def state_unit(model: str, name: str) -> str:
    """The unit of recordable ``name`` of ``model`` ("" when it has none or is unknown)."""
    for spec in MODELS.get(model, {}).get("state_specs", []):
        if spec["name"] == name or (spec.get("per_port") and name.startswith(spec["name"] + "_")):
            return spec["unit"]
    return ""


#: For each model a configuration file can name, parameter name -> its configuration key.
MODEL_PARAMETERS: dict[str, dict[str, str]] = {
    "interval_fire": {
        "tau_ms": "network.interval_fire.tau_ms",
        "invl_low_ms": "network.interval_fire.invl_low_ms",
        "invl_high_ms": "network.interval_fire.invl_high_ms",
        "burst_groups": "network.burst.groups",
        "burst_factor": "network.burst.factor",
        "burst_period_ms": "network.burst.period_ms",
    },
    "iaf_psc_alpha": {
        name: f"network.iaf_psc_alpha.{name}"
        for name in (
            "E_L",
            "C_m",
            "tau_m",
            "t_ref",
            "V_th",
            "V_reset",
            "tau_syn_ex",
            "tau_syn_in",
            "I_e",
            "V_m",
            "V_m_sd",
            "tau_minus",
            "poisson_rate_hz",
            "poisson_weight",
        )
    },
}


#: Synapse types accepted by Network.connect / connect_rule, each with its parameters and
#: their defaults (NEST's), from the C++ registry (cpp/spikex/synapses/synapse_registry.cpp);
#: the core checks the values.
SYNAPSE_TYPES: dict[str, dict] = {entry["name"]: entry for entry in _core.synapse_registry()}
SYNAPSES: dict[str, dict[str, float]] = {name: dict(entry["defaults"]) for name, entry in SYNAPSE_TYPES.items()}

#: Connection rules accepted by Network.connect_rule (network.connectivity takes the first
#: three), from the C++ registry (cpp/spikex/network/connection_rule_registry.cpp): name ->
#: {description, parameter_specs (the rule's count or probability, required),
#: takes_indegree_spread, takes_weight_spread, self_connection_flags, allow_autapses,
#: allow_multapses, origin} (docs/user/connection_rules.md).
CONNECTION_RULE_TYPES: dict[str, dict] = {entry["name"]: entry for entry in _core.connection_rule_registry()}
CONNECTION_RULES: tuple[str, ...] = tuple(CONNECTION_RULE_TYPES)

#: Whole networks that network.model can name besides a neuron model.
NETWORK_MODELS: dict[str, str] = {
    "hpc_benchmark": "NEST's hpc_benchmark (Jordan et al. 2018): iaf_psc_alpha E/I network with Poisson drive",
    "microcircuit": (
        "the Potjans & Diesmann (2014) cortical microcircuit as NEST 3.10's example: 8 iaf_psc_exp "
        "populations, 77,169 neurons and 3e8 synapses at full scale"
    ),
}


def entry_problems(entry: dict, root=None) -> list[str]:
    """What a model registry entry lacks (the model conformance suite runs this over every
    entry; a model registered at run time must pass it too): a description, a docs page
    (existing under `root` when given), and for each parameter a unit, a finite default
    (or a default rule), a meaning and a range the default lies in; for each recordable
    variable a unit and a meaning; a neuron's receptors and integration scheme."""
    import math
    from pathlib import Path

    name = entry.get("name") or "(unnamed)"
    problems = []
    if not entry.get("description"):
        problems.append(f"{name}: no description")
    page = entry.get("docs_page") or ""
    if not page:
        problems.append(f"{name}: no docs page")
    elif root is not None and not (Path(root) / page).is_file():
        problems.append(f"{name}: docs page {page} does not exist")
    if entry.get("kind") == "neuron":
        for key in ("receptors", "integration"):
            if not entry.get(key):
                problems.append(f"{name}: no {key}")
    for spec in entry.get("parameter_specs", []):
        where = f"{name} parameter {spec.get('name') or '(unnamed)'}"
        if not spec.get("unit"):
            problems.append(f"{where}: no unit")
        if not spec.get("meaning"):
            problems.append(f"{where}: no meaning")
        default = spec.get("default")
        if spec.get("shape") == "per_cell" and not spec.get("default_rule"):
            if default is None or math.isnan(default):
                problems.append(f"{where}: no default")
            elif not _in_range(default, spec.get("range") or {}):
                problems.append(f"{where}: default {default} outside its range ({spec.get('allowed')})")
    for variable in entry.get("state_specs", []):
        where = f"{name} state {variable.get('name') or '(unnamed)'}"
        if not variable.get("unit"):
            problems.append(f"{where}: no unit")
        if not variable.get("meaning"):
            problems.append(f"{where}: no meaning")
    return problems


def _in_range(x: float, r: dict) -> bool:
    import math

    if r.get("choices"):
        return x in r["choices"]
    if r.get("finite_only", True) and not math.isfinite(x):
        return False
    low, high = r.get("low", -math.inf), r.get("high", math.inf)
    above = x > low if r.get("low_open") else x >= low
    below = x < high if r.get("high_open") else x <= high
    return above and below and (not r.get("integer") or x == int(x))
