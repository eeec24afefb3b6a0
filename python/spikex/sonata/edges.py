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
from .h5_files import open_circuit_file
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
    # Names of the per-edge synapse parameters its edge groups give (dynamics_params).
    dynamics_names: tuple = ()


@dataclass
class EdgeTable:
    """Edges of one population (node ids local to their populations), in file order."""

    source: np.ndarray  # int64 node ids in the source population
    target: np.ndarray  # int64 node ids in the target population
    weight: np.ndarray  # float64, syn_weight * nsyns
    delay_ms: np.ndarray  # float64
    edge_type_id: np.ndarray  # int64
    type_ids: np.ndarray | None = None  # the distinct edge_type_id, sorted
    edge_id: np.ndarray | None = None  # int64 row of each edge in the file (for messages)
    first_edge_id: int = 0  # edge_id None: edge k is row first_edge_id + k of the file
    # Per-edge synapse parameters (an edge group's dynamics_params datasets): name ->
    # float64 per edge, NaN where the edge's group does not give it.
    dynamics: dict = field(default_factory=dict)


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
        with open_circuit_file(path, "edges") as handle:
            for name in sorted(handle["edges"]):
                group = handle["edges"][name]
                here = f"{path}: /edges/{name}"
                for dataset in ("source_node_id", "target_node_id", "edge_type_id"):
                    if dataset not in group:
                        raise SonataError(here, f"missing dataset {dataset}")
                source = _population_attribute(group["source_node_id"], here)
                target = _population_attribute(group["target_node_id"], here)
                names = sorted({
                    key for sub in group.values()
                    if isinstance(sub, h5py.Group) and isinstance(sub.get("dynamics_params"), h5py.Group)
                    for key in sub["dynamics_params"]
                } - set(PER_EDGE_KEYS[:4]))  # fmt: skip
                populations.append(
                    EdgePopulation(
                        name, path, types_path, source, target,
                        int(group["target_node_id"].shape[0]), types, tuple(names),
                    )
                )  # fmt: skip
    return populations


def read_edges(
    population: EdgePopulation,
    target_node_ids: np.ndarray | None = None,
    target_size: int | None = None,
) -> EdgeTable:
    """The edges of ``population`` whose target node id is in ``target_node_ids`` (all
    when None), in file order; weights and delays resolved (module docstring). With
    targets, memory stays within the selected edges and one chunk of ``CHUNK_ROWS`` rows;
    ``target_size`` (the target population's size) makes an edge ending outside the
    population an error, though no selection holds it. ``edge_windows`` gives the same
    edges window by window."""
    import h5py

    where = f"{population.edges_file}: /edges/{population.name}"
    with h5py.File(population.edges_file, "r") as handle:
        group = handle["edges"][population.name]
        selection = _Selection(group, target_node_ids, target_size, where, population.target)
        return _read_table(population, group, selection.rows(0, selection.total), selection)


def edge_windows(
    population: EdgePopulation,
    target_node_ids: np.ndarray | None = None,
    target_size: int | None = None,
):
    """The edges of ``read_edges``, one table per window of ``WINDOW_ROWS`` rows of the
    file, in file order. The windows are the file's, the same on every rank whatever it
    selects (a window without selected edges gives an empty table), so that ranks can
    connect window by window with the same calls; memory stays within one window's
    edges (and the target index's ranges of the selected targets)."""
    import h5py

    where = f"{population.edges_file}: /edges/{population.name}"
    with h5py.File(population.edges_file, "r") as handle:
        group = handle["edges"][population.name]
        selection = _Selection(group, target_node_ids, target_size, where, population.target)
        for start in range(0, selection.total, WINDOW_ROWS):
            rows = selection.rows(start, min(start + WINDOW_ROWS, selection.total))
            yield _read_table(population, group, rows, selection)


