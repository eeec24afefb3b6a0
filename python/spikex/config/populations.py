"""A user's own network in the configuration: ``models``, ``[[populations]]`` and
``[[projections]]`` (PyNN's and NEST's terms).

    models = ["my_neuron.nestml"]          # NESTML files or built model libraries

    [[populations]]
    name = "E"
    model = "my_neuron"                    # any model of the registry, also a loaded one
    cells = 800
    params = { tau_m = 20.0, V_m = { distribution = "uniform", low = -70.0, high = -55.0 } }

    [[projections]]
    source = "E"
    target = "E"
    rule = "fixed_indegree"
    indegree = 80
    weight = 20.0
    delay_ms = 1.5

The three top-level lists are not ``[section]`` tables, so they have their own fields
(``POPULATION_FIELDS``, ``PROJECTION_FIELDS``) checked here, each with the ``Key`` checks
of a section key and errors naming ``populations[i].field``. A model's parameters are
checked against its registry entry, after ``models`` are loaded: loading is part of
checking a configuration that names them (a cached build loads in milliseconds).
"""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path

from ..errors import ConfigError, format_value
from .key import Key

#: Top-level keys holding lists (everything else at top level is a [section]).
LIST_KEYS: tuple[str, ...] = ("models", "populations", "projections")

LIST_DOCS: dict[str, str] = {
    "models": (
        "Neuron models to load before the network is built: NESTML files (`.nestml`, built "
        "on first use and cached) or libraries built by `spikex model build`; paths relative "
        "to the TOML file. Their models are then named like built-in ones "
        "(docs/user/nestml.md)."
    ),
    "populations": (
        "The network's populations, in gid order: each a table with the fields below. With "
        "any population, network.model, cells, indegree, connectivity, delay_ms and weight "
        "are not used."
    ),
    "projections": (
        "Connections between populations by a rule (Network.connect_rule; "
        "docs/user/connection_rules.md), in the order given: each a table with the fields "
        "below."
    ),
}

_REQUIRED = object()  # a field's default when it has none

# Each field is a Key (its path names the list, e.g. "populations.cells") whose default
# _REQUIRED marks a field that must be given; "table", "number_or_distribution" and
# "rule_count" kinds are checked here, the others by Key.check.
POPULATION_FIELDS: tuple[Key, ...] = (
    Key("populations.name", "text", _REQUIRED, "Population name (summary.json populations, spikes.h5)."),
    Key("populations.model", "text", _REQUIRED, "A neuron model or device of the model registry (docs/models/), or one `models` loads."),
    Key("populations.cells", "int", _REQUIRED, "Number of cells.", minimum=1, maximum=4_294_967_294),
    Key(
        "populations.params",
        "table",
        None,
        "The model's parameters and initial values (NEST's names and units; missing ones "
        "take the model's defaults): a number, a list of one number per cell, or a "
        'distribution drawn per cell such as { distribution = "normal", mean = -65.0, '
        "std = 5.0 } (Python: spikex.normal, ...).",
    ),
    Key(
        "populations.record_state",
        "text",
        None,
        "A state variable of the model to record into state.h5 (any of its recordables, e.g. "
        'w of aeif_cond_exp), every record.state_interval_ms from simulation.presim_ms; '
        "default: record.state_variable of the first record.state_cells cells.",
    ),
    Key(
        "populations.record_state_cells",
        "int",
        None,
        "With record_state: how many of the population's first cells are recorded (default: all).",
        minimum=1,
    ),
    Key(
        "populations.record_spikes",
        "bool",
        None,
        "Record the population's spikes (with record.spikes); default: true for neuron "
        "models, false for devices and spike sources.",
    ),
)

