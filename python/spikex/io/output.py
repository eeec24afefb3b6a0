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
    """Write ``summary`` as JSON, atomically.

    Parameters
    ----------
    path : str or Path
        Destination (``.../summary.json``).
    summary : dict
        JSON-serialisable summary.
    """
    path = Path(path)
    temporary = temporary_name(path)
    try:
        with open(temporary, "w", encoding="utf-8") as stream:
            json.dump(summary, stream, indent=2)
            stream.write("\n")
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def write_sonata_spikes(
    path: str | Path, population: str, gids: np.ndarray, times_ms: np.ndarray
) -> None:
    """Write a SONATA spike file, atomically.

    Layout: ``/spikes/<population>/node_ids`` (uint64), ``/spikes/<population>/timestamps``
    (float64, ms), group attribute ``sorting = "by_time"``.

    Parameters
    ----------
    path : str or Path
        Destination (``.../spikes.h5``).
    population : str
        SONATA node population name.
    gids, times_ms : numpy.ndarray
        Spikes already sorted by time (then gid).
    """
    import h5py  # imported here: only the writing rank needs it

    path = Path(path)
    temporary = temporary_name(path)
    try:
        with h5py.File(temporary, "w") as spikes_file:
            group = spikes_file.create_group(f"spikes/{population}")
            group.attrs["sorting"] = "by_time"
            group.create_dataset("node_ids", data=np.asarray(gids, dtype=np.uint64))
            timestamps = group.create_dataset(
                "timestamps", data=np.asarray(times_ms, dtype=np.float64)
            )
            timestamps.attrs["units"] = "ms"
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def spikes_population(config: dict) -> str:
    """SONATA population name of a configuration run's spikes: its ``network.model``
    (``interval_fire``, ``iaf_psc_alpha``, ``hpc_benchmark``; one population per run)."""
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
    """Read ``(node_ids, timestamps_ms)`` of one population of a SONATA spike file
    (``population=None``: the file's only population)."""
    import h5py

    population = sonata_population(path) if population is None else population
    with h5py.File(path, "r") as spikes_file:
        group = spikes_file[f"spikes/{population}"]
        return np.asarray(group["node_ids"][:]), np.asarray(group["timestamps"][:])
