"""Build a spikex ``Network`` from a SONATA circuit (``Network.from_sonata``,
``[network] sonata``, ``spikex run simulation_config.json``).

One spikex population per SONATA node population, named as it and in node-id order, so
``gid = population.first_gid + node_id`` (``SonataCircuit.gids``) and ``spikes.h5`` holds
each population's spikes under its name with the circuit's node ids. Virtual nodes are
``spike_source_array`` cells fed by the config's spike inputs; edges are explicit-list
connections (one ``connect`` call per edge population and synapse setting); current
clamps are ``step_current_generator`` devices. Everything is read and checked before the
first cell is created, so a bad circuit leaves the network as it was.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .config import SonataConfig, load_config
from .edges import EdgePopulation, distinct, edge_populations, edge_windows
from .errors import SonataError
from .inputs import current_clamps, spike_trains, unsupported_inputs
from .node_sets import NodeSets
from .nodes import NodePopulation, read_node_populations
from .outputs import (
    SpikeFiles,
    grouped_summary,
    report_samples,
    report_specs,
    spike_files,
    spike_node_ids_from_file,
    summary_key,
    write_report,
    write_spike_files,
)

DELAY_TOLERANCE = 1e-9


@dataclass
class SonataCircuit:
    """What ``Network.from_sonata`` built (``network.sonata``).

    Attributes
    ----------
    config : SonataConfig
        The resolved configuration.
    populations : dict
        SONATA node population name -> spikex ``Population`` (gid = first_gid + node_id).
    node_populations : list of NodePopulation
    edge_populations : list of EdgePopulation
    connections : int
        Edges connected (all ranks).
    repeats : dict
        Virtual population name -> (Population ``<name>.repeats``, node id of each of its
        cells): the further spikes of a node in a step it spikes in already
        (``split_repeats``).
    reports : dict
        Report name -> index of its recording in ``Result.states`` (``record_state``).
    report_specs : dict
        Report name -> ``outputs.ReportSpec`` (file name, node set, times).
    recorded : dict
        Population name -> node ids whose spikes are recorded.
    spike_files : outputs.SpikeFiles
        The config's ``output.spikes_file`` / ``spikes_file_csv`` and sort order.
    summary_populations : str
        ``summary.json`` ``populations`` per SONATA population (``populations``), per node
        type (``node_types``) or per value of a node attribute (e.g. ``pop_name``).
    """

    config: SonataConfig
    populations: dict = field(default_factory=dict)
    repeats: dict = field(default_factory=dict)
    reports: dict = field(default_factory=dict)
    report_specs: dict = field(default_factory=dict)
    recorded: dict = field(default_factory=dict)
    spike_files: SpikeFiles = field(default_factory=SpikeFiles)
    summary_populations: str = "populations"
    node_populations: list = field(default_factory=list)
    edge_populations: list = field(default_factory=list)
    connections: int = 0

    def report(self, result, name: str) -> dict:
        """Report ``name`` of ``result`` as the report file holds it: ``{"times_ms",
        population: {"node_ids", "values"}}`` (samples before ``end_time`` only)."""
        spec = self.report_specs[name]
        state = result.states[self.reports[name]]
        times, values = report_samples(spec, state)
        names, ids = self.node_ids(state["gids"])
        out = {"times_ms": times}
        for population in spec.cells:
            keep = np.flatnonzero(names == population)
            out[population] = {"node_ids": ids[keep], "values": values[:, keep]}
        return out

    def grouped_summary(self, entries: dict, gids, recorded_ms: float) -> dict:
        """``summary["populations"]`` by ``summary_populations`` from the spikes' gids."""
        if self.summary_populations == "populations":
            return entries
        names, ids = self.node_ids(np.asarray(gids, dtype=np.int64))
        spikes = {name: ids[names == name] for name in self.populations}
        return grouped_summary(self, entries, spikes, self.recorded, recorded_ms)

    def grouped_summary_from_file(self, entries: dict, spikes_h5, recorded_ms: float) -> dict:
        """The same from a SONATA spike file (read in blocks)."""
        if self.summary_populations == "populations":
            return entries
        spikes = spike_node_ids_from_file(spikes_h5)
        return grouped_summary(self, entries, spikes, self.recorded, recorded_ms)

    def write_outputs(self, result, outdir, spikes_h5=None) -> list:
        """Write the report files and the config's spike files (rank 0, at the end of
        ``spikex run``; each atomically). Returns the paths written."""
        written = []
        for name, spec in self.report_specs.items():
            path = spec.path(outdir)
            write_report(path, spec, result.states[self.reports[name]], self)
            written.append(path)
        if spikes_h5 is not None:
            written += write_spike_files(spikes_h5, outdir, self.spike_files)
        return written

    @property
    def tstop_ms(self) -> float | None:
        """``run.tstop`` of a simulation config (None for a circuit config)."""
        return self.config.run_value("tstop") if self.config.run else None

    def gids(self, population: str, node_ids) -> np.ndarray:
        """spikex gids of ``node_ids`` of the SONATA ``population``."""
        pop = self.populations[population]
        ids = np.asarray(node_ids, dtype=np.int64)
        if ids.size and (ids.min() < 0 or ids.max() >= pop.size):
            raise ValueError(f"population {population!r}: node ids must be in 0..{pop.size - 1}")
        return ids + pop.first_gid

    def node_ids(self, gids) -> tuple[np.ndarray, np.ndarray]:
        """(population names, node ids) of spikex ``gids`` (``""`` and -1 for a gid that is in
        no SONATA population)."""
        gids = np.asarray(gids, dtype=np.int64)
        names = np.full(gids.size, "", dtype=object)
        ids = np.full(gids.size, -1, dtype=np.int64)
        for name, pop in self.populations.items():
            inside = (gids >= pop.first_gid) & (gids < pop.stop_gid)
            names[inside] = name
            ids[inside] = gids[inside] - pop.first_gid
        return names, ids


