"""The ``summary.json`` fields of a run, reduced over ranks.

Collective: every rank calls ``build_summary`` and gets the same dict. Times are the
maximum over ranks (the run is as slow as its slowest rank), counters are sums, and
the exchange's set-up properties (identical on every rank) are reported as they are.
"""

from __future__ import annotations

import numpy as np

from .. import _core
from ..runtime.collective import float64_per_rank, int64_per_rank, sum_int64

# Wall-clock phases measured in Python around the engine calls.
WALL_PHASES = ("build", "init", "simulate", "total")
# Phases the engine times inside the simulation loop.
ENGINE_PHASES = ("compute", "wait", "exchange", "send", "compute_team", "compute_alone")
# Properties the core reports as 0/1 that the summary shows as true/false.
BOOLEAN_PROPERTIES = frozenset({"compressed", "sorted_by_source"})


def build_summary(
    engine,
    *,
    version: str,
    config: dict,
    method: str,
    spike_count: int,
    spikes_sha256: str,
    wall_seconds: dict[str, float],
    dt_ms: float,
) -> dict:
    """Return the summary of the run so far (collective over ranks).

    Parameters
    ----------
    engine : spikex._core.Engine
        The built and initialised engine.
    version : str
        Package version.
    config : dict
        Resolved configuration (or a description of an API-built network).
    method : str
        Exchange method name.
    spike_count : int
        Number of spikes recorded, all ranks.
    spikes_sha256 : str
        Canonical spike hash (see ``output.spikes_sha256``).
    wall_seconds : dict
        This rank's ``build``, ``init``, ``simulate`` and ``total`` seconds.
    dt_ms : float
        Time step, to report the simulated time.

    Returns
    -------
    dict
        Every ``summary.json`` field of the contract, plus a few descriptive extras.
    """
    counters = summed_counters(engine.counters())
    synapses, connection_store = synapse_memory(engine)
    return {
        "spikex_version": version,
        "config": config,
        "method": method,
        "ranks": _core.comm_size(),
        "threads": int(engine.threads),
        "cells": int(engine.cells_total),
        "connections": sum_int64(engine.local_connection_count()),
        "spikes_total": int(spike_count),
        "spikes_sha256": spikes_sha256,
        "events_delivered": counters.get("events_delivered", 0),
        "time_s": max_times(wall_seconds, engine.timers()),
        "computation_s": computation_times(engine.timers()),
        "peak_rss_mb": peak_rss(),
        "exchange": {**counters, **exchange_properties(engine), **wire_bytes_per_spike(counters)},
        "memory_bytes": memory_bytes(engine),
        "synapses": synapses,
        "bytes_per_synapse": connection_store / synapses if synapses else 0.0,
        "comm_backend": _core.comm_backend(),
        "dt_ms": dt_ms,
        "steps": int(engine.step),
        "simulated_ms": int(engine.step) * dt_ms,
        "steps_per_interval": int(engine.steps_per_interval),
    }


def population_summary(
    populations: list,
    recorded_runs: list[list[int]],
    gids: np.ndarray,
    recorded_ms: float,
    counts: dict[str, int] | None = None,
) -> dict[str, dict]:
    """``populations`` of summary.json: per population its cells, the spikes recorded of it
    and their rate in Hz over the recorded cells and the recorded time (after
    ``simulation.presim_ms``). ``recorded_cells`` says how many cells were recorded.
    `counts` (spikes per population name) replaces counting `gids` for streamed spikes."""
    recorded = np.zeros(0, dtype=np.int64)
    if recorded_runs:
        recorded = np.unique(np.concatenate([np.arange(f, f + n) for f, n in recorded_runs]))
    out = {}
    for pop in populations:
        cells_recorded = int(np.count_nonzero((recorded >= pop.first_gid) & (recorded < pop.stop_gid)))
        if counts is not None:
            spikes = int(counts.get(pop.name, 0))
        else:
            spikes = int(np.count_nonzero((gids >= pop.first_gid) & (gids < pop.stop_gid)))
        seconds = recorded_ms / 1000.0
        rate = spikes / (cells_recorded * seconds) if cells_recorded and seconds > 0 else 0.0
        out[pop.name] = {
            "model": pop.model,
            "cells": int(pop.size),
            "recorded_cells": cells_recorded,
            "spikes": spikes,
            "rate_hz": float(rate),
        }
    return out


