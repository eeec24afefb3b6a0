"""``spikex model dryrun``: what every exchange method would do on P ranks, counted exactly.

The network of CONFIG is partitioned for a virtual rank count P with the real cell
distribution and the real connection rules (C++ ``cpp/spikex/dryrun/``; nothing is
simulated on P ranks). Spikes do not depend on the rank count or the method (a design
invariant the test suite checks), so one spike train — simulated here on one rank, or
read from a run's ``spikes.h5`` — gives, per virtual rank and per interval, exactly what
each method would send and receive. Where P is large, a sample of ranks is kept (the
output names them and what is exact); the connectivity is always drawn in full.
"""

from __future__ import annotations

import copy
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..compare.method_variants import MethodVariant, parse_method_variants
from ..config import get, resolved_config
from ..errors import ConfigError, UserInputError
from ..io.output import read_sonata_spikes, spikes_sha256, write_summary
from ..counters import names
from ..methods import capability
from ..version import __version__
from .statistics import over_ranks

MAX_RANKS = 2**20  # packed target entries hold 20 bits of rank
DEFAULT_SAMPLE_RANKS = 1024
# What a dry run may hold: ~24 bytes per connection of a counted rank (its incoming
# connections while partitioning, and the send side of its cells). Networks larger than
# this are counted on fewer ranks.
MEMORY_BUDGET_BYTES = 2 * 2**30
BYTES_PER_HELD_CONNECTION = 24
# Counters whose run totals the summary of a real run sums over ranks.
ROW_COUNTERS_KEPT = names(
    "messages_sent", "bytes_sent", "bytes_received", "rounds", "spikes_received",
    "entries_sent", "entries_received", "hops", "items_sent", "phase_two_sent",
    "section_entries", "slots_scanned", "spikes_sent", "spikes_matched", "spikes_local",
    "delivery_groups",
)  # fmt: skip


@dataclass(frozen=True)
class DryRunPlan:
    """A validated dry run.

    Attributes
    ----------
    config : dict
        The resolved base configuration (validated for ``ranks``).
    ranks : int
        Virtual rank count P.
    variants : tuple of (MethodVariant, dict)
        Each method variant with its resolved configuration.
    spikes_path : Path or None
        SONATA spike file to take the spike train from (else one simulated rank).
    sample_ranks : int
        Ranks kept when P is larger (all ranks otherwise).
    """

    config: dict
    ranks: int
    variants: tuple[tuple[MethodVariant, dict], ...]
    spikes_path: Path | None
    sample_ranks: int


def plan_dryrun(
    config_path: Path,
    ranks: int,
    methods: str | None,
    overrides: tuple[str, ...] = (),
    spikes_path: Path | None = None,
    sample_ranks: int = DEFAULT_SAMPLE_RANKS,
) -> DryRunPlan:
    """Validate everything before drawing a connection.

    Raises
    ------
    UserInputError, ConfigError
        One line naming the option or key, the value and what is allowed.
    """
    if not 1 <= ranks <= MAX_RANKS:
        raise UserInputError(f"--np = {ranks}: must be between 1 and {MAX_RANKS}")
    if sample_ranks < 2:
        raise UserInputError(f"--sample-ranks = {sample_ranks}: must be >= 2")
    if spikes_path is not None and not Path(spikes_path).is_file():
        raise UserInputError(f"--spikes = {spikes_path}: file not found")
    base = resolved_config(config_path, tuple(overrides), ranks=ranks)
    text = methods or get(base, "exchange.method")
    try:
        parsed = parse_method_variants(text)
    except ConfigError as error:  # name this command's option
        raise ConfigError("--method", error.value, error.allowed) from None
    variants = []
    for variant in parsed:
        config = resolved_config(config_path, (*overrides, *variant.run_overrides()), ranks=ranks)
        variants.append((variant, config))
    return DryRunPlan(base, ranks, tuple(variants), spikes_path, sample_ranks)