def _read_table(population: EdgePopulation, group, rows, selection: _Selection) -> EdgeTable:
    """The edges at ``rows`` (a slice of the file's rows, or sorted row numbers) of the
    edge population ``group``, weights and delays resolved."""
    import h5py

    where = selection.where

    def column(name: str, dtype) -> np.ndarray:
        return _take(group[name], rows, dtype)

    target = column("target_node_id", np.int64)
    if isinstance(rows, slice) and selection.size is not None and target.size:
        top = int(target.max())
        if top >= selection.size:
            raise selection.outside(top)
    source = column("source_node_id", np.int64)
    type_ids = column("edge_type_id", np.int64)
    n = target.size
    known = np.fromiter(population.types, np.int64, len(population.types))
    present = distinct(type_ids)
    unknown = np.setdiff1d(present, known)
    if unknown.size:
        raise SonataError(
            where, f"edge_type_id {int(unknown[0])} is not in {population.edge_types_file}"
        )
    # per-edge values, allocated only where an edge group gives the column (NaN where
    # its edges' group does not): the edge types give the rest
    values: dict[str, np.ndarray] = {}
    dynamics: dict[str, np.ndarray] = {}
    groups = [key for key in group if isinstance(group[key], h5py.Group) and key != "indices"]
    if groups and n:
        # No edge_group_id: every edge in group 0. No edge_group_index: an edge's row in
        # its group is its row in the file (`rows`). A group holding every edge (the
        # common case) is read without index arrays.
        group_ids = column("edge_group_id", np.int32) if "edge_group_id" in group else None
        group_index = column("edge_group_index", np.int64) if "edge_group_index" in group else rows
        for key in groups:
            if not key.isdigit():
                continue
            if group_ids is None:
                mine = slice(None) if int(key) == 0 else None
            else:
                hit = group_ids == int(key)
                count = int(np.count_nonzero(hit))
                mine = None if count == 0 else slice(None) if count == n else np.flatnonzero(hit)
                del hit
            if mine is None:
                continue
            edge_group = group[key]
            if isinstance(mine, slice):
                picked = group_index
            elif isinstance(group_index, slice):
                picked = np.arange(group_index.start, group_index.stop, dtype=np.int64)[mine]
            else:
                picked = group_index[mine]
            top = picked.stop - 1 if isinstance(picked, slice) else int(picked.max())
            for name in ("syn_weight", "nsyns", "delay"):
                if name not in edge_group:
                    continue
                data = edge_group[name]
                if top >= data.shape[0]:
                    raise SonataError(
                        f"{where}/{key}/{name}",
                        f"has {data.shape[0]} values but edge_group_index reaches {top}",
                    )
                read = _take(data, picked, np.float64)
                if isinstance(mine, slice) and name not in values:
                    values[name] = read
                else:
                    values.setdefault(name, np.full(n, np.nan))[mine] = read
                del read
            if "dynamics_params" in edge_group:
                _read_dynamics(
                    edge_group["dynamics_params"], picked, top, mine, n, dynamics,
                    f"{where}/{key}/dynamics_params",
                )  # fmt: skip
    # weight, nsyns and delay given per edge in dynamics_params win over the group's columns
    for name, into in (("syn_weight", "syn_weight"), ("weight", "syn_weight"), ("nsyns", "nsyns"),
                       ("delay", "delay")):  # fmt: skip
        given_column = dynamics.pop(name, None)
        if given_column is not None:
            given = ~np.isnan(given_column)
            if into not in values:
                values[into] = np.full(n, np.nan)
            values[into][given] = given_column[given]
    _check_dynamics(population, type_ids, dynamics, where)
    weight = values.get("syn_weight", np.full(n, np.nan))
    nsyns = values.get("nsyns")  # None: the edge types' (or 1) for every edge
    delay = values.get("delay", np.full(n, np.nan))
    for type_id in present:
        edge_type = population.types[int(type_id)]
        of_type = type_ids == type_id
        for array, fallback in (
            (weight, edge_type.syn_weight),
            (nsyns, edge_type.nsyns),
            (delay, edge_type.delay),
        ):
            if fallback is not None and array is not None:
                array[of_type & np.isnan(array)] = fallback
        if np.isnan(weight[of_type]).any():
            raise SonataError(
                where,
                f"edge type {int(type_id)} has no syn_weight (no syn_weight dataset, none in "
                f"{population.edge_types_file} or its dynamics_params)",
            )
        if nsyns is None and edge_type.nsyns is not None:
            weight[of_type] *= edge_type.nsyns  # BMTK's weight: syn_weight times nsyns
    if nsyns is not None:
        nsyns[np.isnan(nsyns)] = 1.0
        weight *= nsyns
        del nsyns
    delay[np.isnan(delay)] = DEFAULT_DELAY_MS
    sliced = isinstance(rows, slice)
    return EdgeTable(
        source=source, target=target, weight=weight, delay_ms=delay, edge_type_id=type_ids,
        type_ids=present, edge_id=None if sliced else rows, first_edge_id=rows.start if sliced else 0,
        dynamics=dynamics,
    )  # fmt: skip