def summed_counters(local_counters: dict[str, float]) -> dict[str, int | float]:
    """Every engine counter summed over ranks (integers stay integers)."""
    names = sorted(local_counters)
    totals = float64_per_rank([local_counters[name] for name in names]).sum(axis=0)
    return {name: _as_number(total) for name, total in zip(names, totals, strict=True)}


def wire_bytes_per_spike(counters: dict) -> dict[str, float]:
    """``wire_bytes_per_spike``: bytes of encoded spikes sent per spike (or target entry)
    encoded, headers of the spike wire codec included (exchange/spike_codec.hpp); only when
    the method reports the codec's counters and sent any spike."""
    spikes = counters.get("wire_spikes", 0)
    return {"wire_bytes_per_spike": counters["wire_bytes"] / spikes} if spikes else {}


def exchange_properties(engine) -> dict[str, int | float | bool]:
    """The exchange's set-up properties (same on every rank, so not reduced)."""
    return {
        name: bool(value) if name in BOOLEAN_PROPERTIES else _as_number(value)
        for name, value in sorted(engine.properties().items())
    }


def synapse_memory(engine) -> tuple[int, int]:
    """Synapses (connection table entries, without device inputs) and the bytes of the
    connection store that holds them (connection table + source table), summed over ranks:
    their ratio is summary.json's ``bytes_per_synapse``."""
    local = engine.memory_bytes()
    store = int(local.get("connections", 0) + local.get("sources", 0))
    totals = int64_per_rank([int(engine.local_synapse_count()), store]).sum(axis=0)
    return int(totals[0]), int(totals[1])


def memory_bytes(engine) -> dict[str, dict[str, int]]:
    """Bytes per data structure (capacity of the containers): maximum and mean over ranks."""
    local = engine.memory_bytes()
    names = sorted(local)
    per_rank = float64_per_rank([local[name] for name in names])
    return {
        name: {"max": int(column.max()), "mean": float(column.mean())}
        for name, column in zip(names, per_rank.T, strict=True)
    }


def max_times(wall_seconds: dict[str, float], engine_seconds: dict[str, float]) -> dict:
    """Maximum over ranks of each wall-clock and engine phase, in seconds."""
    local = [wall_seconds[name] for name in WALL_PHASES]
    local += [float(engine_seconds.get(name, 0.0)) for name in ENGINE_PHASES]
    maxima = float64_per_rank(local).max(axis=0)
    return {
        name: float(value) for name, value in zip(WALL_PHASES + ENGINE_PHASES, maxima, strict=True)
    }


def computation_times(engine_seconds: dict[str, float]) -> dict[str, float]:
    """Computation time (stepping cells) of rank 0, mean and max over ranks: the "Comp"
    columns of Hines et al. 2011, Tables 1-2 (their run time is ``time_s.simulate``)."""
    per_rank = float64_per_rank([float(engine_seconds.get("compute", 0.0))])[:, 0]
    return {
        "rank0": float(per_rank[0]),
        "mean": float(per_rank.mean()),
        "max": float(per_rank.max()),
    }


def peak_rss() -> dict[str, float]:
    """Peak resident memory in MB: maximum and mean over ranks."""
    per_rank = float64_per_rank([_core.peak_rss_mb()])[:, 0]
    return {"max": float(per_rank.max()), "mean": float(per_rank.mean())}


def _as_number(value: np.floating) -> int | float:
    value = float(value)
    return int(value) if value.is_integer() else value
