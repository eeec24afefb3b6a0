"""Recorded state variables (``Network.record_state``), gathered from every rank."""

from __future__ import annotations

import numpy as np

from .. import _core
from ..runtime.collective import gather_int64


def gather_states(engine, recordings: list[dict], dt_ms: float) -> list[dict]:
    """One dict per recording: ``variable``, ``gids``, ``times_ms``, ``values``.

    Every rank samples the same steps, so the rows line up; columns are put in gid order.
    Collective: every rank calls it with the same recordings.
    """
    states = []
    for index, recording in enumerate(recordings):
        gids, steps, values = engine.state(index)
        gids = np.asarray(gids, dtype=np.int64)
        steps = np.asarray(steps, dtype=np.int64)
        local = np.asarray(values, dtype=np.float64).reshape(steps.size, gids.size)
        all_gids = gather_int64(gids)
        # Values travel column by column (each rank's cells), as float64.
        gathered = np.asarray(
            _core.allgather_float64(np.ascontiguousarray(local.T.ravel()))
        ).reshape(all_gids.size, steps.size)
        order = np.argsort(all_gids, kind="stable")
        states.append(
            {
                "variable": recording["variable"],
                "gids": all_gids[order],
                "times_ms": steps * dt_ms,
                "values": np.ascontiguousarray(gathered[order].T),
            }
        )
    return states
