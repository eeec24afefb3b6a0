"""SONATA inputs of a simulation config: spike trains for virtual nodes and current clamps.

* ``input_type: spikes`` (``module`` ``h5`` or ``sonata``): a SONATA spike file,
  ``/spikes/<population>/{node_ids,timestamps}`` or the older ``/spikes/{gids,timestamps}``
  (its ids are node ids of the node set's one population); ``module: csv``: BMTK's spike
  CSV (``timestamps population node_ids``, space separated). The spikes of the node set's
  nodes become their ``spike_source_array`` trains (times in ms; a time off the grid is
  emitted at the end of its step). Two readings of a time just after a grid point
  (``INPUT_ROUNDING``): ``nest`` (NEST's ``SonataNetwork``, whose spike_train_injector,
  like NEST's spike_generator, first rounds a time to NEST's tic, ``NEST_TICS_PER_MS``: a
  time within half a tic, 0.5 us, of a grid point is on that point;
  ``nest_grid_times``) and ``bmtk`` (BMTK's pointnet, whose spike_generator with
  ``precise_times`` sends every time that is not on the grid at the end of its step).
* ``input_type: current_clamp`` (``module: IClamp``): ``amp`` (pA, as NEST and BMTK's
  pointnet take it), ``delay`` and ``duration`` (ms), each a number or lists of equal
  length: one ``step_current_generator`` per input, on from ``delay`` to
  ``delay + duration``, connected to the node set's cells with weight 1 and delay dt
  (as BMTK's pointnet does; onsets at or before dt are skipped, as there).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import SonataError
from .node_sets import NodeSets

SPIKE_MODULES = ("h5", "sonata", "hdf5", "csv")
NEST_TICS_PER_MS = 1000  # NEST's default time base: 1 tic = 1 us
INPUT_ROUNDING = ("nest", "bmtk")


def nest_grid_times(times: np.ndarray, dt_ms: float) -> np.ndarray:
    """Spike times as NEST's spike generators read them (``Time::ms``): a time that rounds
    to a whole tic on the grid becomes that grid point exactly; the others stay (and are
    emitted at the end of their step)."""
    times = np.asarray(times, dtype=float)
    tics = np.floor(times * NEST_TICS_PER_MS + 0.5).astype(np.int64)
    tics_per_step = round(dt_ms * NEST_TICS_PER_MS)
    if tics_per_step < 1:
        return times
    on_grid = tics % tics_per_step == 0
    return np.where(on_grid, (tics // tics_per_step) * dt_ms, times)


@dataclass
class CurrentClamp:
    """One current-clamp input: a step current for the cells of its node set."""

    name: str
    amplitude_times: list
    amplitude_values: list
    cells: dict  # population -> node ids


def spike_trains(
    config, node_sets: NodeSets, dt_ms: float, rounding: str = "nest"
) -> dict[str, dict[int, np.ndarray]]:
    """``{population: {node id: sorted spike times (ms)}}`` of every spike input; with
    ``rounding="nest"`` on NEST's grid of ``dt_ms`` (``nest_grid_times``)."""
    if rounding not in INPUT_ROUNDING:
        raise ValueError(
            f"input_rounding = {rounding!r}: must be one of {', '.join(INPUT_ROUNDING)}"
        )
    grid = nest_grid_times if rounding == "nest" else (lambda times, dt: times)
    trains: dict[str, dict[int, list]] = {}
    for name, entry in config.inputs.items():
        where = f"{config.path}: inputs.{name}"
        if not isinstance(entry, dict) or entry.get("input_type") != "spikes":
            continue
        module = entry.get("module", "h5")
        if module not in SPIKE_MODULES:
            raise SonataError(
                where,
                f"module = {module!r}: spikex reads SONATA spike files (module h5 or sonata) and BMTK's "
                f"spike CSV files (module csv), not yet {module!r}",
            )
        if "input_file" not in entry:
            raise SonataError(where, "missing 'input_file'")
        cells = node_sets.resolve(entry.get("node_set"), where) if "node_set" in entry else None
        read = _read_spike_csv if module == "csv" else _read_spike_file
        for population, node_ids, times in read(Path(entry["input_file"]), cells, where):
            size = node_sets.populations[population].size
            if node_ids.size and (node_ids.min() < 0 or node_ids.max() >= size):
                bad = int(node_ids[(node_ids < 0) | (node_ids >= size)][0])
                raise SonataError(
                    entry["input_file"],
                    f"node id {bad} is outside population '{population}' (node ids 0..{size - 1})",
                )
            keep = (
                np.isin(node_ids, cells[population])
                if cells is not None
                else np.ones(node_ids.size, bool)
            )
            target = trains.setdefault(population, {})
            for node_id, time in zip(node_ids[keep].tolist(), times[keep].tolist(), strict=True):
                target.setdefault(node_id, []).append(time)
    return {
        pop: {node: np.sort(grid(np.asarray(t, dtype=float), dt_ms)) for node, t in per.items()}
        for pop, per in trains.items()
    }