PROJECTION_FIELDS: tuple[Key, ...] = (
    Key("projections.source", "text", _REQUIRED, "Name of the source population."),
    Key("projections.target", "text", _REQUIRED, "Name of the target population."),
    Key("projections.rule", "choice", "all_to_all", "Connection rule (NEST's default: all_to_all).", choices=()),
    Key("projections.indegree", "int", None, "fixed_indegree, random, adjacent: inputs per target.", minimum=0),
    Key("projections.outdegree", "int", None, "fixed_outdegree: outputs per source.", minimum=0),
    Key("projections.total_number", "int", None, "fixed_total_number: connections in all.", minimum=0),
    Key("projections.probability", "float", None, "pairwise_bernoulli: connection probability.", minimum=0.0, maximum=1.0),
    Key("projections.indegree_spread", "int", 0, "random: in-degree uniform in indegree +- spread/2.", minimum=0),
    Key(
        "projections.weight",
        "number_or_distribution",
        1.0,
        "Weight (pA for current-based, nS for conductance-based targets; NEST's default 1), "
        "or a distribution drawn per connection.",
    ),
    Key("projections.weight_spread", "float", 0.0, "random, adjacent, fixed_indegree: weights uniform in weight +- spread/2.", minimum=0.0),
    Key(
        "projections.delay_ms",
        "number_or_distribution",
        1.0,
        "Delay in ms (>= dt; NEST's default 1), or a distribution whose smallest value is >= dt.",
    ),
    Key("projections.synapse", "choice", "static", "Synapse type (docs/models/).", choices=()),
    Key("projections.synapse_params", "table", None, "Parameters of the synapse type (one number each; defaults: NEST's)."),
    Key("projections.receptor", "int", 0, "Receptor port of the targets (models with receptor ports: 1, 2, ...).", minimum=0),
    Key("projections.allow_autapses", "bool", None, "NEST's flag (default true; random and adjacent never connect a cell to itself)."),
    Key("projections.allow_multapses", "bool", None, "NEST's flag (default true)."),
)

_COUNT_FIELDS = ("indegree", "outdegree", "total_number", "probability")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")

CROSS_RULES: tuple[str, ...] = (
    "[[populations]] and network.sonata are not given together (each defines the whole network)",
    "[[projections]] name populations of [[populations]] as source and target",
    "a projection gives the count or probability its rule takes (indegree, outdegree, "
    "total_number or probability) and no other",
)


def resolve_lists(raw: dict, config: dict) -> None:
    """Fill `config` (a copy of `raw`) with the three lists (empty when absent); the type
    of each is checked here, its items in ``check``."""
    for name in LIST_KEYS:
        value = raw.get(name, [])
        if not isinstance(value, list):
            shape = "a list of paths" if name == "models" else f"an array of tables [[{name}]]"
            raise ConfigError(name, value, f"must be {shape}")
        config[name] = list(value)


def absolute_model_paths(raw: dict, base: Path) -> None:
    """``models`` paths of a TOML file are relative to it: made absolute in place (so a
    checkpoint's configuration names the same files from anywhere)."""
    models = raw.get("models")
    if isinstance(models, list):
        raw["models"] = [str(base / m) if isinstance(m, str) and m and not Path(m).is_absolute() else m for m in models]


def check(config: dict) -> None:
    """Load ``models``, then check and normalise every population and projection in place
    (defaults filled, integers given for floats made floats)."""
    _load_models(config)
    if config["populations"] and config["network"]["sonata"]:
        raise ConfigError(
            "populations", allowed="cannot be given with network.sonata (each defines the whole network)"
        )
    names: dict[str, str] = {}
    for index, item in enumerate(config["populations"]):
        where = f"populations[{index}]"
        population = _fields(where, item, POPULATION_FIELDS)
        if not _NAME.match(population["name"]):
            raise ConfigError(f"{where}.name", population["name"], "must be letters, digits, _ and -, not starting with a digit")
        if population["name"] in names:
            raise ConfigError(f"{where}.name", population["name"], f"is already the name of {names[population['name']]}")
        names[population["name"]] = where
        population["params"] = _model_params(where, population)
        _check_record_state(where, population)
        config["populations"][index] = population
    for index, item in enumerate(config["projections"]):
        where = f"projections[{index}]"
        config["projections"][index] = _projection(where, item, names)