def distinct(values: np.ndarray) -> np.ndarray:
    """The sorted distinct values of an integer array: by counting where their range is
    small (edge type ids: one pass instead of np.unique's hashing)."""
    if values.size == 0:
        return np.zeros(0, values.dtype)
    low, high = int(values.min()), int(values.max())
    if high - low > 4 * values.size + 1024:
        return np.unique(values)
    return (np.flatnonzero(np.bincount(values - low)) + low).astype(values.dtype)


def _take(dataset, rows, dtype) -> np.ndarray:
    """``dataset`` at ``rows``: a slice of its rows, or row numbers in any order."""
    if isinstance(rows, slice):
        return np.asarray(dataset[rows], dtype=dtype)
    return _read_rows(dataset, rows, dtype)


PER_EDGE_KEYS = ("syn_weight", "weight", "nsyns", "delay", "receptor_type")


def _read_dynamics(group, picked, top: int, mine, n: int, dynamics: dict, where: str) -> None:
    """An edge group's per-edge ``dynamics_params`` datasets into ``dynamics`` (rows
    ``mine`` of the table, dataset rows ``picked``, the highest ``top``); a dataset that
    is not one number per edge is refused by name."""
    import h5py

    for name in group:
        data = group[name]
        if not isinstance(data, h5py.Dataset) or data.ndim != 1 or data.dtype.kind not in "iuf":
            raise SonataError(
                f"{where}/{name}", "must be a dataset of one number per edge of the group"
            )
        if top >= data.shape[0]:
            raise SonataError(
                f"{where}/{name}",
                f"has {data.shape[0]} values but edge_group_index reaches {top}",
            )
        column = dynamics.setdefault(name, np.full(n, np.nan))
        column[mine] = _take(data, picked, np.float64)


def _check_dynamics(population, type_ids: np.ndarray, dynamics: dict, where: str) -> None:
    """Each per-edge parameter must be one the edge's synapse model takes (or
    ``receptor_type``): else an error naming the file, population and key."""
    for name, column in dynamics.items():
        given = ~np.isnan(column)
        for type_id in np.unique(type_ids[given]).tolist():
            edge_type = population.types[int(type_id)]
            from ..models import SYNAPSES

            known = SYNAPSES[edge_type.synapse]
            if name == "receptor_type" or name in known:
                continue
            shown = "static_synapse" if edge_type.synapse == "static" else edge_type.synapse
            allowed = ", ".join([*PER_EDGE_KEYS, *known])
            raise SonataError(
                f"{where}: dynamics_params/{name}",
                f"per-edge parameter {name!r} is not a parameter of {shown} (edge type {type_id}); "
                f"allowed per edge: {allowed}",
            )


CHUNK_ROWS = 1 << 20  # rows read at once when selecting edges (NEST's hyperslab size)
# Rows of the file per window of edge_windows: a build reads and connects one window at a
# time. The windows are the file's (not a rank's selection), so the order in which a
# target's edges are connected does not depend on the layout.
WINDOW_ROWS = 1 << 20