def spike_train(config: dict, spikes_path: Path | None) -> tuple[np.ndarray, np.ndarray, dict]:
    """``(gids, steps, description)`` of the network's spikes.

    From ``spikes_path`` (a run's SONATA file) or, without it, simulated here on one
    rank with the allgather method (spikes are the same for every method and P).
    """
    dt_ms = get(config, "simulation.dt_ms")
    if spikes_path is not None:
        gids, times_ms = read_sonata_spikes(spikes_path)
        source = str(spikes_path)
    else:
        from ..api.network import Network

        start = time.perf_counter()
        simulated = copy.deepcopy(config)
        simulated["exchange"] = {"method": "allgather"}
        simulated["record"] = {"spikes": True}
        result = Network.from_config(resolved_config(simulated)).simulate(get(config, "simulation.tstop_ms"))
        gids, times_ms = result.spikes
        source = f"simulated on 1 rank ({time.perf_counter() - start:.1f} s)"
    gids = np.asarray(gids, dtype=np.int64)
    steps = np.rint(np.asarray(times_ms, dtype=float) / dt_ms).astype(np.int64)
    description = {"source": source, "spikes": int(gids.size), "spikes_sha256": spikes_sha256(steps, gids)}
    return gids, steps, description


def ranks_that_fit(plan: DryRunPlan) -> int:
    """--sample-ranks, lowered so that the counted ranks' connections fit the memory budget."""
    connections = get(plan.config, "network.cells") * get(plan.config, "network.indegree")
    per_rank = max(connections / plan.ranks, 1.0) * BYTES_PER_HELD_CONNECTION
    return max(2, min(plan.sample_ranks, int(MEMORY_BUDGET_BYTES // per_rank)))


def _network_key(config: dict) -> str:
    shape = {k: v for k, v in config.items() if k not in ("exchange", "record")}
    return json.dumps(shape, sort_keys=True)


def execute_dryrun(plan: DryRunPlan, train: tuple | None = None) -> dict:
    """Partition, count every method, and summarise (the JSON ``spikex model dryrun`` writes).

    ``train``: a ``spike_train()`` result to reuse (sweeps over P of one network).
    """
    from .. import _core
    from ..api.network import Network, chunk_ends

    gids, steps, train = train or spike_train(plan.config, plan.spikes_path)
    sampled = _core.dryrun_sample(plan.ranks, ranks_that_fit(plan))
    partitions: dict[str, object] = {}
    methods = {}
    network = {}
    for variant, config in plan.variants:
        key = _network_key(config)
        if key not in partitions:
            start = time.perf_counter()
            # The network is built from the configuration as `spikex run` builds it; the
            # exchange keys only matter for the counting (compress is checked for P).
            described = copy.deepcopy(config)
            described["exchange"] = {"method": config["exchange"]["method"]}
            net = Network.from_config(resolved_config(described))
            partition = net.dry_run_partition(plan.ranks, sampled)
            partitions[key] = (partition, net.cells, time.perf_counter() - start)
        partition, cells, partition_seconds = partitions[key]
        dt_ms = get(config, "simulation.dt_ms")
        target = int(np.floor(get(config, "simulation.tstop_ms") / dt_ms + 0.5))
        stops = np.asarray(chunk_ends(0, target, partition.steps_per_interval), dtype=np.int64)
        options = {k: v for k, v in config["exchange"].items() if k != "method"}
        start = time.perf_counter()
        counts = partition.count(variant.method, options, gids, steps, stops)
        methods[variant.label] = summarise(counts, variant, partition.sampled, time.perf_counter() - start)
        network = {
            "cells": cells,  # as built: models such as the microcircuit size themselves
            "connections": int(partition.connections),
            "steps_per_interval": int(partition.steps_per_interval),
            "dt_ms": dt_ms,
            "tstop_ms": get(config, "simulation.tstop_ms"),
            "partition_seconds": round(partition_seconds, 3),
        }
    all_ranks = len(sampled) == plan.ranks
    return {
        "spikex_version": __version__,
        "kind": "dryrun",
        "ranks": plan.ranks,
        "distribution": get(plan.config, "distribution.scheme"),
        "sampling": {
            "all_ranks": all_ranks,
            "sampled_ranks": len(sampled),
            "ranks": sampled if len(sampled) <= 64 else f"{len(sampled)} ranks evenly spread over 0..{plan.ranks - 1}",
            "note": (
                "every rank counted exactly"
                if all_ranks
                else f"{len(sampled)} ranks counted (--sample-ranks, or fewer so that their "
                f"connections fit {MEMORY_BUDGET_BYTES // 2**30} GB); "
                "counts are exact for the sampled ranks; connectivity drawn in full; "
                "global values over unsampled ranks (alltoall section size, relay and "
                "forwarding loads from unsampled sources) are taken over the sample"
            ),
        },
        "spike_train": train,
        "network": network,
        "config": plan.config,
        "methods": methods,
    }


def summarise(counts: dict, variant: MethodVariant, sampled: list[int], seconds: float) -> dict:
    """One method's counts as max / mean / distribution over ranks, and per interval."""
    per_rank = {name: np.asarray(values) for name, values in counts["per_rank"].items()}
    rows = len(counts["row_step"])
    out = {
        "method": variant.method,
        "overrides": list(variant.overrides),
        "properties": {k: _plain(v) for k, v in sorted(counts["properties"].items())},
        "totals": {name: over_ranks(values, sampled) for name, values in sorted(per_rank.items())},
        "sums": {name: float(values.sum()) for name, values in sorted(per_rank.items())},
        "per_interval": {
            name: {
                "max": float(np.max(counts["row_max"][name])) if rows else 0.0,
                "mean_per_rank": float(np.sum(counts["row_sum"][name]) / max(rows * len(sampled), 1)),
            }
            for name in sorted(counts["row_max"])
        },
        "fanout": {name: over_ranks(values) for name, values in sorted(counts["per_cell"].items())},
        "memory_bytes": {name: over_ranks(values, sampled) for name, values in sorted(counts["memory"].items())},
        "rows": {
            "step": counts["row_step"].tolist(),
            "due": counts["row_due"].tolist(),
            "max": {n: counts["row_max"][n].tolist() for n in ROW_COUNTERS_KEPT if n in counts["row_max"]},
            "sum": {n: counts["row_sum"][n].tolist() for n in ROW_COUNTERS_KEPT if n in counts["row_sum"]},
        },
        "seconds": round(seconds, 3),
    }
    sums = out["sums"]
    if capability(variant.method, "process_grid") and sums.get("messages_sent"):
        # items per bucket sent; messages are a lower bound, so this is an upper bound
        out["properties"]["bucket_fill_upper_bound"] = round(sums["hops"] / sums["messages_sent"], 3)
    return out


def _plain(value):
    value = float(value)
    return int(value) if value.is_integer() else value


def write_dryrun(path: Path, result: dict) -> None:
    """Write the result JSON atomically (temp name, then rename)."""
    write_summary(path, result)


def format_dryrun(result: dict) -> str:
    """A short table for the terminal: per method, max and mean per rank over the run."""
    lines = [
        f"dry run: P = {result['ranks']} ({result['sampling']['sampled_ranks']} ranks counted), "
        f"{result['network']['cells']} cells, {result['network']['connections']} connections, "
        f"{result['spike_train']['spikes']} spikes",
        f"{'method':<34} {'msgs max':>11} {'msgs mean':>11} {'bytes max':>12} {'recv max':>12} {'partners':>9}",
    ]
    for label, m in result["methods"].items():
        totals = m["totals"]
        partners = m["totals"].get("partners", {}).get("max", m["properties"].get("partners", "-"))
        received = totals.get("bytes_received", totals.get("spikes_received", {})).get("max", "-")
        lines.append(
            f"{label:<34} {totals['messages_sent']['max']:>11} {totals['messages_sent']['mean']:>11.1f} "
            f"{totals['bytes_sent']['max']:>12} {received:>12} {partners:>9}"
        )
    return "\n".join(lines)
