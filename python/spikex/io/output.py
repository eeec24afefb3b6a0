"""Result files: the canonical spike hash, ``summary.json`` and SONATA ``spikes.h5``.

Every file is written to a temporary name next to its destination and then renamed
with ``os.replace``, so a reader never sees a half-written file.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np

SUMMARY_FILE = "summary.json"
SPIKES_FILE = "spikes.h5"
STATE_FILE = "state.h5"  # SONATA report of record.state_cells


def canonical_order(steps: np.ndarray, gids: np.ndarray) -> np.ndarray:
    """Indices that sort spikes by step, then by gid.

    Parameters
    ----------
    steps, gids : numpy.ndarray
        Integer arrays of equal length.

    Returns
    -------
    numpy.ndarray
        Permutation (stable) putting the spikes in canonical order.
    """
    return np.lexsort((np.asarray(gids), np.asarray(steps)))


def spikes_sha256(steps: np.ndarray, gids: np.ndarray) -> str:
    """SHA-256 (hex) of the canonical spike list.

    Rows ``(step, gid)`` as two little-endian int64, sorted by step then gid,
    concatenated. Computed from integer steps, never from float times, so that
    it is exact.

    Parameters
    ----------
    steps, gids : numpy.ndarray
        Spike steps and gids (any order), gathered from every rank.

    Returns
    -------
    str
        64 hexadecimal characters.
    """
    steps = np.asarray(steps, dtype=np.int64)
    gids = np.asarray(gids, dtype=np.int64)
    if steps.shape != gids.shape:
        raise ValueError(f"spikes_sha256: {steps.size} steps but {gids.size} gids")
    order = canonical_order(steps, gids)
    rows = np.empty((steps.size, 2), dtype="<i8")
    rows[:, 0] = steps[order]
    rows[:, 1] = gids[order]
    return hashlib.sha256(rows.tobytes()).hexdigest()


def temporary_name(path: Path) -> Path:
    """A hidden name next to ``path`` for writing before the atomic rename."""
    return path.with_name(f".{path.name}.tmp-{os.getpid()}")


def write_summary(path: str | Path, summary: dict) -> None:
    """Write ``summary`` as JSON, atomically (``write_json``)."""
    write_json(path, summary)


def write_json(path: str | Path, content: dict) -> None:
    """Write ``content`` as JSON, atomically: a temporary name, fsync, then a rename.

    Parameters
    ----------
    path : str or Path
        Destination.
    content : dict
        JSON-serialisable.
    """
    path = Path(path)
    temporary = temporary_name(path)
    try:
        with open(temporary, "w", encoding="utf-8") as stream:
            json.dump(content, stream, indent=2)
            stream.write("\n")
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def write_sonata_spikes(
    path: str | Path,
    population: str | list,
    gids: np.ndarray,
    times_ms: np.ndarray,
) -> None:
    """Write a SONATA spike file, atomically.

    Layout per population: ``/spikes/<population>/node_ids`` (uint64, the cell's index in
    its population, as SONATA numbers nodes), ``/spikes/<population>/timestamps``
    (float64, ms), group attributes ``sorting = "by_time"`` and ``first_gid`` (spikex's
    gid of node 0, to map node ids back to gids).

    Parameters
    ----------
    path : str or Path
        Destination (``.../spikes.h5``).
    population : str or list of Population
        One SONATA population name for all spikes (node ids = gids), or the network's
        populations: one SONATA population each (every population gets a group, empty
        when it did not spike or was not recorded).
    gids, times_ms : numpy.ndarray
        Spikes already sorted by time (then gid).
    """
    import h5py  # imported here: only the writing rank needs it

    gids = np.asarray(gids, dtype=np.int64)
    times_ms = np.asarray(times_ms, dtype=np.float64)
    if isinstance(population, str):
        groups = [(population, 0, gids >= 0)]
    else:
        groups = [
            (pop.name, pop.first_gid, (gids >= pop.first_gid) & (gids < pop.stop_gid)) for pop in population
        ]
    path = Path(path)
    temporary = temporary_name(path)
    try:
        with h5py.File(temporary, "w") as spikes_file:
            for name, first_gid, keep in groups:
                group = spikes_file.create_group(f"spikes/{name}")
                group.attrs["sorting"] = "by_time"
                group.attrs["first_gid"] = np.uint64(first_gid)
                group.create_dataset("node_ids", data=(gids[keep] - first_gid).astype(np.uint64))
                timestamps = group.create_dataset("timestamps", data=times_ms[keep])
                timestamps.attrs["units"] = "ms"
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def write_sonata_report(path: str | Path, states: list[dict], populations: list, dt_ms: float) -> None:
    """Write recorded state variables as a SONATA report, atomically.

    Per population (of the recorded cells): ``/report/<population>/data`` (float64, one
    row per sampled time, one column per cell; attribute ``units``, ``variable``),
    ``/report/<population>/mapping/node_ids`` (uint64, index in the population),
    ``mapping/index_pointers`` (one element per cell), ``mapping/element_ids`` (0) and
    ``mapping/time`` = [start, stop, step] in ms (stop exclusive).
    """
    import h5py

    from ..models import state_unit

    path = Path(path)
    temporary = temporary_name(path)
    try:
        with h5py.File(temporary, "w") as report:
            for state in states:
                gids, times, values = state["gids"], state["times_ms"], state["values"]
                for pop in populations:
                    keep = (gids >= pop.first_gid) & (gids < pop.stop_gid)
                    if not keep.any():
                        continue
                    group = report.require_group(f"report/{pop.name}")
                    if "data" in group:
                        continue  # one variable per population: the first recording wins
                    data = group.create_dataset("data", data=values[:, keep])
                    data.attrs["units"] = state_unit(pop.model, state["variable"])
                    data.attrs["variable"] = state["variable"]
                    mapping = group.create_group("mapping")
                    cells = int(keep.sum())
                    mapping.create_dataset("node_ids", data=(gids[keep] - pop.first_gid).astype(np.uint64))
                    mapping.create_dataset("index_pointers", data=np.arange(cells + 1, dtype=np.uint64))
                    mapping.create_dataset("element_ids", data=np.zeros(cells, dtype=np.uint32))
                    step = float(times[1] - times[0]) if times.size > 1 else dt_ms
                    start = float(times[0]) if times.size else 0.0
                    mapping.create_dataset("time", data=np.array([start, start + step * times.size, step]))
                    mapping.attrs["first_gid"] = np.uint64(pop.first_gid)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def spikes_population(config: dict) -> str:
    """SONATA population name of a one-population run's spikes: its ``network.model``
    (runs write one SONATA population per created population, named as it is)."""
    return str(config.get("network", {}).get("model", "interval_fire"))


def sonata_population(path: str | Path) -> str:
    """The one population of a SONATA spike file (an error names them if there are more)."""
    import h5py

    with h5py.File(path, "r") as spikes_file:
        names = sorted(spikes_file.get("spikes", {}).keys())
    if len(names) != 1:
        raise ValueError(f"{path}: expected one spike population, found {names or 'none'}")
    return names[0]


def read_sonata_spikes(
    path: str | Path, population: str | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Read ``(node_ids, timestamps_ms)`` of one population of a SONATA spike file, or
    with ``population=None`` every population's spikes as spikex gids (node id +
    ``first_gid``), sorted by time then gid."""
    import h5py

    with h5py.File(path, "r") as spikes_file:
        if population is not None:
            group = spikes_file[f"spikes/{population}"]
            return np.asarray(group["node_ids"][:]), np.asarray(group["timestamps"][:])
        gids, times = [], []
        for group in spikes_file.get("spikes", {}).values():
            first = int(group.attrs.get("first_gid", 0))
            gids.append(np.asarray(group["node_ids"][:], dtype=np.int64) + first)
            times.append(np.asarray(group["timestamps"][:], dtype=np.float64))
    if not gids:
        raise ValueError(f"{path}: no spike population")
    gids_all, times_all = np.concatenate(gids), np.concatenate(times)
    order = np.lexsort((gids_all, times_all))
    return gids_all[order].astype(np.uint64), times_all[order]