def simulation_run(path: str | Path) -> dict:
    """``{"tstop_ms", "dt_ms"}`` of a simulation config's ``run`` (keys absent for a circuit
    config), for the configuration layer."""
    config = load_config(path)
    run = {}
    if config.run:
        run["tstop_ms"] = config.run_value("tstop")
        run["dt_ms"] = config.run_value("dt")
    return run


def load_models(config) -> list[str]:
    """Loads the models the ``spikex`` section's ``models`` lists (NESTML files or built
    libraries, relative to the config's directory) on every rank, before the node types
    name them (``nest:<name>``: docs/user/nestml.md). Returns their names."""
    models = config.spikex.get("models", [])
    if not isinstance(models, list) or not all(isinstance(m, str) and m for m in models):
        raise SonataError(
            str(config.path), f"spikex.models = {models!r}: must be a list of paths (.nestml files or model libraries)"
        )
    if not models:
        return []
    from ..models import load_nestml

    return [load_nestml(Path(m) if Path(m).is_absolute() else config.path.parent / m) for m in models]


def build_from_sonata(
    network,
    path: str | Path,
    record_spikes: bool = True,
    input_rounding: str = "nest",
    summary_populations: str | None = None,
) -> SonataCircuit:
    """Add the circuit of ``path`` (simulation or circuit config) to ``network``.
    ``input_rounding``: how input spike times just after a grid point are read, as NEST
    (``"nest"``) or BMTK (``"bmtk"``) reads them (``inputs.INPUT_ROUNDING``);
    ``summary_populations``: ``summary.json`` populations by ``"populations"``,
    ``"node_types"`` or a node attribute (None: the config's ``spikex`` section says).

    Raises
    ------
    SonataError
        For a missing file, an undefined manifest variable, a model or synapse spikex lacks,
        an edge naming a node outside its population, a delay below dt, a missing column.
    """
    config = load_config(path)
    load_models(config)
    circuit = SonataCircuit(config=config)
    nodes = read_node_populations(config)
    if not nodes:
        raise SonataError(str(config.circuit_path), "networks.nodes holds no node population")
    by_name = {p.name: p for p in nodes}
    edges = edge_populations(config)
    for edge in edges:
        for end in (edge.source, edge.target):
            if end not in by_name:
                raise SonataError(
                    f"{edge.edges_file}: /edges/{edge.name}",
                    f"node_population {end!r} is not a node population of the circuit ({', '.join(by_name)})",
                )
        if by_name[edge.target].virtual:
            raise SonataError(
                f"{edge.edges_file}: /edges/{edge.name}",
                f"targets the virtual population {edge.target!r}: virtual nodes take no input",
            )
    node_sets = NodeSets(config, nodes)
    trains = spike_trains(config, node_sets, network.dt_ms, input_rounding)
    clamps = current_clamps(config, node_sets, network.dt_ms)
    skipped = unsupported_inputs(config)
    if skipped:
        warnings.warn(
            f"{config.path}: inputs {', '.join(skipped)} are of a type spikex does not read yet; left out",
            stacklevel=3,
        )
    reports = report_specs(config, node_sets, by_name, network.dt_ms)
    circuit.spike_files = spike_files(config)
    circuit.summary_populations = summary_key(config, summary_populations)
    if circuit.summary_populations not in ("populations", "node_types"):
        from .outputs import node_groups

        for population in nodes:
            if not population.virtual:
                node_groups(population, circuit.summary_populations, f"{config.path}: spikex")
    recorded = _recorded_nodes(config, node_sets, by_name)
    if circuit.spike_files.sort_order == "by_id" and circuit.spike_files.h5 in (None, "spikes.h5"):
        warnings.warn(
            f"{config.path}: spikes_sort_order by_id: spikes.h5 stays sorted by time; name "
            "another output.spikes_file for a file sorted by node id",
            stacklevel=3,
        )

    for population in nodes:
        train, repeats = trains.get(population.name, {}), []
        if population.node_virtual is not None and population.node_virtual.any():
            virtual = population.node_virtual
            train = {node: t for node, t in train.items() if virtual[node]}
            train, repeats = split_repeats(train, network.dt_ms)
        circuit.populations[population.name] = _create(network, population, train)
        if repeats:
            cells = network.create(
                "spike_source_array", len(repeats), name=f"{population.name}.repeats",
                params={"spike_times": [times for _, times in repeats]},
            )  # fmt: skip
            nodes_of = np.array([node for node, _ in repeats], dtype=np.int64)
            circuit.repeats[population.name] = (cells, nodes_of)
    # The edges are read when the network is built: each rank reads those ending on its
    # own cells, once every cell (also those created after this) has its rank.
    network._build_hooks.append(lambda: _connect_edges(network, circuit, edges, by_name))
    for clamp in clamps:
        device = network.create(
            "step_current_generator", 1,
            params={"amplitude_times": clamp.amplitude_times, "amplitude_values": clamp.amplitude_values},
            name=f"{clamp.name}.clamp",  # the input's name (apart from the SONATA populations')
        )  # fmt: skip
        targets = np.concatenate(
            [circuit.gids(name, ids) for name, ids in clamp.cells.items()]
            or [np.zeros(0, np.int64)]
        )
        if targets.size:
            network.connect(device.first_gid, targets, weight=1.0, delay_ms=network.dt_ms)
    circuit.recorded = recorded
    if record_spikes:
        record_node_spikes(network, circuit)
    for spec in reports:
        gids = np.concatenate([circuit.gids(pop, ids) for pop, ids in spec.cells.items()])
        try:
            circuit.reports[spec.name] = network.record_state(
                np.sort(gids), spec.variable, interval_ms=spec.interval_ms, start_ms=spec.start_ms
            )
        except ValueError as error:
            raise SonataError(f"{config.path}: reports.{spec.name}", str(error)) from None
        circuit.report_specs[spec.name] = spec
    circuit.node_populations, circuit.edge_populations = nodes, edges
    return circuit


