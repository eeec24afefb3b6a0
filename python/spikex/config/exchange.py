"""``[exchange]``: how spikes are exchanged between ranks, and every rule about it.

The keys are generated from the C++ exchange-method registry (``spikex.methods``, which
reads ``cpp/spikex/exchange/method_registry.hpp``): ``exchange.method`` takes the
registered names, and every option a method declares becomes ``exchange.<name>`` with the
type, default, range and sentence the method gives it, prefixed with the methods that own
it. A new method or option needs no change here. What remains hand-written are the rules
between keys that need the rank count or other sections (checked before a launch; the
C++ checks them again).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..errors import ConfigError, format_value
from ..methods import EXCHANGE_METHODS, EXCHANGE_OPTIONS, METHODS
from .key import Key, get, require_at_least
from .network import network_delay_ms

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
    *(
        Key(
            f"exchange.{option.name}",
            option.spec["kind"],
            option.spec["default"],
            (", ".join(option.owners) + ": " if option.owners else "") + option.spec["doc"],
            minimum=option.spec["minimum"],
            maximum=option.spec["maximum"],
            exclusive_minimum=option.spec["exclusive_minimum"],
            choices=tuple(option.spec["choices"]),
        )
        for option in EXCHANGE_OPTIONS.values()
    ),
)

CROSS_RULES: tuple[str, ...] = (
    "`exchange.alltoall_max_entries` >= `exchange.alltoall_min_entries`.",
    "`exchange.max_init_buffer_mb` holds at least two 16-byte records per rank.",
    (
        "A variant option (`exchange.subintervals`, `exchange.phases`) other than its default "
        "needs a method that has it (the methods named in its description)."
    ),
    "`exchange.subintervals = 2` needs at least 2 steps per interval (delay_ms/dt_ms).",
    (
        "routed: `exchange.route_dims` must fit the rank count (all planes full but the last) "
        "and `exchange.route_budget` >= the number of buckets (sum of dims, + 1 if ragged)."
    ),
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


def _check_variant_options(config: dict, ranks: int) -> None:
    # The registry's rule (C++ foreign_option_problem), checked before a launch.
    method = get(config, "exchange.method")
    for option in EXCHANGE_OPTIONS.values():
        value = get(config, f"exchange.{option.name}")
        if option.variant and method not in option.owners and value != option.spec["default"]:
            raise ConfigError(
                f"exchange.{option.name}",
                value,
                f"a variant of {', '.join(option.owners)}; exchange.method = {method!r} does not "
                f"have it (use {format_value(option.spec['default'])})",
            )
    if get(config, "exchange.subintervals") == 2:
        steps = math.floor(network_delay_ms(config) / get(config, "simulation.dt_ms") + 0.5)
        if steps < 2:
            raise ConfigError(
                "exchange.subintervals",
                2,
                # the wording of cpp/spikex/engine/interval_schedule.hpp (checked there
                # again, once the minimum delay is known)
                f"needs at least 2 steps per interval (min delay / dt), this run has {steps}; use 1",
            )


def _check_route(config: dict, ranks: int) -> None:
    if not METHODS[get(config, "exchange.method")]["capabilities"]["process_grid"]:
        return
    from .. import _core  # the route library decides what fits; one implementation

    dims, budget = get(config, "exchange.route_dims"), get(config, "exchange.route_budget")
    plan = _core.route_plan(max(ranks, 1), dims, budget)
    if plan["dims_error"]:
        raise ConfigError("exchange.route_dims", dims, f"on {ranks} rank(s): {plan['dims_error']}")
    if plan["budget_error"]:
        raise ConfigError("exchange.route_budget", budget, plan["budget_error"])


CROSS_CHECKS: tuple[Callable[[dict, int], None], ...] = (
    _check_alltoall_sections,
    _check_init_buffer,
    _check_variant_options,
    _check_route,
)
