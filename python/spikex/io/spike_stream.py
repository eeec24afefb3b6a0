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

``flush()`` makes what was appended so far survive the process: a checkpoint records
``population_rows`` and ``sha256()`` after a flush, and ``SpikeStream.resume`` starts a
new stream from such a file, keeping exactly the recorded rows and checking the hash.

Errors are ``ValueError`` with one line: in ``append`` they mean a bug in the caller (the
spikes are not in order), in ``resume`` a spike file that does not match its checkpoint.
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
BLOCK_ROWS = 1 << 20  # rows per population read at a time by ``resume``


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

    # ---- resuming from a checkpoint ----------------------------------------------------

    @classmethod
    def resume(
        cls,
        source: str | Path,
        population_rows: dict[str, int],
        expected_sha256: str,
        path: str | Path,
        populations,
        dt_ms: float,
        *,
        block_rows: int = BLOCK_ROWS,
    ) -> SpikeStream:
        """A new stream at ``path`` holding the first rows of ``source`` recorded by a
        checkpoint, ready for further ``append``.

        The populations of ``source`` are merged in canonical order block by block
        (``block_rows`` rows of each population at a time, plus the spikes of one step),
        never loaded whole; the hash of the kept rows must equal ``expected_sha256``.
        Rows after the checkpoint's are left out. ``source`` is only read.

        Parameters
        ----------
        source : str or Path
            A spike file written by an earlier ``SpikeStream`` (flushed, possibly killed).
        population_rows : dict
            ``population_rows`` at the checkpoint: rows to keep per population.
        expected_sha256 : str
            ``sha256()`` at the checkpoint.
        path, populations, dt_ms
            As for ``SpikeStream``; ``path`` must not be ``source``.
        block_rows : int
            Rows read per population at a time.

        Raises
        ------
        ValueError
            One line naming ``source`` and what is wrong: no such file, not HDF5, a
            population missing or with fewer rows than recorded, timestamps that are not
            steps of ``dt_ms``, or a hash that differs from the checkpoint's.
        """
        import h5py

        source, path = Path(source), Path(path)
        prefix = f"spike file {source}"
        if not source.is_file():
            raise ValueError(f"{prefix}: no such file")
        if path.exists() and path.resolve() == source.resolve():
            raise ValueError(f"{prefix}: cannot resume into the same file (give another path)")
        if block_rows < 1:
            raise ValueError(f"SpikeStream.resume: block_rows = {block_rows}: must be >= 1")
        try:
            source_file = h5py.File(source, "r")
        except OSError as error:
            raise ValueError(f"{prefix}: not a readable HDF5 file ({_first_line(error)})") from None
        stream = cls(path, populations, dt_ms)
        try:
            with source_file:
                readers = stream._readers(source_file, population_rows, prefix)
                stream._copy_merged(readers, block_rows)
            if stream.sha256() != expected_sha256:
                raise ValueError(
                    f"{prefix}: its first {stream.rows} spikes have spikes_sha256 "
                    f"{stream.sha256()[:16]}..., the checkpoint recorded {expected_sha256[:16]}..."
                )
        except OSError as error:  # h5py: a damaged file, or no room for the copy
            stream._discard()
            raise ValueError(
                f"{prefix}: cannot be copied to {path} ({_first_line(error)})"
            ) from None
        except BaseException:
            stream._discard()
            raise
        return stream

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

    def _readers(self, source_file, population_rows: dict, prefix: str) -> list[_Reader]:
        import h5py

        unknown = sorted(set(population_rows) - set(self._names))
        if unknown:
            raise ValueError(
                f"{prefix}: the checkpoint records population(s) {', '.join(unknown)}, "
                f"which the network does not have ({', '.join(self._names)})"
            )
        readers = []
        for index, (name, first_gid, stop_gid) in enumerate(self._groups):
            if name not in population_rows:
                raise ValueError(
                    f"{prefix}: the checkpoint records no row count for population {name}"
                )
            rows = population_rows[name]
            if isinstance(rows, bool) or not isinstance(rows, (int, np.integer)) or rows < 0:
                raise ValueError(
                    f"{prefix}: population {name}: recorded rows {rows!r} is not a count"
                )
            group = source_file.get(f"spikes/{name}")
            if not isinstance(group, h5py.Group) or not {"node_ids", "timestamps"} <= set(group):
                raise ValueError(
                    f"{prefix}: population {name} is missing "
                    f"(no /spikes/{name} with node_ids and timestamps)"
                )
            stored_first = int(group.attrs.get("first_gid", 0))
            if stored_first != first_gid:
                raise ValueError(
                    f"{prefix}: population {name} starts at gid {stored_first}, the network's at {first_gid}"
                )
            held = min(group["node_ids"].shape[0], group["timestamps"].shape[0])
            if held < rows:
                raise ValueError(
                    f"{prefix}: population {name} has {held} spikes, fewer than the {rows} the checkpoint recorded"
                )
            readers.append(
                _Reader(index, group, (first_gid, stop_gid), int(rows), self.dt_ms, prefix)
            )
        return readers

    def _copy_merged(self, readers: list[_Reader], block_rows: int) -> None:
        """Copy the readers' rows and hash them in canonical order, a window at a time.

        Each reader holds at least ``block_rows`` rows spanning two steps or more (unless its
        rows are all read). Every row of a step before the smallest last buffered step of the
        readers with rows left is final: no reader can bring one before it any more.
        """
        while True:
            for reader in readers:
                reader.fill(block_rows)
            pending = [reader for reader in readers if reader.position < reader.limit]
            bound = min(int(reader.steps[-1]) for reader in pending) if pending else None
            taken = [(reader, reader.take_before(bound)) for reader in readers]
            taken = [(reader, rows) for reader, rows in taken if rows[0].size]
            if not taken:
                break
            for reader, (_, _, node_ids, timestamps) in taken:
                self._write(reader.index, node_ids, timestamps)
            steps = np.concatenate([rows[0] for _, rows in taken])
            gids = np.concatenate([rows[1] for _, rows in taken])
            order = np.lexsort((gids, steps))
            merged = np.empty((steps.size, 2), dtype="<i8")
            merged[:, 0] = steps[order]
            merged[:, 1] = gids[order]
            self._hash.update(merged)
            self._last = (int(merged[-1, 0]), int(merged[-1, 1]))

    def _discard(self) -> None:
        self.close()
        self.path.unlink(missing_ok=True)


