"""The spike log: rank 0's append-only record of a running ``spikex run``'s spikes.

The file holds the rows that ``spikes_sha256`` hashes — ``(step, gid)`` as two
little-endian int64, in canonical order (by step, then gid) — one chunk of the run after
the other, and nothing else. So its SHA-256 is the run's ``spikes_sha256``, memory stays
at one chunk whatever the run's length, and a crash can only cut the file short after
its last ``flush()``: every row a checkpoint counted (flushed before the checkpoint was
written) survives a killed process, a lost node or a full disk. An HDF5 file open for
writing gives no such promise, so the SONATA ``spikes.h5`` is made from the log when the
run ends or stops (``write_sonata``).

A resume copies the rows its checkpoint counted into a new log (hashing them: they must
give the checkpoint's hash) and goes on appending; the stopped run's log is only read.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np

# The bytes of one spike: (step, gid), little-endian int64, as spikes_sha256 hashes them.
ROW_BYTES = 16
# Rows read or converted at a time.
BLOCK_ROWS = 1 << 20


class SpikeLog:
    """Append canonical spike chunks to a file; count them per population; hash them.

    Parameters
    ----------
    path : path
        The log file (created, or emptied).
    populations : list of Population, or str
        The network's populations (``name``, ``first_gid``, ``stop_gid``) for the counts
        per population, or one name for all gids.
    """

    def __init__(self, path: str | Path, populations) -> None:
        self.path = Path(path)
        if isinstance(populations, str):
            self._names, self._bounds = [populations], np.array([0], dtype=np.int64)
        else:
            self._names = [pop.name for pop in populations]
            self._bounds = np.array([pop.first_gid for pop in populations], dtype=np.int64)
        self._counts = np.zeros(len(self._names), dtype=np.int64)
        self._hash = hashlib.sha256()
        self._last = (-1, -1)
        self._file = open(self.path, "wb")  # noqa: SIM115 - open for the log's lifetime

    @property
    def rows(self) -> int:
        return int(self._counts.sum())

    @property
    def population_rows(self) -> dict[str, int]:
        """Spikes so far per population name."""
        return {name: int(n) for name, n in zip(self._names, self._counts, strict=True)}

    def sha256(self) -> str:
        """``spikes_sha256`` of every spike appended so far."""
        return self._hash.copy().hexdigest()

    def append(self, steps: np.ndarray, gids: np.ndarray) -> None:
        """Append one chunk in canonical order, after every earlier chunk (ValueError
        otherwise: a bug in the caller). OSError when the file cannot be written."""
        rows = np.empty((len(steps), 2), dtype="<i8")
        rows[:, 0] = steps
        rows[:, 1] = gids
        if rows.size:
            before = (rows[1:, 0] < rows[:-1, 0]) | (
                (rows[1:, 0] == rows[:-1, 0]) & (rows[1:, 1] < rows[:-1, 1])
            )
            if before.any() or (int(rows[0, 0]), int(rows[0, 1])) < self._last:
                raise ValueError("SpikeLog.append: spikes out of canonical order")
            self._last = (int(rows[-1, 0]), int(rows[-1, 1]))
            self._count(rows[:, 1])
        self._write(rows)

    def flush(self) -> None:
        """Everything appended is on the disk (``fsync``) when this returns."""
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()

    def reference(self) -> dict:
        """What a checkpoint records about the log (after ``flush``)."""
        return {"rows": self.rows, "population_rows": self.population_rows, "sha256": self.sha256()}

    @classmethod
    def resume(cls, source: str | Path, rows: int, expected_sha256: str, path: str | Path, populations) -> SpikeLog:
        """A new log at `path` holding the first `rows` spikes of the log `source`
        (checked against the checkpoint's `expected_sha256`), ready for more. `source` is
        only read. ValueError, one line naming `source`, when it is missing, shorter or
        different."""
        source, path = Path(source), Path(path)
        where = f"spike log {source}"
        if not source.is_file():
            raise ValueError(f"{where}: no such file (the stopped run's spikes are gone)")
        if source.stat().st_size < rows * ROW_BYTES:
            raise ValueError(
                f"{where}: holds {source.stat().st_size // ROW_BYTES} spikes, fewer than the "
                f"{rows} the checkpoint counted"
            )
        log = cls(path, populations)
        try:
            with open(source, "rb") as stream:
                left = rows
                while left:
                    count = min(left, BLOCK_ROWS)
                    block = np.frombuffer(stream.read(count * ROW_BYTES), dtype="<i8").reshape(-1, 2)
                    try:
                        log.append(block[:, 0], block[:, 1])
                    except ValueError:
                        raise ValueError(f"{where}: its spikes are out of order (the file is corrupt)") from None
                    left -= count
            if log.sha256() != expected_sha256:
                raise ValueError(
                    f"{where}: its first {rows} spikes have spikes_sha256 {log.sha256()[:16]}..., "
                    f"the checkpoint recorded {expected_sha256[:16]}..."
                )
            log.flush()
        except BaseException:
            log.close()
            path.unlink(missing_ok=True)
            raise
        return log

    def _count(self, gids: np.ndarray) -> None:
        population = np.searchsorted(self._bounds, gids, side="right") - 1
        self._counts += np.bincount(population, minlength=len(self._names))

    def _write(self, rows: np.ndarray) -> None:
        data = rows.tobytes()
        self._file.write(data)
        self._hash.update(data)


def write_sonata(log_path: str | Path, rows: int, sonata_path: str | Path, populations, dt_ms: float) -> None:
    """The SONATA spike file of the first `rows` spikes of a log (read a block at a time;
    written at `sonata_path`, which the caller renames into place)."""
    from .spike_stream import SpikeStream

    with open(log_path, "rb") as stream, SpikeStream(sonata_path, populations, dt_ms) as sonata:
        left = rows
        while left:
            count = min(left, BLOCK_ROWS)
            block = np.frombuffer(stream.read(count * ROW_BYTES), dtype="<i8").reshape(-1, 2)
            sonata.append(block[:, 0], block[:, 1])
            left -= count
        sonata.flush()