def record_node_spikes(network, circuit: SonataCircuit) -> None:
    """Record the spikes of ``circuit.recorded`` (the simulation's node set, else every
    node that is not virtual)."""
    for name, ids in circuit.recorded.items():
        population = circuit.populations[name]
        if ids.size == population.size:
            network.record_spikes(population)
        elif ids.size:
            network.record_spikes(ids + population.first_gid)


def _recorded_nodes(config, node_sets, populations: dict) -> dict:
    """Population -> node ids whose spikes are recorded: the simulation config's
    ``node_set`` (SONATA: the cells simulated) without virtual nodes, else every node that
    is not virtual."""
    if config.node_set is None:
        cells = {name: p.real_node_ids for name, p in populations.items()}
    else:
        cells = node_sets.resolve(config.node_set, f"{config.path}: node_set")
    out = {}
    for name, ids in cells.items():
        virtual = populations[name].node_virtual
        ids = np.asarray(ids, dtype=np.int64)
        if virtual is not None:
            ids = ids[~virtual[ids]]
        if ids.size:
            out[name] = ids
    return out


def split_repeats(trains: dict, dt_ms: float) -> tuple[dict, list]:
    """NEST delivers every spike of a spike generator, several in one step too; a spikex
    cell spikes at most once per step. So the k-th spike (k >= 1) of a node within one
    step goes to a k-th cell of that node (a repeat cell, connected as the node is): the
    node's trains without those spikes, and ``[(node id, times)]`` of the repeat cells."""
    first: dict[int, np.ndarray] = {}
    repeats: list[tuple[int, np.ndarray]] = []
    for node, times in trains.items():
        times = np.sort(np.asarray(times, dtype=float))
        steps = _stamps(times, dt_ms)
        starts = np.searchsorted(steps, steps, side="left")
        layer = np.arange(steps.size) - starts  # 0 for the first spike of its step
        first[node] = times[layer == 0]
        for k in range(1, int(layer.max(initial=0)) + 1):
            repeats.append((node, times[layer == k]))
    return first, repeats


