"""Reductions over ranks, all built on the core's two allgathers.

Every rank calls these in the same order with arrays of the same length (except
``gather_int64``), and every rank gets the same answer.
"""

from __future__ import annotations

import numpy as np

from .. import _core


def gather_int64(values: np.ndarray, in_run: bool = False) -> np.ndarray:
    """Concatenation over ranks (rank order) of int64 arrays of any length. in_run: a
    collective between the chunks of a run, which the stall watchdog watches as part of
    the run (``_core.allgather_int64``)."""
    return np.asarray(_core.allgather_int64(np.ascontiguousarray(values, dtype=np.int64), in_run))


def _per_rank(values: np.ndarray, gather, in_run: bool = False) -> np.ndarray:
    """Allgather equal-length rows into a (ranks, n) array."""
    values = np.ascontiguousarray(values).ravel()
    gathered = np.asarray(gather(values, in_run))
    ranks = _core.comm_size()
    if gathered.size != ranks * values.size:
        raise RuntimeError(
            f"ranks disagree on the number of values to reduce: {gathered.size} gathered "
            f"from {ranks} ranks, {values.size} on this rank"
        )
    return gathered.reshape(ranks, values.size)


def float64_per_rank(values) -> np.ndarray:
    """(ranks, n) array of every rank's float64 values."""
    return _per_rank(np.asarray(values, dtype=np.float64), _core.allgather_float64)


def int64_per_rank(values, in_run: bool = False) -> np.ndarray:
    """(ranks, n) array of every rank's int64 values (in_run: as gather_int64)."""
    return _per_rank(np.asarray(values, dtype=np.int64), _core.allgather_int64, in_run)


def sum_int64(value: int) -> int:
    """Sum of one integer over ranks."""
    return int(int64_per_rank([value]).sum())


def gather_spikes(
    steps: np.ndarray, gids: np.ndarray, in_run: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Every rank's recorded spikes, on every rank (unsorted, rank order; in_run: as
    gather_int64)."""
    steps = np.asarray(steps, dtype=np.int64)
    gids = np.asarray(gids, dtype=np.int64)
    if steps.shape != gids.shape:
        raise RuntimeError(f"core returned {steps.size} spike steps but {gids.size} gids")
    return gather_int64(steps, in_run), gather_int64(gids, in_run)


def broadcast_text(text: str, root: int = 0) -> str:
    """Rank `root`'s `text` on every rank (collective)."""
    if _core.comm_size() == 1:
        return text
    data = text.encode() if _core.comm_rank() == root else b""
    padded = data.ljust(-(-len(data) // 8) * 8, b"\0")
    gathered = np.asarray(_core.allgather_int64(np.frombuffer(padded, "<i8").copy()))
    return gathered.astype("<i8").tobytes().rstrip(b"\0").decode()
