"""Refuse a network that cannot fit before its connections are drawn.

The cells and connection rules are built at the first ``simulate`` (``engine.build``).
Their counts are known before that, from the description: cells per model (each needs
at least its gid and its state), and the rules': ``fixed_indegree`` K per target, ``pairwise_bernoulli`` p per
pair, and so on. The connection table needs at least ``MIN_BYTES_PER_SYNAPSE`` bytes per
synapse: a 4-byte target (2 bytes on a rank with at most 65,536 cells), plus an 8-byte
weight unless a projection's weights are all equal (the memory model, ``cpp/spikex/dryrun/memory_model.hpp``; the build's temporary
arrays need more). The cells of a rule's targets are spread evenly over the ranks. Each
rank compares its share with what its host has available, divided among the ranks on
that host. The verdict is agreed collectively, so every rank raises the same error
(exit status 2) instead of some ranks entering the build's collectives alone.

Explicit connections (``connect`` with arrays) are already in memory and not counted.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping

import numpy as np

from ..runtime.allocation import memory_bytes, size_text

INDEX_BYTES = 4  # local target index
NARROW_INDEX_BYTES = 2  # ... on a rank with at most NARROW_INDEX_CELLS cells
NARROW_INDEX_CELLS = 65_536
WEIGHT_BYTES = 8  # one double per connection, unless a projection's weights are equal
GID_BYTES = 4  # a cell's gid on its rank
STATE_VALUE_BYTES = 8  # a double of a cell's state
# Ranks of this job on this host, by the variable each launcher sets.
_LOCAL_SIZE_VARIABLES = ("OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE")


def expected_connections(rule: Mapping) -> float:
    """Connections a recorded rule (``Network._rules``) will draw, over all ranks."""
    sources, targets = rule["sources"][1], rule["targets"][1]
    name = rule["rule"]
    if name in ("random", "adjacent", "fixed_indegree"):
        return float(rule["indegree"]) * targets
    if name == "fixed_outdegree":
        return float(rule["outdegree"]) * sources
    if name == "fixed_total_number":
        return float(rule["total_number"])
    if name == "pairwise_bernoulli":
        return float(rule["probability"]) * sources * targets
    if name == "all_to_all":
        return float(sources) * targets
    if name == "one_to_one":
        return float(min(sources, targets))
    return 0.0


def bytes_per_synapse(rule: Mapping, rank_cells: float = float("inf")) -> int:
    """At least this much per synapse of the rule on a rank of `rank_cells` cells: the
    target's 4 bytes (2 up to 65,536 cells), plus 8 when the weights differ."""
    uniform = (
        isinstance(rule.get("weight"), (int, float))
        and not rule.get("weight_spread")
        and rule.get("synapse", "static") == "static"
    )
    index = NARROW_INDEX_BYTES if rank_cells <= NARROW_INDEX_CELLS else INDEX_BYTES
    return index + (0 if uniform else WEIGHT_BYTES)


def ranks_on_this_host(size: int, environment: Mapping[str, str] | None = None) -> int:
    """Ranks of the job that share this host's memory (1 when the launcher does not say)."""
    environment = os.environ if environment is None else environment
    for name in _LOCAL_SIZE_VARIABLES:
        value = environment.get(name, "")
        if value.isdigit() and int(value) >= 1:
            return min(int(value), size)
    return 1


def bytes_per_cell(model: str) -> int:
    """At least this much per cell of `model`: its gid and the state a checkpoint keeps of
    it (8 bytes a value), which the engine holds in memory too."""
    from ..models import MODELS

    return GID_BYTES + STATE_VALUE_BYTES * len(MODELS[model].get("checkpoint_state", ()))


def check_fits(rules: list[Mapping], size: int, core, cells: Mapping[str, int] | None = None) -> None:
    """Raise ValueError on every rank when some rank's share of the cells (count per model)
    and the rules' connections cannot fit in its host's available memory (collective:
    every rank calls it). Counted from the description alone, before anything is built."""
    cells = dict(cells or {})
    if not rules and not cells:
        return
    rank_cells = sum(cells.values()) / size if cells else float("inf")
    needed = (
        sum(expected_connections(rule) * bytes_per_synapse(rule, rank_cells) for rule in rules)
        + sum(n * bytes_per_cell(model) for model, n in cells.items())
    ) / size
    local_ranks = ranks_on_this_host(size)
    available = memory_bytes()[1] / local_ranks
    verdicts = np.array([int(needed), int(available), local_ranks], dtype=np.int64)
    if size > 1:
        verdicts = core.allgather_int64(verdicts)
    verdicts = verdicts.reshape(-1, 3)
    short = np.flatnonzero(verdicts[:, 0] > verdicts[:, 1])
    if short.size == 0:
        return
    rank = int(short[0])
    need, have, on_host = (int(x) for x in verdicts[rank])
    connections = sum(expected_connections(rule) for rule in rules)
    host = f" (host {socket.gethostname()})" if size == 1 else ""
    raise ValueError(
        f"the network does not fit: its {sum(cells.values()):.3g} cells and {connections:.3g} "
        "connections need at least "
        f"{size_text(need * size)} (memory model: {size_text(need)} per rank on {size} rank(s)), but "
        f"rank {rank}{host} has {size_text(have)} available (its host's free memory shared by "
        f"{on_host} rank(s)); use more ranks or hosts, or a smaller network"
    )