def _stamps(times: np.ndarray, dt_ms: float) -> np.ndarray:
    """The step a spike_source_array emits each time in (the rule of
    ``api/spike_times.stamps``, repeated here: ``sonata`` is below ``api``)."""
    steps = np.asarray(times, dtype=float) / dt_ms
    rounded = np.round(steps)
    return np.where(np.abs(steps - rounded) <= 1e-6, rounded, np.ceil(steps)).astype(np.int64)


def _create(network, population: NodePopulation, trains: dict):
    """The population's cells: one spikex population per run of one model (all of them
    when there is one run, named as the SONATA population), created one after the other;
    returns a Population spanning the whole SONATA population (gid = first_gid + node_id).
    Several runs: the network reports their spikes and summary under the SONATA name."""
    from dataclasses import replace

    runs = population.runs
    if len(runs) <= 1:
        run = runs[0] if runs else None
        return _create_run(network, population, run, trains, population.name)
    created, counts = [], {}
    for run in runs:
        counts[run.model] = counts.get(run.model, 0) + 1
        label = "virtual" if run.virtual else run.model
        name = f"{population.name}.{label}" + (
            f".{counts[run.model]}" if counts[run.model] > 1 else ""
        )
        created.append(_create_run(network, population, run, trains, name))
    whole = replace(created[0], size=population.size, model=population.model, name=population.name)
    network._population_groups.append(whole)
    return whole


def _create_run(network, population: NodePopulation, run, trains: dict, name: str):
    start, stop = (0, population.size) if run is None else (run.start, run.stop)
    if run is None or run.virtual:
        empty = np.zeros(0)
        times = [trains.get(node, empty) for node in range(start, stop)]
        return network.create(
            "spike_source_array", stop - start, params={"spike_times": times}, name=name
        )
    try:
        return network.create(run.model, run.size, params=run.params, name=name)
    except ValueError as error:
        raise SonataError(
            str(population.node_types_file),
            f"population '{population.name}' ({run.model}): {error}",
        ) from None


def _check_edges(edge: EdgePopulation, table, populations: dict, dt_ms: float) -> None:
    where = f"{edge.edges_file}: /edges/{edge.name}"
    for ids, end, column in (
        (table.source, edge.source, "source_node_id"),
        (table.target, edge.target, "target_node_id"),
    ):
        size = populations[end].size
        outside = (ids < 0) | (ids >= size)
        if outside.any():
            k = int(np.argmax(outside))
            edge_id = table.first_edge_id + k if table.edge_id is None else int(table.edge_id[k])
            raise SonataError(
                where,
                f"edge {edge_id}: {column} = {int(ids[k])} is outside population '{end}' (node ids 0..{size - 1})",
            )
    virtual = populations[edge.target].node_virtual
    if virtual is not None and table.target.size and virtual[table.target].any():
        k = int(np.argmax(virtual[table.target]))
        edge_id = table.first_edge_id + k if table.edge_id is None else int(table.edge_id[k])
        raise SonataError(
            where,
            f"edge {edge_id}: target_node_id = {int(table.target[k])} is a virtual node of "
            f"'{edge.target}': virtual nodes take no input",
        )
    short = table.delay_ms < dt_ms * (1.0 - DELAY_TOLERANCE)
    if short.any():
        k = int(np.argmax(short))
        edge_id = table.first_edge_id + k if table.edge_id is None else int(table.edge_id[k])
        raise SonataError(
            where,
            f"edge {edge_id} (edge type {int(table.edge_type_id[k])}): delay = {float(table.delay_ms[k])} ms is shorter than dt = {dt_ms} ms",
        )