class _Reader:
    """The first ``limit`` rows of one population of a source file, read a block at a time."""

    def __init__(
        self, index: int, group, gids: tuple[int, int], limit: int, dt_ms: float, prefix: str
    ):
        self.index = index  # of the population in the new stream
        self.node_ids_dataset, self.timestamps_dataset = group["node_ids"], group["timestamps"]
        self.first_gid, self.stop_gid = gids
        self.limit, self.dt_ms = limit, dt_ms
        self.where = f"{prefix}: population {group.name.rsplit('/', 1)[-1]}"
        self.position = 0  # next row of the file to read
        empty = np.zeros(0, dtype=np.int64)
        self.steps, self.gids = empty, empty
        self.node_ids, self.timestamps = np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.float64)
        self._last: tuple[int, int] | None = None

    def fill(self, block_rows: int) -> None:
        """Read until ``block_rows`` rows are buffered and they span two steps, or the
        rows to keep are all read."""
        while self.position < self.limit and (
            self.steps.size < block_rows or self.steps[0] == self.steps[-1]
        ):
            wanted = block_rows - self.steps.size if self.steps.size < block_rows else block_rows
            count = min(wanted, self.limit - self.position)
            stop = self.position + count
            node_ids = np.asarray(self.node_ids_dataset[self.position : stop], dtype=np.uint64)
            timestamps = np.asarray(self.timestamps_dataset[self.position : stop], dtype=np.float64)
            steps, gids = self._check(node_ids, timestamps)
            self.steps = np.concatenate([self.steps, steps])
            self.gids = np.concatenate([self.gids, gids])
            self.node_ids = np.concatenate([self.node_ids, node_ids])
            self.timestamps = np.concatenate([self.timestamps, timestamps])
            self.position = stop

    def take_before(self, bound: int | None):
        """Remove and return the buffered rows of steps before ``bound`` (None: all)."""
        count = (
            self.steps.size
            if bound is None
            else int(np.searchsorted(self.steps, bound, side="left"))
        )
        taken = (
            self.steps[:count],
            self.gids[:count],
            self.node_ids[:count],
            self.timestamps[:count],
        )
        self.steps, self.gids = self.steps[count:], self.gids[count:]
        self.node_ids, self.timestamps = self.node_ids[count:], self.timestamps[count:]
        return taken

    def _check(self, node_ids: np.ndarray, timestamps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        steps = np.rint(timestamps / self.dt_ms).astype(np.int64)
        if not np.array_equal(steps * self.dt_ms, timestamps):
            row = self.position + int(np.argmax(steps * self.dt_ms != timestamps))
            raise ValueError(
                f"{self.where}: timestamp {float(timestamps[row - self.position])!r} ms "
                f"(row {row}) is not a whole step of dt_ms = {self.dt_ms}"
            )
        size = self.stop_gid - self.first_gid
        if node_ids.size and int(node_ids.max()) >= size:
            raise ValueError(f"{self.where}: node id {int(node_ids.max())} beyond its {size} cells")
        gids = node_ids.astype(np.int64) + self.first_gid
        previous = self._last if self._last is not None else (int(steps[0]), int(gids[0]))
        step_change = np.diff(steps, prepend=previous[0])
        gid_change = np.diff(gids, prepend=previous[1])
        if ((step_change < 0) | ((step_change == 0) & (gid_change < 0))).any():
            raise ValueError(f"{self.where}: spikes are not sorted by time, then node id")
        if steps.size:
            self._last = (int(steps[-1]), int(gids[-1]))
        return steps, gids


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


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
