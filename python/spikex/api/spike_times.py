"""spike_source_array's time rule, on the Python side: the checks and warnings that name
the population and cell (the core repeats the rule, cpp/spikex/models/spike_source_array.cpp).

A spike time t > 0 ms is emitted at the end of the step that contains it, as NEST's
spike_generator does under pyNN.nest (precise times through a parrot neuron): NEST stamps
it ceil(t/dt)·dt, a time within 1e-6 step of a grid point counting as that point. A cell
spikes at most once per step, so times that fall in one step are one spike, with a warning
(NEST delivers each of them).
"""

from __future__ import annotations

import warnings

import numpy as np

GRID_TOLERANCE = 1e-6  # of a step: a time this close to a grid point is on it


def stamps(times: np.ndarray, dt_ms: float) -> np.ndarray:
    """NEST's stamp of each time, in steps (the step that ends at or after it)."""
    steps = np.asarray(times, dtype=float) / dt_ms
    rounded = np.round(steps)
    return np.where(np.abs(steps - rounded) <= GRID_TOLERANCE, rounded, np.ceil(steps)).astype(np.int64)


def check(population: str, values: np.ndarray, offsets: np.ndarray, dt_ms: float) -> None:
    """ValueError naming the population and cell index for a time that is not a finite
    number > 0; a warning for times that share a step of one cell."""
    bad = ~np.isfinite(values) | ~(values > 0)
    bad[~bad] = stamps(values[~bad], dt_ms) < 1  # within 1e-6 step of 0
    if bad.any():
        k = int(np.argmax(bad))
        cell = int(np.searchsorted(offsets, k, side="right")) - 1
        raise ValueError(
            f"population {population!r} cell {cell}: spike_times contains {float(values[k])!r} ms: "
            "each time must be a finite number > 0 ms (further than 1e-6 dt from 0)"
        )
    if values.size == 0:
        return
    step = stamps(values, dt_ms)
    cells = np.repeat(np.arange(offsets.size - 1), np.diff(offsets).astype(np.int64))
    order = np.lexsort((step, cells))
    same = (np.diff(step[order]) == 0) & (np.diff(cells[order]) == 0)
    if same.any():
        first = int(np.argmax(same))
        cell = int(cells[order][first])
        shared = values[order][first : first + 2]
        warnings.warn(
            f"population {population!r} cell {cell}: spike times {float(shared[0])!r} and {float(shared[1])!r} ms fall in one "
            f"step of dt = {dt_ms} ms ({int(same.sum())} such pairs in the population): spikex emits one "
            "spike per cell and step, so they are one spike (NEST's spike_generator sends each); a smaller "
            "dt keeps them apart",
            stacklevel=3,
        )
