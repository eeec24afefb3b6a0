"""The numbers a comparison reports for one run, read from its ``summary.json``.

One table, ``METRICS``, names every number, its unit and where it comes from; ``spikex
compare`` (JSON and terminal table), ``spikex plot`` and ``python -m spikex.results`` all
read runs through it, so they agree on what "run time" or "computation time" means.

The definitions follow Hines et al. 2011 (Tables 1-3): *run time* is the simulation of
the network (``time_s.simulate``, maximum over ranks); *computation time* is the time
spent stepping cells inside the intervals (``computation_s``: rank 0, mean and maximum
over ranks); the rest of the run time is waiting for the slowest rank (``time_s.wait``,
measured by the barrier before each exchange) and the exchange itself
(``time_s.exchange``).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass

MEBIBYTE = 1024.0 * 1024.0


@dataclass(frozen=True)
class Metric:
    """One reported number of a run.

    Attributes
    ----------
    name : str
        Key in ``compare.json``.
    unit : str
        ``"s"``, ``"MB"``, ``"count"`` or ``"bytes"``.
    doc : str
        What it is, in one sentence.
    read : callable
        ``summary -> float or None`` (None when the summary does not have it).
    """

    name: str
    unit: str
    doc: str
    read: Callable[[dict], float | None]


def _path(*keys: str) -> Callable[[dict], float | None]:
    def read(summary: dict) -> float | None:
        value = summary
        for key in keys:
            if not isinstance(value, dict) or key not in value:
                return None
            value = value[key]
        return float(value) if isinstance(value, (int, float)) else None

    return read


def computation_per_rank(summary: dict) -> dict[str, float | None]:
    """Computation time of rank 0, mean and maximum over ranks, in seconds.

    From ``computation_s`` when the summary has it, else from the timeline totals
    (``timeline.compute_s_per_rank``), else only the maximum (``time_s.compute``).
    """
    computation = summary.get("computation_s")
    if isinstance(computation, dict) and {"rank0", "mean", "max"} <= set(computation):
        return {key: float(computation[key]) for key in ("rank0", "mean", "max")}
    per_rank = (summary.get("timeline") or {}).get("compute_s_per_rank")
    if per_rank:
        return {
            "rank0": float(per_rank[0]),
            "mean": float(sum(per_rank) / len(per_rank)),
            "max": float(max(per_rank)),
        }
    return {"rank0": None, "mean": None, "max": _path("time_s", "compute")(summary)}


def structures_mebibytes(summary: dict) -> float | None:
    """Bytes of all data structures of one rank (mean over ranks), in MiB."""
    memory = summary.get("memory_bytes")
    if not isinstance(memory, dict) or not memory:
        return None
    return sum(float(entry.get("mean", 0.0)) for entry in memory.values()) / MEBIBYTE


METRICS: tuple[Metric, ...] = (
    Metric("run_s", "s", "simulation wall-clock time, maximum over ranks (Hines 'Run')",
           _path("time_s", "simulate")),
    Metric("comp_rank0_s", "s", "computation time of rank 0 (Hines 'Comp')",
           lambda summary: computation_per_rank(summary)["rank0"]),
    Metric("comp_mean_s", "s", "computation time, mean over ranks",
           lambda summary: computation_per_rank(summary)["mean"]),
    Metric("comp_max_s", "s", "computation time, maximum over ranks",
           lambda summary: computation_per_rank(summary)["max"]),
    Metric("wait_s", "s", "waiting for the slowest rank before exchanges, maximum over ranks",
           _path("time_s", "wait")),
    Metric("exchange_s", "s", "time in the exchange itself, maximum over ranks",
           _path("time_s", "exchange")),
    Metric("send_s", "s", "time initiating sends (point-to-point methods), maximum over ranks",
           _path("time_s", "send")),
    Metric("build_s", "s", "network construction, maximum over ranks", _path("time_s", "build")),
    Metric("init_s", "s", "initialisation (e.g. target tables), maximum over ranks",
           _path("time_s", "init")),
    Metric("total_s", "s", "build + init + simulate + gathering, maximum over ranks",
           _path("time_s", "total")),
    Metric("messages", "count", "messages sent, summed over ranks",
           _path("exchange", "messages_sent")),
    Metric("bytes", "bytes", "bytes sent, summed over ranks", _path("exchange", "bytes_sent")),
    Metric("rounds", "count", "collective calls or conservation iterations, summed over ranks",
           _path("exchange", "rounds")),
    Metric("peak_rss_mb", "MB", "peak resident memory, maximum over ranks",
           _path("peak_rss_mb", "max")),
    Metric("structures_mb", "MB", "bytes of spikex's data structures per rank (mean), in MiB",
           structures_mebibytes),
    Metric("spikes", "count", "spikes recorded", _path("spikes_total")),
    Metric("events_delivered", "count", "synaptic events delivered, summed over ranks",
           _path("events_delivered")),
)  # fmt: skip

METRIC_NAMES: tuple[str, ...] = tuple(metric.name for metric in METRICS)


def run_metrics(summary: dict) -> dict[str, float | None]:
    """Every metric of one run (None where the summary lacks it)."""
    return {metric.name: metric.read(summary) for metric in METRICS}


def repeat_statistics(values: list[float | None]) -> dict[str, float | int | None]:
    """Median, minimum, maximum and spread (max - min) of one metric over repeats.

    Runs that lack the metric (None) are left out; ``count`` says how many were used.
    """
    present = [float(value) for value in values if value is not None]
    if not present:
        return {"median": None, "min": None, "max": None, "spread": None, "count": 0}
    return {
        "median": statistics.median(present),
        "min": min(present),
        "max": max(present),
        "spread": max(present) - min(present),
        "count": len(present),
    }
