"""SONATA edges: edge populations, their edge types, weights, delays and synapse models.

``edge_populations`` lists the edge populations of the circuit without reading their
edges; ``read_edges(population, config, target_node_ids)`` reads the edges of one
population whose targets are among ``target_node_ids`` (all when None): the one entry
point for reading edges, so that a rank can read only the edges of the cells it owns.
With ``target_node_ids`` the reader follows the file's ``indices/target_to_source``
where it exists (only the edge ranges of those targets are read), else it reads the
columns once and keeps the matching edges. Either way the edges keep the file's order.

Per edge (the edge's own dataset first, then the edge type's ``dynamics_params`` JSON,
then its column in the edge types CSV):

* ``weight = syn_weight * nsyns`` (as BMTK's pointnet; ``nsyns`` is 1 when absent; NEST's
  own SONATA reader ignores ``nsyns``), in NEST's unit of the target model (pA or nS);
* ``delay`` in ms; absent everywhere: 1.0 ms, the default delay of NEST's synapse models
  (as NEST and BMTK do);
* the synapse model: the type's ``model_template`` (``static_synapse`` or another NEST
  synapse name spikex has, ``nest:`` prefix optional) with the other keys of its
  ``dynamics_params`` JSON as the synapse's parameters.

Edges may be split over several edge groups (``edge_group_id`` / ``edge_group_index``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .config import SonataConfig, read_json
from .errors import SonataError
from .types_table import read_types

DEFAULT_DELAY_MS = 1.0  # NEST's default delay of its synapse models (BMTK leaves it to NEST)
STATIC_NAMES = ("static_synapse", "static")


@dataclass
class EdgeType:
    """What an edge type gives its edges: synapse model (spikex name) and parameters,
    and the fallbacks of syn_weight, nsyns and delay (None: not given)."""

    synapse: str = "static"
    synapse_params: dict = field(default_factory=dict)
    receptor: int = 0
    syn_weight: float | None = None
    nsyns: float | None = None
    delay: float | None = None


@dataclass
class EdgePopulation:
    """One SONATA edge population (``/edges/<name>``), its edges not yet read."""

    name: str
    edges_file: Path
    edge_types_file: Path
    source: str
    target: str
    size: int
    types: dict  # edge type id -> EdgeType


@dataclass
class EdgeTable:
    """Edges of one population (node ids local to their populations), in file order."""

    source: np.ndarray  # int64 node ids in the source population
    target: np.ndarray  # int64 node ids in the target population
    weight: np.ndarray  # float64, syn_weight * nsyns
    delay_ms: np.ndarray  # float64
    edge_type_id: np.ndarray  # int64


def edge_populations(config: SonataConfig) -> list[EdgePopulation]:
    """Every edge population of the circuit (``networks.edges`` entries that are not
    ``"enabled": false``), with their edge types read and checked."""
    import h5py

    populations: list[EdgePopulation] = []
    for index, entry in enumerate(config.edges):
        where = f"{config.circuit_path}: networks.edges[{index}]"
        for key in ("edges_file", "edge_types_file"):
            if key not in entry:
                raise SonataError(where, f"missing '{key}'")
        types_path, path = Path(entry["edge_types_file"]), Path(entry["edges_file"])
        table = read_types(types_path, "edge_type_id")
        types = {
            type_id: _edge_type(type_id, row, types_path, config) for type_id, row in table.items()
        }
        if not path.is_file():
            raise SonataError(str(path), "edges_file not found")
        try:
            handle = h5py.File(path, "r")
        except OSError as error:
            raise SonataError(str(path), f"cannot read as HDF5: {error}") from None
        with handle:
            if "edges" not in handle:
                raise SonataError(str(path), "no /edges group: not a SONATA edges file")
            for name in sorted(handle["edges"]):
                group = handle["edges"][name]
                here = f"{path}: /edges/{name}"
                for dataset in ("source_node_id", "target_node_id", "edge_type_id"):
                    if dataset not in group:
                        raise SonataError(here, f"missing dataset {dataset}")
                source = _population_attribute(group["source_node_id"], here)
                target = _population_attribute(group["target_node_id"], here)
                populations.append(
                    EdgePopulation(
                        name,
                        path,
                        types_path,
                        source,
                        target,
                        int(group["target_node_id"].shape[0]),
                        types,
                    )
                )
    return populations


def read_edges(population: EdgePopulation, target_node_ids: np.ndarray | None = None) -> EdgeTable:
    """The edges of ``population`` whose target node id is in ``target_node_ids`` (all
    when None), in file order; weights and delays resolved (module docstring)."""
    import h5py

    where = f"{population.edges_file}: /edges/{population.name}"
    with h5py.File(population.edges_file, "r") as handle:
        group = handle["edges"][population.name]
        ranges = _edge_ranges(group, population.size, target_node_ids)

        def column(dataset, dtype) -> np.ndarray:
            if ranges is None:
                return np.asarray(dataset[:], dtype=dtype)
            parts = [np.asarray(dataset[start:stop], dtype=dtype) for start, stop in ranges]
            return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)

        target = column(group["target_node_id"], np.int64)
        source = column(group["source_node_id"], np.int64)
        type_ids = column(group["edge_type_id"], np.int64)
        if target_node_ids is not None and ranges is None:
            keep = np.isin(target, np.asarray(target_node_ids, dtype=np.int64))
            target, source, type_ids = target[keep], source[keep], type_ids[keep]
            rows = np.flatnonzero(keep)
        else:
            rows = None
        n = target.size
        unknown = np.setdiff1d(
            np.unique(type_ids), np.fromiter(population.types, np.int64, len(population.types))
        )
        if unknown.size:
            raise SonataError(
                where, f"edge_type_id {int(unknown[0])} is not in {population.edge_types_file}"
            )
        values = {name: np.full(n, np.nan) for name in ("syn_weight", "nsyns", "delay")}
        groups = [key for key in group if isinstance(group[key], h5py.Group) and key != "indices"]
        if groups:
            group_ids = _column_or(group, "edge_group_id", column, rows, n, 0)
            group_index = _column_or(group, "edge_group_index", column, rows, n, None)
            if group_index is None:
                group_index = (
                    np.arange(n) if rows is None and ranges is None else _all_rows(ranges, rows, n)
                )
            for key in groups:
                if not key.isdigit():
                    continue
                mine = np.flatnonzero(group_ids == int(key))
                if mine.size == 0:
                    continue
                edge_group = group[key]
                for name, column in values.items():
                    if name in edge_group:
                        data = edge_group[name]
                        picked = group_index[mine]
                        if picked.max() >= data.shape[0]:
                            raise SonataError(
                                f"{where}/{key}/{name}",
                                f"has {data.shape[0]} values but edge_group_index reaches {int(picked.max())}",
                            )
                        column[mine] = _gather(data, picked)
                if "dynamics_params" in edge_group and len(edge_group["dynamics_params"]):
                    names = ", ".join(sorted(edge_group["dynamics_params"]))
                    raise SonataError(
                        f"{where}/{key}/dynamics_params",
                        f"per-edge synapse parameters ({names}) are not supported yet: give them per edge type",
                    )
    weight, nsyns, delay = values["syn_weight"], values["nsyns"], values["delay"]
    for type_id in np.unique(type_ids):
        edge_type = population.types[int(type_id)]
        of_type = type_ids == type_id
        for array, fallback in (
            (weight, edge_type.syn_weight),
            (nsyns, edge_type.nsyns),
            (delay, edge_type.delay),
        ):
            unset = of_type & np.isnan(array)
            if fallback is not None:
                array[unset] = fallback
        if np.isnan(weight[of_type]).any():
            raise SonataError(
                where,
                f"edge type {int(type_id)} has no syn_weight (no syn_weight dataset, none in {population.edge_types_file} "
                "or its dynamics_params)",
            )
    nsyns[np.isnan(nsyns)] = 1.0
    delay[np.isnan(delay)] = DEFAULT_DELAY_MS
    return EdgeTable(
        source=source, target=target, weight=weight * nsyns, delay_ms=delay, edge_type_id=type_ids
    )


def _edge_ranges(group, size: int, target_node_ids) -> list[tuple[int, int]] | None:
    """Sorted, merged [start, stop) edge ranges of the targets through
    indices/target_to_source, or None (read everything) when there is no index or no
    selection."""
    if target_node_ids is None:
        return None
    index = group.get("indices/target_to_source")
    if index is None or "node_id_to_range" not in index or "range_to_edge_id" not in index:
        return None
    to_range = np.asarray(index["node_id_to_range"][:], dtype=np.int64)
    to_edges = np.asarray(index["range_to_edge_id"][:], dtype=np.int64)
    targets = np.unique(np.asarray(target_node_ids, dtype=np.int64))
    targets = targets[(targets >= 0) & (targets < to_range.shape[0])]
    spans = [to_edges[start:stop] for start, stop in to_range[targets] if stop > start]
    if not spans:
        return []
    edges = np.concatenate(spans)
    edges = edges[np.argsort(edges[:, 0], kind="stable")]
    merged: list[tuple[int, int]] = []
    for start, stop in edges:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], int(stop)))
        else:
            merged.append((int(start), int(stop)))
    return merged


def _all_rows(ranges, rows, n) -> np.ndarray:
    """Edge ids (rows of the file) of the edges read."""
    if ranges is not None:
        return (
            np.concatenate([np.arange(a, b) for a, b in ranges])
            if ranges
            else np.zeros(0, np.int64)
        )
    return rows if rows is not None else np.arange(n)


def _column_or(group, name, column, rows, n, default):
    if name not in group:
        return None if default is None else np.full(n, default, dtype=np.int64)
    values = column(group[name], np.int64)
    return values if rows is None else values[rows]


def _gather(dataset, index: np.ndarray) -> np.ndarray:
    """dataset[index] for any index order (reads the span once)."""
    low, high = int(index.min()), int(index.max()) + 1
    return np.asarray(dataset[low:high], dtype=np.float64)[index - low]


def _population_attribute(dataset, where: str) -> str:
    value = dataset.attrs.get("node_population")
    if value is None:
        raise SonataError(
            where, f"{dataset.name.rsplit('/', 1)[-1]} has no 'node_population' attribute"
        )
    return value.decode() if isinstance(value, bytes) else str(value)


def _edge_type(type_id: int, row: dict, types_path: Path, config: SonataConfig) -> EdgeType:
    from ..models import SYNAPSES

    where = str(types_path)
    if "weight_function" in row:
        raise SonataError(
            where,
            f"edge type {type_id}: weight_function = {row['weight_function']!r}: BMTK's weight functions are Python code; spikex reads syn_weight (and nsyns) only",
        )
    template = row.get("model_template", "static_synapse")
    if not isinstance(template, str):
        raise SonataError(
            where, f"edge type {type_id}: model_template = {template!r}: must name a synapse model"
        )
    name = template.removeprefix("nest:")
    synapse = "static" if name in STATIC_NAMES else name
    if synapse not in SYNAPSES:
        known = ", ".join(["static_synapse", *(s for s in SYNAPSES if s != "static")])
        raise SonataError(
            where,
            f"edge type {type_id}: model_template = {template!r}: spikex has no synapse model {name!r} (it has {known})",
        )
    params: dict = {}
    file_name = row.get("dynamics_params")
    if isinstance(file_name, str):
        path = Path(file_name)
        if not path.is_absolute():
            directory = config.components.get("synaptic_models_dir")
            if directory is None:
                raise SonataError(
                    str(config.circuit_path),
                    f"components.synaptic_models_dir is missing ({types_path} names dynamics_params {file_name!r})",
                )
            path = Path(directory) / path
        params = read_json(path, "dynamics_params", f"{types_path}: edge type {type_id}")
        where = str(path)
    edge_type = EdgeType(synapse=synapse)
    for key, attribute in (
        ("syn_weight", "syn_weight"),
        ("weight", "syn_weight"),
        ("nsyns", "nsyns"),
        ("delay", "delay"),
    ):
        value = params.pop(key, None)
        if value is None:
            value = row.get(key)
        if value is not None:
            if (
                not isinstance(value, (int, float))
                or isinstance(value, bool)
                or not np.isfinite(value)
            ):
                raise SonataError(
                    where, f"edge type {type_id}: {key} = {value!r}: must be a number"
                )
            setattr(edge_type, attribute, float(value))
    receptor = params.pop("receptor_type", 0)
    edge_type.receptor = int(receptor)
    params.pop("synapse_model", None)
    known = SYNAPSES[synapse]
    for key in params:
        if key not in known:
            allowed = ", ".join(known) or "none"
            raise SonataError(
                where,
                f"edge type {type_id}: {key!r} is not a parameter of {name} (its parameters: {allowed})",
            )
    edge_type.synapse_params = {key: float(value) for key, value in params.items()}
    return edge_type
