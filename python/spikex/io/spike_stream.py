"""A SONATA spike file written in chunks while the run goes on (rank 0 only).

``write_sonata_spikes`` needs every spike of the run in memory at the end. A
``SpikeStream`` takes the spikes one chunk (a time window of the run) at a time, so that
the writing rank holds one chunk, and gives the same file: per population
``/spikes/<name>`` with attributes ``sorting = "by_time"`` and ``first_gid`` (uint64),
datasets ``node_ids`` (uint64) and ``timestamps`` (float64, attribute ``units = "ms"``),
every population a group, empty when it did not spike. The datasets are chunked and
resizable (``CHUNK_ROWS`` rows per HDF5 chunk). A running SHA-256 over the rows
``(step, gid)`` (little-endian int64) of everything appended equals ``spikes_sha256`` of
all the spikes, because the chunks arrive in canonical order.

``spikex run`` makes its ``spikes.h5`` with it from the spike log (``spike_log.py``),
which is what survives a crash: an HDF5 file open for writing may not.

Errors: ``ValueError`` with one line in ``append`` means a bug in the caller (the spikes
are not in order); a file that cannot be written (a full disk) is an ``OSError`` naming
it.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import itertools
import os
import re
from pathlib import Path
from typing import Self

import numpy as np

CHUNK_ROWS = 1 << 16  # HDF5 chunk: 512 KiB of node ids, 512 KiB of timestamps


class SpikeStream:
    """A SONATA spike file to which the spikes of a run are appended chunk by chunk.

    Parameters
    ----------
    path : str or Path
        The HDF5 file to create (replaced if it exists). The caller gives a temporary
        name and renames the file when the run is complete.
    populations : str or list of Population
        One SONATA population name for all spikes (node ids = gids), or the network's
        populations (``name``, ``first_gid``, ``stop_gid``): one SONATA population each,
        as in ``write_sonata_spikes``.
    dt_ms : float
        Time step: a spike's timestamp is ``step * dt_ms``.

    Examples
    --------
    >>> with SpikeStream(tmp / "spikes.h5", "cells", 0.025) as stream:  # doctest: +SKIP
    ...     stream.append(np.array([3, 3, 8]), np.array([0, 5, 2]))
    ...     stream.sha256() == spikes_sha256([3, 3, 8], [0, 5, 2])
    True
    """

    def __init__(self, path: str | Path, populations, dt_ms: float) -> None:
        import h5py  # imported here: only the writing rank needs it

        self.path = Path(path)
        self.dt_ms = _time_step(dt_ms)
        self._groups = _population_ranges(populations)
        self._names = [name for name, _, _ in self._groups]
        # Populations by first gid, for finding a gid's population with one search.
        by_first = sorted(range(len(self._groups)), key=lambda k: self._groups[k][1])
        self._order = np.array(by_first, dtype=np.int64)
        self._firsts = np.array([self._groups[k][1] for k in by_first], dtype=np.int64)
        self._stops = np.array([self._groups[k][2] for k in by_first], dtype=np.int64)
        self._rows = [0] * len(self._groups)
        self._last: tuple[int, int] | None = None  # (step, gid) of the last row appended
        self._hash = hashlib.sha256()
        self._file = h5py.File(self.path, "w")
        self._datasets = []
        for name, first_gid, _ in self._groups:
            group = self._file.create_group(f"spikes/{name}")
            group.attrs["sorting"] = "by_time"
            group.attrs["first_gid"] = np.uint64(first_gid)
            node_ids = group.create_dataset(
                "node_ids", shape=(0,), maxshape=(None,), dtype=np.uint64, chunks=(CHUNK_ROWS,)
            )
            timestamps = group.create_dataset(
                "timestamps", shape=(0,), maxshape=(None,), dtype=np.float64, chunks=(CHUNK_ROWS,)
            )
            timestamps.attrs["units"] = "ms"
            self._datasets.append((node_ids, timestamps))

    # ---- what has been written ---------------------------------------------------------

    @property
    def rows(self) -> int:
        """Spikes appended so far (all populations)."""
        return sum(self._rows)

    @property
    def population_rows(self) -> dict[str, int]:
        """Rows written so far per SONATA population (what a checkpoint records)."""
        return dict(zip(self._names, self._rows, strict=True))

    @property
    def population_counts(self) -> dict[str, int]:
        """Spikes recorded so far per population, by name (``summary.json``
        ``populations[NAME]["spikes"]``): the same numbers as ``population_rows``."""
        return self.population_rows

    def sha256(self) -> str:
        """``spikes_sha256`` of every spike appended so far (the stream goes on)."""
        return self._hash.copy().hexdigest()

    # ---- writing -----------------------------------------------------------------------

    def append(self, steps: np.ndarray, gids: np.ndarray) -> None:
        """Append one chunk of the run.

        Parameters
        ----------
        steps, gids : numpy.ndarray
            Integer arrays of equal length, in canonical order (by step, then gid); the
            chunk comes after every earlier one: its first ``(step, gid)`` is not before
            the last one appended.

        Raises
        ------
        ValueError
            The spikes are out of order, a gid belongs to no population, or the arrays
            are not integer arrays of one length (a bug in the caller).
        """
        steps, gids = _integer_rows(steps, gids)
        # Block by block, so that the stream's own arrays stay small whatever the chunk;
        # everything is checked first: a refused chunk writes nothing.
        blocks = [slice(start, start + CHUNK_ROWS) for start in range(0, steps.size, CHUNK_ROWS)]
        last = self._last
        for block in blocks:
            last = self._check_order(steps[block], gids[block], block.start, last)
            self._population_slots(gids[block])
        with self._write_errors():
            for block in blocks:
                self._append_block(steps[block], gids[block])
        self._last = last

    def flush(self) -> None:
        """Write everything appended to the file and to the disk (``fsync``): a process
        killed after this leaves a readable file with these rows.

        Raises
        ------
        OSError
            The file cannot be written (a full disk: ``errno.ENOSPC``), one line.
        """
        with self._write_errors():
            self._file.flush()
            os.fsync(self._file.id.get_vfd_handle())

    @contextlib.contextmanager
    def _write_errors(self):
        """HDF5 reports a failed write as RuntimeError with the system's message inside:
        an OSError of one line instead, naming the file."""
        try:
            yield
        except (OSError, RuntimeError) as error:
            text = str(error)
            found = re.search(r"errno = (\d+), error message = '([^']*)'", text)
            number = int(found.group(1)) if found else getattr(error, "errno", None) or errno.EIO
            reason = found.group(2) if found else (getattr(error, "strerror", None) or text.splitlines()[0])
            raise OSError(number, f"cannot write spikes to {self.path}: {reason}") from None

    def close(self) -> None:
        """Close the file (again: nothing). The counts and ``sha256()`` stay readable."""
        if self._file.id.valid:
            self._file.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- private -----------------------------------------------------------------------

    def _check_order(self, steps, gids, offset: int, previous) -> tuple[int, int]:
        """Check a block at row ``offset`` of a chunk against ``previous``, the row before
        it (in the chunk, or the last of earlier chunks); returns its own last row."""
        first = (int(steps[0]), int(gids[0]))
        if offset == 0 and first[0] < 0:
            raise ValueError(f"SpikeStream.append: negative step {first[0]}")
        if previous is not None and first < previous:
            if offset == 0:
                raise ValueError(
                    f"SpikeStream.append: the chunk starts at (step, gid) = {first}, before "
                    f"the last row of an earlier chunk {previous}: chunks must be consecutive "
                    "time windows"
                )
            _out_of_order(offset, first, previous)
        step_change = np.diff(steps)
        backwards = (step_change < 0) | ((step_change == 0) & (np.diff(gids) < 0))
        if backwards.any():
            row = int(np.argmax(backwards)) + 1
            _out_of_order(
                offset + row,
                (int(steps[row]), int(gids[row])),
                (int(steps[row - 1]), int(gids[row - 1])),
            )
        return int(steps[-1]), int(gids[-1])

    def _append_block(self, steps: np.ndarray, gids: np.ndarray) -> None:
        """Write a checked block and add it to the hash."""
        rows = np.empty((steps.size, 2), dtype="<i8")
        rows[:, 0] = steps
        rows[:, 1] = gids
        timestamps = steps * self.dt_ms  # exactly as Network._result computes them
        if len(self._groups) == 1:
            self._extend(0, gids, timestamps)
        else:
            slot = self._population_slots(gids)
            by_population = np.argsort(slot, kind="stable")  # keeps time order within each
            counts = np.bincount(slot, minlength=len(self._groups))
            start = 0
            for index, count in enumerate(counts):
                if count:
                    taken = by_population[start : start + count]
                    self._extend(index, gids[taken], timestamps[taken])
                    start += count
        self._hash.update(rows)

    def _population_slots(self, gids: np.ndarray) -> np.ndarray:
        """Index in ``self._groups`` of each gid's population."""
        position = np.searchsorted(self._firsts, gids, side="right") - 1
        inside = position >= 0
        inside[inside] = gids[inside] < self._stops[position[inside]]
        if not inside.all():
            gid = int(gids[np.argmin(inside)])
            raise ValueError(f"SpikeStream.append: gid {gid} belongs to no population of the file")
        return self._order[position]

    def _extend(self, index: int, gids: np.ndarray, timestamps: np.ndarray) -> None:
        self._write(index, (gids - self._groups[index][1]).astype(np.uint64), timestamps)

    def _write(self, index: int, node_ids: np.ndarray, timestamps: np.ndarray) -> None:
        """Append rows to population ``index``'s datasets."""
        node_dataset, timestamp_dataset = self._datasets[index]
        start = self._rows[index]
        stop = start + node_ids.size
        node_dataset.resize((stop,))
        timestamp_dataset.resize((stop,))
        node_dataset[start:stop] = node_ids
        timestamp_dataset[start:stop] = timestamps
        self._rows[index] = stop