def _load_models(config: dict) -> None:
    from ..models import load_nestml

    for index, path in enumerate(config["models"]):
        key = f"models[{index}]"
        if not isinstance(path, str) or not path:
            raise ConfigError(key, path, "must be the path of a .nestml file or of a model library")
        if not Path(path).is_file():
            raise ConfigError(key, path, "file not found (a .nestml file or a model library built by spikex model build)")
        load_nestml(path)


def _fields(where: str, item: object, fields: tuple[Key, ...]) -> dict:
    """The item's fields checked, with defaults filled; unknown and missing fields refused."""
    list_name = fields[0].section
    if not isinstance(item, dict):
        raise ConfigError(where, item, f"must be a table ([[{list_name}]])")
    allowed = {field.name: field for field in fields}
    for name in item:
        if name not in allowed:
            raise ConfigError(f"{where}.{name}", item[name], "unknown field; allowed: " + ", ".join(allowed))
    out = {}
    for name, field in allowed.items():
        path = f"{where}.{name}"
        if item.get(name) is None:  # absent (None only comes from a checked configuration)
            if field.default is _REQUIRED:
                raise ConfigError(path, allowed=f"is missing: {field.doc}")
            out[name] = {} if field.kind == "table" else field.default
            continue
        out[name] = _value(path, field, item[name])
    return out


def _value(path: str, field: Key, value: object) -> object:
    if field.kind == "table":
        if not isinstance(value, dict):
            raise ConfigError(path, value, "must be a table of name = value")
        return dict(value)
    if field.kind == "number_or_distribution":
        if isinstance(value, dict):
            return _distribution(path, value)
        return Key(path, "float", 0.0, "").check(value)
    if field.kind == "choice":
        field = dataclasses.replace(field, choices=_choices(field.name))
    return dataclasses.replace(field, path=path).check(value)


def _choices(name: str) -> tuple[str, ...]:
    from ..models import CONNECTION_RULES, SYNAPSE_TYPES

    return {"rule": CONNECTION_RULES, "synapse": tuple(SYNAPSE_TYPES)}[name]


def _distribution(path: str, value: dict) -> dict:
    """``{distribution = "normal", mean = ..., std = ...}`` checked against spikex's
    distributions (the C++ core checks the values)."""
    from ..distributions import DISTRIBUTIONS

    name = value.get("distribution")
    if name not in DISTRIBUTIONS:
        allowed = ", ".join(format_value(d) for d in DISTRIBUTIONS)
        raise ConfigError(f"{path}.distribution", name, f"must be one of {allowed}")
    needed = _distribution_parameters(name)
    for key, number in value.items():
        if key == "distribution":
            continue
        if key not in needed:
            raise ConfigError(f"{path}.{key}", number, f"unknown parameter of {name}; allowed: " + ", ".join(needed))
        Key(f"{path}.{key}", "float", 0.0, "").check(number)
    missing = [key for key, required in needed.items() if required and key not in value]
    if missing:
        raise ConfigError(f"{path}.{missing[0]}", allowed=f"is missing: {name} takes " + ", ".join(needed))
    return dict(value)


def _distribution_parameters(name: str) -> dict[str, bool]:
    """Parameter name -> required, from the Python function that makes the distribution."""
    import inspect

    from ..distributions import DISTRIBUTIONS

    signature = inspect.signature(DISTRIBUTIONS[name])
    return {p.name: p.default is inspect.Parameter.empty for p in signature.parameters.values()}


def _model_params(where: str, population: dict) -> dict:
    from ..models import MODELS

    model = population["model"]
    if model not in MODELS:
        allowed = ", ".join(sorted(MODELS))
        raise ConfigError(
            f"{where}.model", model, f"is not a model of the registry (nor loaded by models); allowed: {allowed}"
        )
    entry = MODELS[model]
    specs = {spec["name"]: spec for spec in entry["parameter_specs"]}
    allowed = list(entry["parameters"])
    params = {}
    for name, value in population["params"].items():
        path = f"{where}.params.{name}"
        if name not in allowed:
            raise ConfigError(path, value, f"is not a parameter of {model}; allowed: " + ", ".join(allowed))
        params[name] = _parameter(path, specs.get(name), value, population["cells"])
    return params


