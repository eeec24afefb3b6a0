"""Per-interval timeline (``record.timeline = true``): gather, summarise, write ``timeline.h5``.

The engine keeps one row per exchange synchronisation (interval, or sub-interval with
``exchange.subintervals = 2``) on every rank (``cpp/spikex/instrument/timeline.hpp``):

=================  ==========================================================================
column             meaning (each row: what happened since the previous row)
=================  ==========================================================================
step, due          the synchronisation step, and the step before which spikes were due
compute_s          stepping the cells, incl. polling / handling arrivals / send initiation
send_s             initiating sends (Isend, Start, Put) — part of compute_s or exchange_s
wait_s             waiting for the slowest rank (MPI_Barrier, ``exchange.measure_wait``)
exchange_s         the exchange itself (collective, or conservation loop)
wall_s             wall-clock time of the row (compute + wait + exchange + loop overhead)
rounds             collective calls / conservation iterations (MPI_Allreduce)
spikes_generated   spikes emitted by this rank's cells
spikes_sent        spike messages / entries this rank sent
spikes_received    spike messages / entries this rank received
=================  ==========================================================================

Every rank has the same number of rows (synchronisation is collective), so the file holds
one ``(ranks, rows)`` dataset per column. Sums over rows equal the run totals.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..runtime.collective import float64_per_rank, int64_per_rank
from .output import temporary_name

TIMELINE_FILE = "timeline.h5"
INTEGER_COLUMNS = ("step", "due", "rounds", "spikes_generated", "spikes_sent", "spikes_received")
FLOAT_COLUMNS = ("compute_s", "send_s", "wait_s", "exchange_s", "wall_s")
# Columns whose sum over rows and ranks is a run total.
TOTAL_COLUMNS = (
    "compute_s",
    "send_s",
    "wait_s",
    "exchange_s",
    "wall_s",
    "rounds",
    "spikes_generated",
    "spikes_sent",
    "spikes_received",
)


def gather_timeline(engine) -> dict[str, np.ndarray]:
    """Every rank's rows, on every rank (collective).

    Returns
    -------
    dict
        Column name -> ``(ranks, rows)`` array (int64 or float64).
    """
    local = engine.timeline()
    out = {
        name: int64_per_rank(np.asarray(local[name], dtype=np.int64)) for name in INTEGER_COLUMNS
    }
    out |= {
        name: float64_per_rank(np.asarray(local[name], dtype=np.float64)) for name in FLOAT_COLUMNS
    }
    return out


def timeline_summary(timeline: dict[str, np.ndarray]) -> dict:
    """What ``summary.json`` reports of a timeline: its shape, file and totals.

    ``totals`` sums each column over ranks and rows (times in rank-seconds);
    ``compute_s_per_rank`` is each rank's total computation time.
    """
    ranks, rows = timeline["step"].shape
    totals = {}
    for name in TOTAL_COLUMNS:
        total = timeline[name].sum()
        totals[name] = int(total) if name in INTEGER_COLUMNS else float(total)
    return {
        "file": TIMELINE_FILE,
        "ranks": int(ranks),
        "rows": int(rows),
        "totals": totals,
        "compute_s_per_rank": [float(x) for x in timeline["compute_s"].sum(axis=1)],
    }


def write_timeline(path: str | Path, timeline: dict[str, np.ndarray], attributes: dict) -> None:
    """Write ``timeline.h5`` atomically: one ``(ranks, rows)`` dataset per column.

    Parameters
    ----------
    path : str or Path
        Destination.
    timeline : dict
        From ``gather_timeline``.
    attributes : dict
        File attributes (method, ranks, dt_ms, steps_per_interval, subintervals, ...).
    """
    import h5py  # only the writing rank needs it

    path = Path(path)
    temporary = temporary_name(path)
    try:
        with h5py.File(temporary, "w") as handle:
            for name, value in attributes.items():
                handle.attrs[name] = value
            for name in (*INTEGER_COLUMNS, *FLOAT_COLUMNS):
                dataset = handle.create_dataset(name, data=timeline[name])
                if name.endswith("_s"):
                    dataset.attrs["units"] = "s"
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def read_timeline(path: str | Path) -> dict[str, np.ndarray]:
    """Read every column of a ``timeline.h5`` (and the attributes under ``"attrs"``)."""
    import h5py

    with h5py.File(path, "r") as handle:
        out = {name: np.asarray(handle[name][:]) for name in handle}
        out["attrs"] = dict(handle.attrs)
    return out