def _read_spike_csv(path: Path, cells, where: str):
    """BMTK's spike CSV: space separated, header ``timestamps population node_ids`` (without
    ``population`` the node set's one population; without a header: timestamps, node_ids)."""
    import csv

    if not path.is_file():
        raise SonataError(where, f"input_file {path}: file not found")
    with open(path, newline="", encoding="utf-8") as stream:
        rows = [row for row in csv.reader(stream, delimiter=" ", skipinitialspace=True) if row]
    header = ["timestamps", "node_ids"]
    if rows and not _is_number(rows[0][0]):
        header, rows = [name.strip() for name in rows[0]], rows[1:]
    for column in ("timestamps", "node_ids"):
        if column not in header:
            raise SonataError(str(path), f"missing column '{column}' (columns: {' '.join(header)})")
    columns = {name: [row[k] for row in rows] for k, name in enumerate(header)}
    try:
        times = np.asarray(columns["timestamps"], dtype=float)
        node_ids = np.asarray(columns["node_ids"], dtype=np.int64)
    except (ValueError, IndexError) as error:
        raise SonataError(str(path), f"timestamps and node_ids must be numbers: {error}") from None
    if "population" in columns:
        populations = np.asarray(columns["population"], dtype=object)
    else:
        if cells is None or len(cells) != 1:
            raise SonataError(
                where,
                f"{path} has no population column: its node_set must name one node population",
            )
        populations = np.full(times.size, next(iter(cells)), dtype=object)
    for population in dict.fromkeys(populations.tolist()):
        if cells is not None and population not in cells:
            continue
        keep = populations == population
        yield population, node_ids[keep], times[keep]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _read_spike_file(path: Path, cells, where: str):
    import h5py

    if not path.is_file():
        raise SonataError(where, f"input_file {path}: file not found")
    with h5py.File(path, "r") as handle:
        if "spikes" not in handle:
            raise SonataError(str(path), "no /spikes group: not a SONATA spike file")
        spikes = handle["spikes"]
        groups = [key for key in spikes if isinstance(spikes[key], h5py.Group)]
        if not groups:  # the older layout: /spikes/{gids,timestamps}
            ids_name = "node_ids" if "node_ids" in spikes else "gids"
            if ids_name not in spikes or "timestamps" not in spikes:
                raise SonataError(
                    str(path),
                    "needs /spikes/<population>/{node_ids,timestamps} or /spikes/{gids,timestamps}",
                )
            if cells is None or len(cells) != 1:
                raise SonataError(
                    where,
                    f"{path} has no population names (/spikes/{ids_name}): its node_set must name one node population",
                )
            population = next(iter(cells))
            yield (
                population,
                np.asarray(spikes[ids_name][:], np.int64),
                np.asarray(spikes["timestamps"][:], float),
            )
            return
        for population in groups:
            if cells is not None and population not in cells:
                continue
            group = spikes[population]
            ids_name = "node_ids" if "node_ids" in group else "gids"
            if ids_name not in group or "timestamps" not in group:
                raise SonataError(str(path), f"/spikes/{population} needs node_ids and timestamps")
            yield (
                population,
                np.asarray(group[ids_name][:], np.int64),
                np.asarray(group["timestamps"][:], float),
            )


def current_clamps(config, node_sets: NodeSets, dt_ms: float) -> list[CurrentClamp]:
    """Every ``current_clamp`` input, as BMTK's pointnet makes it."""
    clamps = []
    for name, entry in config.inputs.items():
        where = f"{config.path}: inputs.{name}"
        if not isinstance(entry, dict) or entry.get("input_type") != "current_clamp":
            continue
        if entry.get("module", "IClamp") != "IClamp":
            raise SonataError(
                where,
                f"module = {entry.get('module')!r}: spikex reads current clamps of module IClamp only",
            )
        lists = {}
        for key in ("amp", "delay", "duration"):
            if key not in entry:
                raise SonataError(where, f"missing '{key}'")
            value = entry[key]
            value = value if isinstance(value, list) else [value]
            if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
                raise SonataError(
                    where, f"{key} = {entry[key]!r}: must be a number or a list of numbers"
                )
            lists[key] = [float(v) for v in value]
        if not len(lists["amp"]) == len(lists["delay"]) == len(lists["duration"]):
            raise SonataError(where, "amp, delay and duration must have equal lengths")
        times, values = [], []
        for k, (amp, delay, duration) in enumerate(
            zip(lists["amp"], lists["delay"], lists["duration"], strict=True)
        ):
            if delay <= dt_ms:
                continue
            times.append(delay)
            values.append(amp)
            if k + 1 == len(lists["delay"]) or delay + duration <= lists["delay"][k + 1]:
                times.append(delay + duration)
                values.append(0.0)
        cells = (
            node_sets.resolve(entry.get("node_set"), where)
            if "node_set" in entry
            else {
                p: pop.real_node_ids
                for p, pop in node_sets.populations.items()
                if pop.real_node_ids.size
            }
        )
        clamps.append(CurrentClamp(name, times, values, cells))
    return clamps


def unsupported_inputs(config) -> list[str]:
    """Names of inputs of a type spikex does not read (a warning names them)."""
    return [
        name for name, entry in config.inputs.items()
        if not isinstance(entry, dict) or entry.get("input_type") not in ("spikes", "current_clamp")
    ]  # fmt: skip