def _check_record_state(where: str, population: dict) -> None:
    from ..models import MODELS, is_state_variable

    variable, model = population["record_state"], population["model"]
    if variable is None:
        if population["record_state_cells"] is not None:
            raise ConfigError(f"{where}.record_state_cells", population["record_state_cells"],
                              "is used with record_state (the variable), which is not given")  # fmt: skip
        return
    if not is_state_variable(model, variable):
        allowed = ", ".join(MODELS[model]["state_variables"]) or "none"
        raise ConfigError(f"{where}.record_state", variable, f"is not a recordable of {model}; allowed: {allowed}")


def _parameter(path: str, spec: dict | None, value: object, cells: int) -> object:
    """One parameter value: a number in the spec's range, a list (per cell, or a list
    parameter's values), or a distribution."""
    if isinstance(value, dict):
        return _distribution(path, value)
    if spec is not None and spec["shape"] == "per_cell_list":
        if not isinstance(value, list):
            raise ConfigError(path, value, "must be a list of numbers, or a list of one list per cell")
        return value
    if isinstance(value, list):
        if len(value) != cells:
            raise ConfigError(path, value, f"must be a number or a list of {cells} numbers (one per cell)")
        return [_number(path, spec, v) for v in value]
    return _number(path, spec, value)


def _number(path: str, spec: dict | None, value: object) -> float | bool:
    if isinstance(value, bool):
        return value  # a flag (Network.create takes true/false)
    if isinstance(value, int) or (isinstance(value, float) and math.isfinite(value)):
        number = float(value)
    else:
        raise ConfigError(path, value, "must be a number")
    if spec is not None:
        r = spec["range"]
        low_ok = number > r["low"] if r["low_open"] else number >= r["low"]
        high_ok = number < r["high"] if r["high_open"] else number <= r["high"]
        if not (low_ok and high_ok) or (r["integer"] and not number.is_integer()):
            raise ConfigError(path, value, spec["allowed"] or f"must be {_range_words(r)}")
    return number


def _range_words(r: dict) -> str:
    parts = []
    if math.isfinite(r["low"]):
        parts.append(f"{'>' if r['low_open'] else '>='} {r['low']:g}")
    if math.isfinite(r["high"]):
        parts.append(f"{'<' if r['high_open'] else '<='} {r['high']:g}")
    noun = "an integer" if r["integer"] else "a number"
    return f"{noun} " + " and ".join(parts) if parts else noun


def _projection(where: str, item: object, names: dict[str, str]) -> dict:
    from ..models import CONNECTION_RULE_TYPES, SYNAPSES

    projection = _fields(where, item, PROJECTION_FIELDS)
    for end in ("source", "target"):
        if projection[end] not in names:
            allowed = ", ".join(format_value(n) for n in names) or "none: give [[populations]]"
            raise ConfigError(f"{where}.{end}", projection[end], f"must name a population; allowed: {allowed}")
    rule = projection["rule"]
    specs = CONNECTION_RULE_TYPES[rule]["parameter_specs"]
    needed = specs[0]["name"] if specs else None
    for name in _COUNT_FIELDS:
        if name == needed and projection[name] is None:
            raise ConfigError(f"{where}.{name}", allowed=f"is missing: rule {rule} takes {name}")
        if name != needed and projection[name] is not None:
            takes = f"takes {needed}" if needed else "takes no count"
            raise ConfigError(f"{where}.{name}", projection[name], f"is not used by rule {rule} ({takes})")
    synapse = projection["synapse"]
    for name, value in projection["synapse_params"].items():
        path = f"{where}.synapse_params.{name}"
        if name not in SYNAPSES[synapse]:
            allowed = ", ".join(SYNAPSES[synapse]) or "none"
            raise ConfigError(path, value, f"is not a parameter of {synapse}; allowed: {allowed}")
        projection["synapse_params"][name] = Key(path, "float", 0.0, "").check(value)
    return projection