def _time_step(dt_ms) -> float:
    value = float(dt_ms)
    if not np.isfinite(value) or value <= 0.0:
        raise ValueError(f"SpikeStream: dt_ms = {dt_ms!r}: must be a number > 0")
    return value


def _population_ranges(populations) -> list[tuple[str, int, int]]:
    """``(name, first_gid, stop_gid)`` per SONATA population, in the caller's order."""
    if isinstance(populations, str):
        return [(populations, 0, np.iinfo(np.int64).max)]
    groups = [(str(pop.name), int(pop.first_gid), int(pop.stop_gid)) for pop in populations]
    if not groups:
        raise ValueError("SpikeStream: no population")
    names = [name for name, _, _ in groups]
    if len(set(names)) != len(names):
        raise ValueError(f"SpikeStream: population names must differ: {', '.join(names)}")
    spans = sorted((first, stop, name) for name, first, stop in groups)
    for (_, stop, name), (first, _, other) in itertools.pairwise(spans):
        if first < stop:
            raise ValueError(f"SpikeStream: populations {name} and {other} share gids")
    return groups


def _integer_rows(steps, gids) -> tuple[np.ndarray, np.ndarray]:
    steps, gids = np.asarray(steps), np.asarray(gids)
    if steps.ndim != 1 or steps.shape != gids.shape:
        raise ValueError(
            f"SpikeStream.append: steps and gids must be 1-D arrays of one length, "
            f"got shapes {steps.shape} and {gids.shape}"
        )
    for name, array in (("steps", steps), ("gids", gids)):
        if array.size and array.dtype.kind not in "iu":
            raise ValueError(f"SpikeStream.append: {name} must be integers, got {array.dtype}")
    return steps.astype(np.int64, copy=False), gids.astype(np.int64, copy=False)


def _out_of_order(row: int, spike: tuple[int, int], before: tuple[int, int]) -> None:
    raise ValueError(
        f"SpikeStream.append: spikes not in canonical order (step, gid): row {row} "
        f"({spike[0]}, {spike[1]}) comes after ({before[0]}, {before[1]})"
    )