def _connect_edges(network, circuit: SonataCircuit, edges: list, populations: dict) -> None:
    """Collective, at build: each rank reads the edges ending on its cells (``edge_windows``
    with its target node ids) and connects them (``local=True``), one window of the file's
    rows at a time, so that a rank holds one window's table besides what it connected; an
    error found on any rank is raised on every rank, before that window is connected."""
    local = np.asarray(network.local_gids(), dtype=np.int64)
    count = 0
    for edge in edges:
        target = circuit.populations[edge.target]
        mine = local[(local >= target.first_gid) & (local < target.stop_gid)] - target.first_gid
        windows = edge_windows(
            edge, target_node_ids=mine, target_size=populations[edge.target].size
        )
        settings: set = set()  # the per-edge synapse settings met so far (_connect_per_edge)
        while True:  # every rank has the same windows (the file's)
            table, message = None, ""
            try:
                table = next(windows, None)
                if table is not None:
                    _check_edges(edge, table, populations, network.dt_ms)
            except SonataError as error:
                message = str(error)
            message = _first_error(message)
            if message:
                raise SonataError(message)
            if table is None:
                break
            used = _used_types(edge, table)
            count += _connect(
                network, edge, table, circuit.populations, circuit.repeats.get(edge.source), used,
                settings,
            )  # fmt: skip
            del table
    circuit.connections = int(_gathered(np.array([count])).sum())


def _gathered(values: np.ndarray) -> np.ndarray:
    """(ranks, n) int64 array of every rank's ``values`` (the core's allgather)."""
    from .. import _core

    values = np.ascontiguousarray(values, dtype=np.int64)
    return np.asarray(_core.allgather_int64(values, False)).reshape(-1, values.size)