def override(config: dict, path: str, value: object) -> bool:
    """Apply ``--set populations.<name>.<field>[.<param>]=VALUE`` or
    ``projections.<index>.<field>=VALUE`` (or ``models=[...]``); False when `path` is not
    one of these."""
    parts = path.split(".")
    if parts[0] not in LIST_KEYS:
        return False
    if parts[0] == "models" and len(parts) == 1:
        config["models"] = value
        return True
    items = config.get(parts[0], [])
    fields = POPULATION_FIELDS if parts[0] == "populations" else PROJECTION_FIELDS
    shape = "populations.<name>.<field>" if parts[0] == "populations" else "projections.<index>.<field>"
    if len(parts) < 3:
        raise ConfigError(path, value, f"expected {shape} (a field: " + ", ".join(f.name for f in fields) + ")")
    if parts[0] == "populations":
        found = [item for item in items if isinstance(item, dict) and item.get("name") == parts[1]]
        if not found:
            known = ", ".join(str(item.get("name")) for item in items if isinstance(item, dict)) or "none"
            raise ConfigError(path, value, f"no population {parts[1]!r}; populations: {known}")
        item = found[0]
    else:
        if not parts[1].isdigit() or int(parts[1]) >= len(items):
            raise ConfigError(path, value, f"no projection {parts[1]}; indices 0 to {len(items) - 1}")
        item = items[int(parts[1])]
    table_fields = {f.name for f in fields if f.kind == "table"}
    if len(parts) == 4 and parts[2] in table_fields:
        item.setdefault(parts[2], {})[parts[3]] = value
    elif len(parts) == 3:
        item[parts[2]] = value
    else:
        raise ConfigError(path, value, f"expected {shape}" + (" or populations.<name>.params.<parameter>" if parts[0] == "populations" else ""))
    return True


def describe() -> list[str]:
    """The lists' Markdown for docs/user/config.md."""
    lines = []
    for name in LIST_KEYS:
        title = "models" if name == "models" else f"[[{name}]]"
        lines += [f"## {title}", "", LIST_DOCS[name], ""]
        fields = {"populations": POPULATION_FIELDS, "projections": PROJECTION_FIELDS}.get(name)
        if fields is None:
            lines += ['`models = ["my_neuron.nestml"]`, a list of strings, default `[]`.', ""]
            continue
        lines += ["| field | type | default | allowed | meaning |", "|---|---|---|---|---|"]
        for field in fields:
            lines.append(f"| `{field.name}` | {_type_words(field)} | {_default_words(field)} | {_allowed_words(field)} | {field.doc} |")
        lines.append("")
    lines += [
        "Overrides address a population by name and a projection by its index:",
        "`--set populations.E.cells=4000`, `--set populations.E.params.tau_m=10`,",
        "`--set projections.0.weight=30`.",
        "",
    ]
    return lines


def _type_words(field: Key) -> str:
    return {
        "text": "string", "int": "integer", "float": "float", "bool": "boolean", "choice": "string",
        "table": "table", "number_or_distribution": "float or table",
    }[field.kind]  # fmt: skip


def _default_words(field: Key) -> str:
    if field.default is _REQUIRED:
        return "required"
    if field.default is None:
        return "`{}`" if field.kind == "table" else "not set"
    return f"`{format_value(field.default)}`"


def _allowed_words(field: Key) -> str:
    if field.kind == "choice":
        return ", ".join(format_value(c) for c in _choices(field.name))
    if field.kind in ("text", "table"):
        return "a string" if field.kind == "text" else "name = value"
    if field.kind == "number_or_distribution":
        return "a number, or { distribution = ..., ... }"
    return field.range_text()
