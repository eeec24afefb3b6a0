"""Per-cell values of the API's calls: lists per cell (``spike_times``, ...) and checked
float arrays, shared by ``Network.create``/``connect`` and ``Network.set``."""

from __future__ import annotations

import numpy as np


def _cell_lists(where: str, name: str, value: object, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Flat values and offsets (n + 1) of a list parameter from one list for all cells or
    n lists (a list of n one-dimensional sequences, also for n = 1: ``[[5.0, 7.0]]`` is one
    cell's list)."""
    if isinstance(value, (list, tuple)) and len(value) == n and all(np.ndim(t) == 1 for t in value):
        per_cell = [_float_array(where, name, t) for t in value]
    else:
        per_cell = [_float_array(where, name, value)] * n
    lengths = np.array([t.size for t in per_cell], dtype=np.uint64)
    offsets = np.zeros(n + 1, dtype=np.uint64)
    np.cumsum(lengths, out=offsets[1:])
    flat = np.concatenate(per_cell) if per_cell else np.zeros(0)
    return np.ascontiguousarray(flat, dtype=np.float64), offsets


def _float_array(where: str, name: str, values) -> np.ndarray:
    # True/False are not numbers here (NEST refuses a boolean for a double parameter);
    # flag parameters turn them into 1/0 before this.
    if (
        isinstance(values, (bool, np.bool_))
        or (isinstance(values, np.ndarray) and values.dtype == np.bool_)
        or (
            isinstance(values, (list, tuple))
            and any(isinstance(v, (bool, np.bool_)) for v in values)
        )
    ):
        raise ValueError(f"{where}: {name} = {values!r:.60}: True/False is not a number here")
    try:
        array = np.atleast_1d(np.asarray(values, dtype=np.float64))
    except (TypeError, ValueError):
        raise ValueError(f"{where}: {name} must be a number or an array of numbers") from None
    if array.ndim != 1:
        raise ValueError(f"{where}: {name} must be one-dimensional, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{where}: {name} contains a value that is not finite")
    return array