def _first_error(message: str) -> str:
    """The message of the lowest rank that has one, on every rank ("" when none)."""
    from .. import _core

    if _core.comm_size() == 1:
        return message
    data = message.encode()
    padded = data.ljust(-(-len(data) // 8) * 8, b"\0")
    lengths = _gathered(np.array([len(padded) // 8]))[:, 0]
    words = np.asarray(_core.allgather_int64(np.frombuffer(padded, "<i8").copy(), False))
    starts = np.concatenate([[0], np.cumsum(lengths)])
    for rank, length in enumerate(lengths):
        if length:
            return (
                words[starts[rank] : starts[rank] + length]
                .astype("<i8")
                .tobytes()
                .rstrip(b"\0")
                .decode()
            )
    return ""


def _used_types(edge: EdgePopulation, table) -> list[int]:
    """The edge types of ``edge`` that some rank's edges use (the same list on every rank)."""
    type_ids = np.array(sorted(edge.types), dtype=np.int64)
    flags = np.isin(type_ids, table.type_ids).astype(np.int64)
    return type_ids[_gathered(flags).any(axis=0)].tolist()


def _connect(
    network, edge: EdgePopulation, table, populations: dict, repeats, used: list[int], settings: set
) -> int:
    """This rank's edges (``local=True``): one connect call per synapse setting of the
    ``used`` edge types, the same calls on every rank (some maybe empty); the edges of a
    virtual node also from its repeat cells (``split_repeats``)."""
    count = int(table.target.size)
    rows = []
    if repeats is not None and count:
        cells, nodes_of = repeats
        rows = [np.flatnonzero(table.source == node) for node in nodes_of]
    # gids in place (the table is the caller's to drop): no second copy of the edges
    sources = table.source
    sources += populations[edge.source].first_gid
    targets = table.target
    targets += populations[edge.target].first_gid
    if repeats is not None and count:
        extra = np.concatenate(rows)
        sources = np.concatenate(
            [sources, np.repeat(cells.first_gid + np.arange(cells.size), [r.size for r in rows])]
        )
        targets = np.concatenate([targets, targets[extra]])
        table = type(table)(
            source=sources,  # (not read below)
            target=targets,
            weight=np.concatenate([table.weight, table.weight[extra]]),
            delay_ms=np.concatenate([table.delay_ms, table.delay_ms[extra]]),
            edge_type_id=np.concatenate([table.edge_type_id, table.edge_type_id[extra]]),
            type_ids=table.type_ids,
            dynamics={k: np.concatenate([v, v[extra]]) for k, v in table.dynamics.items()},
        )
    if edge.dynamics_names:
        return _connect_per_edge(network, edge, table, sources, targets, count, settings)
    settings: dict[tuple, list[int]] = {}
    for type_id in used:
        edge_type = edge.types[int(type_id)]
        key = (
            edge_type.synapse,
            tuple(sorted(edge_type.synapse_params.items())),
            edge_type.receptor,
        )
        settings.setdefault(key, []).append(int(type_id))
    for (synapse, params, receptor), type_ids in settings.items():
        keep = slice(None) if len(settings) == 1 else np.isin(table.edge_type_id, type_ids)
        try:
            network.connect(
                sources[keep], targets[keep], weight=table.weight[keep], delay_ms=table.delay_ms[keep],
                synapse=synapse, synapse_params=dict(params), receptor=receptor, local=True,
            )  # fmt: skip
        except ValueError as error:
            raise SonataError(
                f"{edge.edges_file}: /edges/{edge.name}", f"edge types {type_ids}: {error}"
            ) from None
    return count


MAX_PARAMETER_SETS = 32  # distinct synapse settings per edge population (each a synapse type)


def _connect_per_edge(
    network, edge: EdgePopulation, table, sources, targets, count: int, seen: set
) -> int:
    """Edges with per-edge synapse parameters (edge groups' ``dynamics_params``): one
    connect call per distinct (synapse, parameters, receptor) setting, the settings of
    every rank gathered so that every rank makes the same calls. A value an edge does
    not give is its edge type's (then the synapse model's default). ``seen``: the
    settings of the population's earlier windows (at most MAX_PARAMETER_SETS in all)."""
    from ..models import SYNAPSES

    where = f"{edge.edges_file}: /edges/{edge.name}"
    names = list(edge.dynamics_names)
    n = table.target.size
    rows = np.full((n, 1 + len(names)), np.nan)
    rows[:, 0] = table.edge_type_id
    for type_id in distinct(table.edge_type_id).tolist():
        edge_type = edge.types[int(type_id)]
        of_type = table.edge_type_id == type_id
        known = SYNAPSES[edge_type.synapse]
        for j, name in enumerate(names, start=1):
            column = table.dynamics.get(name)
            values = column[of_type] if column is not None else np.full(of_type.sum(), np.nan)
            if name == "receptor_type":
                fallback = float(edge_type.receptor)
            else:
                fallback = float(edge_type.synapse_params.get(name, known.get(name, np.nan)))
            rows[of_type, j] = np.where(np.isnan(values), fallback, values)
    rows[np.isnan(rows)] = np.nan  # one NaN bit pattern
    bits = np.ascontiguousarray(rows).view(np.int64)
    local, inverse = np.unique(bits, axis=0, return_inverse=True)
    width = bits.shape[1]
    sizes = _gathered(np.array([local.size]))[:, 0]
    from .. import _core

    everything = np.asarray(_core.allgather_int64(np.ascontiguousarray(local.ravel()), False))
    settings = np.unique(everything[: int(sizes.sum())].reshape(-1, width), axis=0)
    seen.update(row.tobytes() for row in settings)
    if len(seen) > MAX_PARAMETER_SETS:
        values = np.array([np.frombuffer(row) for row in sorted(seen)])
        spread = max(range(1, width), key=lambda j: np.unique(values[:, j]).size)
        raise SonataError(
            f"{where}: dynamics_params/{names[spread - 1]}",
            f"{len(seen)} distinct per-edge synapse settings (edge type and parameters); spikex "
            f"takes at most {MAX_PARAMETER_SETS} per edge population (each is a synapse type): give "
            "the parameter fewer distinct values, or per edge type",
        )
    index = {row.tobytes(): k for k, row in enumerate(settings)}
    global_of_local = np.array([index[row.tobytes()] for row in local], dtype=np.int64)
    setting_of_edge = global_of_local[inverse.ravel()] if n else np.zeros(0, np.int64)
    calls: dict[tuple, list[int]] = {}
    for k, row in enumerate(settings.view(np.float64)):
        edge_type = edge.types[int(row[0])]
        params = dict(edge_type.synapse_params)
        receptor = edge_type.receptor
        for name, value in zip(names, row[1:].tolist(), strict=True):
            if np.isnan(value):
                continue
            if name == "receptor_type":
                receptor = int(value)
            elif name in SYNAPSES[edge_type.synapse]:
                params[name] = value
        key = (edge_type.synapse, tuple(sorted(params.items())), receptor)
        calls.setdefault(key, []).append(k)
    for (synapse, params, receptor), members in calls.items():
        keep = np.isin(setting_of_edge, members)
        try:
            network.connect(
                sources[keep], targets[keep], weight=table.weight[keep], delay_ms=table.delay_ms[keep],
                synapse=synapse, synapse_params=dict(params), receptor=receptor, local=True,
            )  # fmt: skip
        except ValueError as error:
            shown = ", ".join(f"{name} = {value}" for name, value in params)
            raise SonataError(
                where, f"per-edge synapse parameters ({synapse}: {shown}): {error}"
            ) from None
    return count