class _Selection:
    """Which rows of an edge population end on ``target_node_ids`` (every row when None
    or when they are all of the target population's ``size`` nodes): through
    ``indices/target_to_source`` where it exists (its edge ranges, kept as [start, stop)
    spans), else by a pass over ``target_node_id`` in chunks. With ``size``:
    SonataError for an edge ending on a node id >= size (outside the target
    ``population``), found where the rows are read."""

    def __init__(self, group, target_node_ids, size, where: str, population: str):
        self.dataset = group["target_node_id"]
        self.total = int(self.dataset.shape[0])
        self.size, self.where, self.population = size, where, population
        self.targets = self.spans = None
        if target_node_ids is None:
            return
        targets = np.unique(np.asarray(target_node_ids, dtype=np.int64))
        if (
            size is not None
            and targets.size == size
            and (size == 0 or (targets[0] == 0 and targets[-1] == size - 1))
        ):
            return  # every target: every row
        index = group.get("indices/target_to_source")
        if index is None or "node_id_to_range" not in index or "range_to_edge_id" not in index:
            self.targets = targets
            return
        to_range = index["node_id_to_range"]
        if size is not None and to_range.shape[0] > size:
            beyond = np.asarray(to_range[size:], dtype=np.int64)
            used = np.flatnonzero(beyond[:, 1] > beyond[:, 0])
            if used.size:
                raise self.outside(size + int(used[0]))
        targets = targets[(targets >= 0) & (targets < to_range.shape[0])]
        spans = (
            _read_rows(to_range, targets, np.int64) if targets.size else np.zeros((0, 2), np.int64)
        )
        spans = spans[spans[:, 1] > spans[:, 0]]
        if spans.size == 0:
            self.spans = np.zeros((0, 2), np.int64)
            return
        ranges = _read_rows(index["range_to_edge_id"], _spans_to_rows(spans), np.int64)
        ranges = ranges[ranges[:, 1] > ranges[:, 0]]
        self.spans = _merged(ranges)

    def outside(self, node_id: int) -> SonataError:
        return SonataError(
            self.where,
            f"target_node_id = {node_id} is outside population '{self.population}' "
            f"(node ids 0..{self.size - 1})",
        )

    def rows(self, start: int, stop: int):
        """The selected rows in [start, stop): a slice when every row is, else sorted
        row numbers."""
        if self.spans is not None:
            first = int(np.searchsorted(self.spans[:, 1], start, side="right"))
            last = int(np.searchsorted(self.spans[:, 0], stop, side="left"))
            return _spans_to_rows(np.clip(self.spans[first:last], start, stop))
        if self.targets is None:
            return slice(start, stop)  # _read_table checks the targets it reads
        rows = []
        for low in range(start, stop, CHUNK_ROWS):
            chunk = np.asarray(self.dataset[low : min(low + CHUNK_ROWS, stop)], dtype=np.int64)
            if self.size is not None and chunk.size and chunk.max() >= self.size:
                raise self.outside(int(chunk.max()))
            rows.append(low + np.flatnonzero(np.isin(chunk, self.targets)))
        return np.concatenate(rows) if rows else np.zeros(0, np.int64)


def _merged(spans: np.ndarray) -> np.ndarray:
    """[start, stop) spans sorted and with overlapping or touching ones joined."""
    spans = spans[np.argsort(spans[:, 0], kind="stable")]
    ends = np.maximum.accumulate(spans[:, 1])
    new = np.concatenate([[True], spans[1:, 0] > ends[:-1]])
    starts = spans[new, 0]
    stops = ends[np.concatenate([np.flatnonzero(new)[1:] - 1, [spans.shape[0] - 1]])]
    return np.stack([starts, stops], axis=1)


def _spans_to_rows(spans: np.ndarray) -> np.ndarray:
    """The rows of [start, stop) spans, concatenated (vectorised ``np.arange`` per span)."""
    spans = np.asarray(spans, dtype=np.int64).reshape(-1, 2)
    lengths = spans[:, 1] - spans[:, 0]
    if lengths.sum() == 0:
        return np.zeros(0, np.int64)
    offsets = np.repeat(spans[:, 0] - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
    return np.arange(lengths.sum(), dtype=np.int64) + offsets


def _read_rows(dataset, rows: np.ndarray, dtype) -> np.ndarray:
    """``dataset[rows]`` for rows in any order, read in windows of at most CHUNK_ROWS rows
    that hold wanted rows (the whole span once when it is short)."""
    rows = np.asarray(rows, dtype=np.int64)
    shape = (rows.size, *dataset.shape[1:])
    if rows.size == 0:
        return np.empty(shape, dtype=dtype)
    if _increasing(rows, strict=True) and rows[-1] - rows[0] + 1 == rows.size:  # one span
        return np.asarray(dataset[int(rows[0]) : int(rows[-1]) + 1], dtype=dtype)
    order = None if _increasing(rows) else np.argsort(rows, kind="stable")
    ordered = rows if order is None else rows[order]
    out = np.empty(shape, dtype=dtype)
    start = 0
    while start < ordered.size:
        low = int(ordered[start])
        stop = int(np.searchsorted(ordered, low + CHUNK_ROWS, side="left"))
        block = np.asarray(dataset[low : int(ordered[stop - 1]) + 1], dtype=dtype)
        if order is None:
            out[start:stop] = block[ordered[start:stop] - low]
        else:
            out[order[start:stop]] = block[ordered[start:stop] - low]
        start = stop
    return out


def _increasing(values: np.ndarray, strict: bool = False) -> bool:
    """Whether ``values`` never decrease (``strict``: always increase)."""
    steps = np.diff(values)
    return bool(np.all(steps > 0) if strict else np.all(steps >= 0))


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
