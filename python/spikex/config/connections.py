"""``[connections]``: how each rank stores the connections of its cells."""

from __future__ import annotations

from collections.abc import Callable

from ..errors import ConfigError
from .key import Key, get

SECTION_DOCS: dict[str, str] = {
    "connections": "How each rank stores the connections of its cells (NEST's two-tier store).",
}

REGISTRY: tuple[Key, ...] = (
    Key(
        "connections.sort_by_source",
        "bool",
        True,
        "Sort each rank's connections by source (NEST 5g-sort: one target entry per source "
        "run); false keeps creation order (5g-nosort: one entry per connection). "
        "Source-addressed methods (allgather) always sort.",
    ),
    Key(
        "connections.keep_sources",
        "bool",
        True,
        "Keep the source table after init; false frees it (sorted layout only) and "
        "connectivity can then no longer be queried.",
    ),
)

CROSS_RULES: tuple[str, ...] = (
    "`connections.keep_sources = false` needs `connections.sort_by_source = true`.",
)


def _check_keep_sources(config: dict, ranks: int) -> None:
    if get(config, "connections.keep_sources") or get(config, "connections.sort_by_source"):
        return
    raise ConfigError(
        "connections.keep_sources",
        False,
        "needs connections.sort_by_source = true (unsorted connections need their sources "
        "to order the inputs of a step canonically)",
    )


CROSS_CHECKS: tuple[Callable[[dict, int], None], ...] = (_check_keep_sources,)
