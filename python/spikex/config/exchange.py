"""``[exchange]``: how spikes are exchanged between ranks, and every rule about it.

Self-contained on purpose: the keys of the section, the rules between them and the
checks of those rules live here and nowhere else (``registry`` only collects
``SECTION_DOCS``, ``REGISTRY``, ``CROSS_RULES`` and ``CROSS_CHECKS``), so that this one
file can be replaced by keys generated from the C++ method registry.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..errors import ConfigError
from ..methods import EXCHANGE_METHODS
from .key import UINT32_MAX, Key, get, require_at_least
from .network import network_cells, network_delay_ms

# Compressed Allgather entries are one byte of local cell index + one byte of step.
COMPRESS_LIMIT = 256

# Point-to-point methods that accept exchange.subintervals = 2 / exchange.phases = 2
# (the C++ methods refuse the others: cpp/spikex/exchange/point_to_point.hpp).
SUBINTERVAL_METHODS: tuple[str, ...] = ("multisend", "persistent", "rma")
TWO_PHASE_METHODS: tuple[str, ...] = ("multisend",)

SECTION_DOCS: dict[str, str] = {
    "exchange": "How spikes are exchanged between ranks.",
}

REGISTRY: tuple[Key, ...] = (
    Key(
        "exchange.method",
        "choice",
        "allgather",
        "Spike-exchange method.",
        choices=tuple(EXCHANGE_METHODS),
    ),
    Key(
        "exchange.allgather_slots",
        "int",
        10,
        "Spike slots per rank in the fixed-size MPI_Allgather; more spikes go in an "
        "overflow MPI_Allgatherv.",
        minimum=1,
    ),
    Key(
        "exchange.compress",
        "choice",
        "auto",
        "2-byte spike entries (local cell byte + step byte): auto uses them when every rank "
        "has <= 256 cells and an interval <= 256 steps.",
        choices=("auto", True, False),
    ),
    Key(
        "exchange.source_lookup",
        "choice",
        "dense",
        "Table that finds whether a received source gid has local targets.",
        choices=("dense", "hash", "sorted"),
    ),
    Key(
        "exchange.measure_wait",
        "bool",
        True,
        "Call MPI_Barrier before each collective (or conservation loop) so that waiting for "
        "the slowest rank and the exchange itself are timed separately.",
    ),
    Key(
        "exchange.alltoall_min_entries",
        "int",
        16,
        "alltoall: smallest section size (entries per destination rank per round); the "
        "section adapts between this and alltoall_max_entries.",
        minimum=1,
        maximum=UINT32_MAX,
    ),
    Key(
        "exchange.alltoall_max_entries",
        "int",
        1048576,
        "alltoall: largest section size; an interval with more entries for one rank takes "
        "further rounds.",
        minimum=1,
        maximum=UINT32_MAX,
    ),
    Key(
        "exchange.max_init_buffer_mb",
        "float",
        128.0,
        "alltoall, alltoallv: bound in MB of the MPI buffer of one round of target-table "
        "construction during init (NEST's default is 128 MB); more data takes more rounds.",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    Key(
        "exchange.subintervals",
        "int",
        1,
        "multisend, persistent, rma: 2 cuts each min-delay interval into sub-intervals A and "
        "B with a conservation check at each end; a spike sent in A need only arrive by the "
        "end of B (Hines et al. 2011).",
        minimum=1,
        maximum=2,
    ),
    Key(
        "exchange.phases",
        "int",
        1,
        "multisend: 2 sends each spike to ~sqrt(Nt) relay ranks, which forward it to the "
        "rest of the cell's Nt target ranks (two-phase multisend).",
        minimum=1,
        maximum=2,
    ),
    Key(
        "exchange.max_pending_sends",
        "int",
        1024,
        "multisend, persistent: most MPI_Isend requests in flight per rank; a full pool "
        "completes old sends before new ones start.",
        minimum=1,
        maximum=2**31 - 1,
    ),
    Key(
        "exchange.rma_slot_spikes",
        "int",
        2,
        "rma: spikes one source's slot in a target's window holds between two interval "
        "ends; more are written in the conservation loop.",
        minimum=1,
        maximum=2**16,
    ),
    Key(
        "exchange.route_dims",
        "grid",
        "auto",
        "routed: logical process grid, dimension 0 varying fastest; only the last dimension "
        "may be incomplete. auto: least modelled cost per spike item (docs/methods/routed.md): "
        "direct ([P]) up to 128 ranks with budget 1024, then balanced, e.g. [16, 16]; "
        "hypercube: all 2 (power-of-two ranks).",
    ),
    Key(
        "exchange.route_budget",
        "int",
        1024,
        "routed: spike items a rank may buffer (send buckets + receive buffers); each bucket "
        "holds budget / (sum of dims) items (Garg & Sabharwal's 1024 / (X + Y + Z)).",
        minimum=1,
        maximum=2**31 - 1,
    ),
)

CROSS_RULES: tuple[str, ...] = (
    (
        "`exchange.compress = true` needs at most 256 cells per rank (ceil(cells/ranks)) and "
        "at most 256 steps per interval (delay_ms/dt_ms)."
    ),
    "`exchange.alltoall_max_entries` >= `exchange.alltoall_min_entries`.",
    "`exchange.max_init_buffer_mb` holds at least two 16-byte records per rank.",
    (
        "`exchange.subintervals = 2` needs `exchange.method` = multisend, persistent or rma, "
        "and at least 2 steps per interval (delay_ms/dt_ms)."
    ),
    '`exchange.phases = 2` needs `exchange.method = "multisend"`.',
    (
        "routed: `exchange.route_dims` must fit the rank count (all planes full but the last) "
        "and `exchange.route_budget` >= the number of buckets (sum of dims, + 1 if ragged)."
    ),
)


def _check_compress(config: dict, ranks: int) -> None:
    if get(config, "exchange.compress") is not True:
        return
    cells_per_rank = -(-network_cells(config) // max(ranks, 1))
    steps = math.floor(network_delay_ms(config) / get(config, "simulation.dt_ms") + 0.5)
    if cells_per_rank > COMPRESS_LIMIT or steps > COMPRESS_LIMIT:
        raise ConfigError(
            "exchange.compress",
            True,
            f"2-byte entries need <= {COMPRESS_LIMIT} cells per rank and <= {COMPRESS_LIMIT} "
            f"steps per interval, this run has {cells_per_rank} cells per rank on {ranks} "
            f'rank(s) and {steps} steps per interval; use "auto" or false',
        )


def _check_alltoall_sections(config: dict, ranks: int) -> None:
    require_at_least(config, "exchange.alltoall_max_entries", "exchange.alltoall_min_entries")


def _check_init_buffer(config: dict, ranks: int) -> None:
    # One round of target-table construction carries, per rank pair, a count record and
    # at least one 16-byte entry.
    needed = 2 * 16 * max(ranks, 1)
    limit = get(config, "exchange.max_init_buffer_mb")
    if limit * 1048576 < needed:
        raise ConfigError(
            "exchange.max_init_buffer_mb",
            limit,
            f"must hold at least {needed} bytes (two 16-byte records per rank) on {ranks} rank(s)",
        )


def _check_point_to_point(config: dict, ranks: int) -> None:
    method = get(config, "exchange.method")
    if get(config, "exchange.subintervals") == 2:
        if method not in SUBINTERVAL_METHODS:
            raise ConfigError(
                "exchange.subintervals",
                2,
                f"needs exchange.method = one of {', '.join(SUBINTERVAL_METHODS)} "
                f"(exchange.method = {method!r} exchanges once per interval); use 1",
            )
        steps = math.floor(network_delay_ms(config) / get(config, "simulation.dt_ms") + 0.5)
        if steps < 2:
            raise ConfigError(
                "exchange.subintervals",
                2,
                f"needs at least 2 steps per interval, this run has {steps} "
                "(network.delay_ms / simulation.dt_ms); use 1",
            )
    if get(config, "exchange.phases") == 2 and method not in TWO_PHASE_METHODS:
        raise ConfigError(
            "exchange.phases",
            2,
            f'the two-phase relay is a variant of exchange.method = "multisend", not {method!r}; '
            "use 1",
        )


def _check_route(config: dict, ranks: int) -> None:
    if get(config, "exchange.method") != "routed":
        return
    from .. import _core  # the route library decides what fits; one implementation

    dims, budget = get(config, "exchange.route_dims"), get(config, "exchange.route_budget")
    plan = _core.route_plan(max(ranks, 1), dims, budget)
    if plan["dims_error"]:
        raise ConfigError("exchange.route_dims", dims, f"on {ranks} rank(s): {plan['dims_error']}")
    if plan["budget_error"]:
        raise ConfigError("exchange.route_budget", budget, plan["budget_error"])


CROSS_CHECKS: tuple[Callable[[dict, int], None], ...] = (
    _check_compress,
    _check_alltoall_sections,
    _check_init_buffer,
    _check_point_to_point,
    _check_route,
)
