"""SONATA nodes: node populations, their node types, models and parameters.

For each ``networks.nodes`` entry, each population ``/nodes/<name>`` of its HDF5 file
becomes a ``NodePopulation``: its node ids (``node_id``, else 0..n-1; they must be 0..n-1
in some order), each node's type (``node_type_id``, a row of the node types CSV), its
model and its parameters, ordered by node id.

* ``model_type`` ``virtual``: input nodes (spikex ``spike_source_array``, fed by the
  config's spike inputs); ``point_neuron`` / ``point_process``: neurons whose
  ``model_template`` ``nest:<model>`` names the spikex model of NEST's name (the prefix
  may be left out). A model spikex lacks is refused here, before anything is built.
* parameters: the node type's ``dynamics_params`` JSON (in
  ``components.point_neuron_models_dir``), then per-node values in the node group's
  ``dynamics_params`` HDF5 group, which override it; a parameter a node type does not set
  takes the model's default (NEST's). Names and units are NEST's, which are spikex's.
* a population may mix node types of different models, and virtual with point-neuron
  nodes (as BMTK's builder makes them: e.g. excitatory and inhibitory types of different
  models in one population): each contiguous run of one model in node-id order
  (``NodePopulation.runs``) becomes a spikex population, created one after the other, so
  that ``gid = first_gid + node_id`` holds for the whole SONATA population.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .config import SonataConfig, read_json
from .errors import SonataError
from .h5_files import open_circuit_file
from .types_table import read_types

VIRTUAL = "virtual"
POINT_TYPES = ("point_neuron", "point_process")
NEST_PREFIX = "nest:"


@dataclass
class NodeRun:
    """Nodes ``start``..``stop - 1`` of a population, all of one model: one spikex
    population (``params`` as ``Network.create`` takes them, per node of the run)."""

    start: int
    stop: int
    model: str
    params: dict
    virtual: bool = False

    @property
    def size(self) -> int:
        return self.stop - self.start


@dataclass
class NodePopulation:
    """One SONATA node population, ordered by node id.

    Attributes
    ----------
    name : str
        The population's name (``/nodes/<name>``).
    nodes_file, node_types_file : Path
    size : int
        Number of nodes (node ids 0..size-1).
    node_type_ids : numpy.ndarray
        Each node's type (int64), by node id.
    virtual : bool
        Every node is an input node (``model_type`` virtual).
    model : str
        spikex model (``spike_source_array`` for virtual nodes); several models joined by
        ``+`` when the population mixes them.
    params : dict
        Parameter name -> per-node numpy array (float64) or list of per-node lists (a
        population of one model and no virtual nodes; else empty: see ``runs``).
    node_virtual : numpy.ndarray
        Whether each node is virtual (bool, by node id).
    node_models : numpy.ndarray
        Each node's spikex model (object, by node id).
    runs : list of NodeRun
        Contiguous runs of one model, in node-id order.
    types : dict
        The node types table (type id -> columns).
    attributes : dict
        Per-node datasets of the node groups (name -> array by node id; for node sets).
    """

    name: str
    nodes_file: Path
    node_types_file: Path
    size: int
    node_type_ids: np.ndarray
    virtual: bool
    model: str
    params: dict = field(default_factory=dict)
    types: dict = field(default_factory=dict)
    attributes: dict = field(default_factory=dict)
    node_virtual: np.ndarray | None = None
    node_models: np.ndarray | None = None
    runs: list = field(default_factory=list)

    @property
    def real_node_ids(self) -> np.ndarray:
        """Node ids of the nodes that are not virtual."""
        if self.node_virtual is None:
            return np.zeros(0, np.int64) if self.virtual else np.arange(self.size)
        return np.flatnonzero(~self.node_virtual)

    def attribute(self, name: str) -> np.ndarray | None:
        """A per-node value of ``name`` (a node group dataset, else the node type's column),
        as an object array by node id; None when neither has it."""
        if name in self.attributes:
            return np.asarray(self.attributes[name])
        if name == "node_type_id":
            return self.node_type_ids
        if not any(name in row for row in self.types.values()):
            return None
        column = {type_id: row.get(name) for type_id, row in self.types.items()}
        return np.array([column.get(int(t)) for t in self.node_type_ids], dtype=object)


def read_node_populations(config: SonataConfig) -> list[NodePopulation]:
    """Every node population of the circuit, in the order of ``networks.nodes`` and of the
    populations in each file (sorted by name). SonataError for anything missing or
    unsupported, naming the file."""
    populations: list[NodePopulation] = []
    for index, entry in enumerate(config.nodes):
        where = f"{config.circuit_path}: networks.nodes[{index}]"
        for key in ("nodes_file", "node_types_file"):
            if key not in entry:
                raise SonataError(where, f"missing '{key}'")
        types = read_types(entry["node_types_file"], "node_type_id")
        for population in _read_file(
            Path(entry["nodes_file"]), Path(entry["node_types_file"]), types, config
        ):
            if any(p.name == population.name for p in populations):
                raise SonataError(
                    str(population.nodes_file),
                    f"node population '{population.name}' is defined twice",
                )
            populations.append(population)
    return populations


def _read_file(
    path: Path, types_path: Path, types: dict, config: SonataConfig
) -> list[NodePopulation]:
    with open_circuit_file(path, "nodes") as handle:
        return [
            _read_population(handle["nodes"][name], name, path, types_path, types, config)
            for name in sorted(handle["nodes"])
        ]


def _read_population(
    group, name: str, path: Path, types_path: Path, types: dict, config: SonataConfig
) -> NodePopulation:
    where = f"{path}: /nodes/{name}"
    if "node_type_id" not in group:
        raise SonataError(where, "missing dataset node_type_id")
    type_ids = np.asarray(group["node_type_id"][:], dtype=np.int64)
    size = type_ids.size
    node_ids = (
        np.asarray(group["node_id"][:], dtype=np.int64) if "node_id" in group else np.arange(size)
    )
    if node_ids.size != size or not np.array_equal(np.sort(node_ids), np.arange(size)):
        raise SonataError(
            where, f"node_id must hold 0..{size - 1} (each once), as SONATA numbers nodes"
        )
    order = np.argsort(node_ids, kind="stable")  # row of each node id
    type_ids = type_ids[order]
    unknown = np.setdiff1d(
        np.unique(type_ids), np.fromiter(types, dtype=np.int64, count=len(types))
    )
    if unknown.size:
        raise SonataError(where, f"node_type_id {int(unknown[0])} is not in {types_path}")
    attributes, overrides = _group_columns(group, where, size)
    attributes = {key: values[order] for key, values in attributes.items()}
    overrides = {key: values[order] for key, values in overrides.items()}

    def per_node(column: str) -> np.ndarray:
        if column in attributes:
            return np.asarray([_text(v) for v in attributes[column]], dtype=object)
        values = {t: types[t].get(column) for t in types}
        return np.array([values[int(t)] for t in type_ids], dtype=object)

    if "model_type" not in attributes and not any("model_type" in row for row in types.values()):
        raise SonataError(str(types_path), f"missing column 'model_type' (population '{name}')")
    model_types = per_node("model_type")
    kinds = {str(m) for m in model_types}
    if kinds - {VIRTUAL, *POINT_TYPES}:
        bad = min(kinds - {VIRTUAL, *POINT_TYPES}, key=str)
        raise SonataError(
            str(types_path),
            f"model_type = {bad!r} (population '{name}'): spikex runs point neurons "
            f"(model_type {' or '.join(POINT_TYPES)}) and virtual input nodes",
        )
    node_virtual = np.array([str(m) == VIRTUAL for m in model_types], dtype=bool)
    population = NodePopulation(
        name=name, nodes_file=path, node_types_file=types_path, size=size, node_type_ids=type_ids,
        virtual=bool(node_virtual.all()), model="spike_source_array", types=types,
        attributes=attributes, node_virtual=node_virtual,
    )  # fmt: skip
    node_models = np.full(size, "spike_source_array", dtype=object)
    real = np.flatnonzero(~node_virtual)
    if real.size:
        templates = per_node("model_template")
        models = {t: _model_name(t, types_path, name) for t in dict.fromkeys(templates[real])}
        node_models[real] = [models[t] for t in templates[real]]
    population.node_models = node_models
    names = list(dict.fromkeys(node_models[real])) if real.size else ["spike_source_array"]
    population.model = names[0] if len(names) == 1 else "+".join(names)
    dynamics = per_node("dynamics_params")
    by_model = {}
    for model in dict.fromkeys(node_models[real]):
        positions = np.flatnonzero(node_models == model)
        by_model[model] = (positions, _parameters(
            population, model, positions, dynamics[positions],
            {key: values[positions] for key, values in overrides.items()}, config,
        ))  # fmt: skip
    population.runs = _runs(node_models, node_virtual, by_model)
    if len(by_model) == 1 and not node_virtual.any():
        population.params = next(iter(by_model.values()))[1]
    return population


def _runs(node_models: np.ndarray, node_virtual: np.ndarray, by_model: dict) -> list:
    """The population's contiguous runs of one model (in node-id order): one spikex
    population each, created one after the other so that gid = first_gid + node_id holds
    for the whole SONATA population."""
    if node_models.size == 0:
        return []
    change = np.flatnonzero(node_models[1:] != node_models[:-1]) + 1
    starts = np.concatenate([[0], change])
    stops = np.concatenate([change, [node_models.size]])
    runs = []
    for start, stop in zip(starts.tolist(), stops.tolist(), strict=True):
        if node_virtual[start]:
            runs.append(NodeRun(start, stop, "spike_source_array", {}, virtual=True))
            continue
        model = node_models[start]
        positions, params = by_model[model]
        first = int(np.searchsorted(positions, start))
        picked = slice(first, first + stop - start)
        runs.append(NodeRun(start, stop, model, {k: _sliced(v, picked) for k, v in params.items()}))
    return runs


def _sliced(value: object, picked: slice) -> object:
    if isinstance(value, np.ndarray):
        part = value[picked]
        return float(part[0]) if part.size and np.all(part == part[0]) else part
    if isinstance(value, list):
        return value[picked]
    return value


def _text(value: object) -> object:
    return value.decode() if isinstance(value, bytes) else value


def _group_columns(group, where: str, size: int) -> tuple[dict, dict]:
    """Per-node datasets of the node groups (by row) and per-node ``dynamics_params``
    overrides (by row), from ``node_group_id`` / ``node_group_index``."""
    import h5py

    groups = {
        key: group[key] for key in group if isinstance(group[key], h5py.Group) and key != "indices"
    }
    if not groups:
        return {}, {}
    group_ids = (
        np.asarray(group["node_group_id"][:], dtype=np.int64)
        if "node_group_id" in group
        else np.zeros(size, np.int64)
    )
    index = (
        np.asarray(group["node_group_index"][:], dtype=np.int64)
        if "node_group_index" in group
        else np.arange(size)
    )
    attributes: dict[str, np.ndarray] = {}
    overrides: dict[str, np.ndarray] = {}
    for key, node_group in groups.items():
        rows = np.flatnonzero(group_ids == int(key)) if key.isdigit() else np.zeros(0, np.int64)
        if rows.size == 0:
            continue
        for column, target in (
            (node_group, attributes),
            (node_group.get("dynamics_params"), overrides),
        ):
            if column is None:
                continue
            for name in column:
                if not isinstance(column[name], h5py.Dataset) or column[name].ndim != 1:
                    continue
                data = column[name][:]
                if index[rows].max() >= data.size:
                    raise SonataError(
                        f"{where}/{key}/{name}",
                        f"has {data.size} values but node_group_index reaches {int(index[rows].max())}",
                    )
                if name not in target:
                    target[name] = (
                        np.full(size, np.nan)
                        if data.dtype.kind in "iuf"
                        else np.full(size, None, dtype=object)
                    )
                target[name][rows] = data[index[rows]]
    return attributes, overrides


def _model_name(template: object, types_path: Path, population: str) -> str:
    from ..models import MODELS

    if not isinstance(template, str) or not template:
        raise SonataError(
            str(types_path),
            f"population '{population}': point neurons need a model_template (nest:<model>)",
        )
    name = template.removeprefix(NEST_PREFIX)
    if ":" in name:
        raise SonataError(
            str(types_path),
            f"model_template = {template!r}: not a NEST point-neuron model (nest:<model>)",
        )
    if name not in MODELS or MODELS[name]["kind"] != "neuron":
        raise SonataError(
            str(types_path),
            f"model_template = {template!r} (population '{population}'): spikex has no neuron model "
            f"{name!r} (its models: docs/models/, spikex.models.MODELS)",
        )
    return name


def _parameters(
    population: NodePopulation,
    model: str,
    positions: np.ndarray,
    dynamics: np.ndarray,
    overrides: dict,
    config: SonataConfig,
) -> dict:
    """Per-node parameters of the nodes at ``positions`` (node ids), all of ``model``: each
    node type's JSON, then the per-node overrides, then the model's defaults; numbers as
    float64 arrays (one value per node at ``positions``, a float when all are equal),
    list parameters as lists per node."""
    from ..models import MODELS

    specs = {spec["name"]: spec for spec in MODELS[model]["parameter_specs"]}
    overrides = {
        key: column for key, column in overrides.items()
        if not all(_missing(v) for v in column)
    }  # fmt: skip
    files: dict[object, dict] = {}
    for file_name in dict.fromkeys(dynamics):
        files[file_name] = _dynamics_file(file_name, population, config)
    given = {name for content in files.values() for name in content} | set(overrides)
    for name in sorted(given):
        if name not in specs:
            source = next((str(f) for f, c in files.items() if name in c), "dynamics_params (HDF5)")
            raise SonataError(
                source,
                f"parameter {name!r} is not a parameter of {model} (population "
                f"'{population.name}'; its parameters: {', '.join(specs)})",
            )
    params: dict[str, object] = {}
    for name in sorted(given):
        spec = specs[name]
        values = [files[f].get(name) for f in dynamics]
        if name in overrides:
            column = overrides[name]
            values = [v if _missing(c) else c for v, c in zip(values, column, strict=True)]
        if spec["shape"] == "per_cell_list":
            # a node type that does not give it: the model's default list if it has one
            # (glif_psc's asc_*, a GLIF1 type beside GLIF3 ones), else refused
            if spec["default_rule"].startswith("["):
                inner = spec["default_rule"].strip("[]")
                default_list = [float(x) for x in inner.split(",")] if inner.strip() else []
                values = [default_list if v is None else v for v in values]
            if any(v is None for v in values):
                raise SonataError(
                    str(population.node_types_file),
                    f"list parameter {name!r} of {model} is given for some "
                    f"node types of population '{population.name}' and not for others: give it for all",
                )
            params[name] = [list(np.atleast_1d(np.asarray(v, dtype=float))) for v in values]
            continue
        default = spec["default"]
        array = np.array([default if v is None else v for v in values], dtype=object)
        try:
            array = array.astype(np.float64)
        except (TypeError, ValueError):
            bad = next(v for v in values if not _number(v))
            raise SonataError(
                str(population.node_types_file),
                f"population '{population.name}': parameter {name!r} = {bad!r}: must be a number",
            ) from None
        params[name] = float(array[0]) if array.size and np.all(array == array[0]) else array
    return params


def _dynamics_file(file_name: object, population: NodePopulation, config: SonataConfig) -> dict:
    if file_name is None:
        return {}
    if not isinstance(file_name, str):
        raise SonataError(
            str(population.node_types_file),
            f"dynamics_params = {file_name!r}: must name a JSON file",
        )
    directory = config.components.get("point_neuron_models_dir")
    path = Path(file_name)
    if not path.is_absolute():
        if directory is None:
            raise SonataError(
                str(config.circuit_path),
                f"components.point_neuron_models_dir is missing (node types file {population.node_types_file} names dynamics_params {file_name!r})",
            )
        path = Path(directory) / path
    return read_json(path, "dynamics_params", str(population.node_types_file))


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value))


def _number(value: object) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return not isinstance(value, bool)
