"""Names of the exchange counters, properties and dry-run quantities.

The one table is ``cpp/spikex/instrument/counter_names.hpp``; the exchanges and the dry
run report under those names (``summary.json`` ``exchange``, ``spikex model dryrun``), and
the Python side takes them from there through ``_core.counter_names()``. Python lists of
counters are built with ``names(...)``, which refuses a name the table does not have, so
a typo or a renamed counter fails at import instead of silently matching nothing.
"""

from __future__ import annotations

from . import _core

_TABLE = _core.counter_names()
COUNTERS: frozenset[str] = frozenset(_TABLE["counters"])
PROPERTIES: frozenset[str] = frozenset(_TABLE["properties"])
DRY_RUN: frozenset[str] = frozenset(_TABLE["dry_run"])
ROUTE_DIM_PREFIX: str = _TABLE["route_dim_prefix"]
KNOWN: frozenset[str] = COUNTERS | PROPERTIES | DRY_RUN


def known(name: str) -> bool:
    """Whether ``name`` is in the table (``route_dim_<k>`` properties included)."""
    return name in KNOWN or name.startswith(ROUTE_DIM_PREFIX)


def names(*wanted: str) -> tuple[str, ...]:
    """``wanted``, checked against the table.

    Raises
    ------
    RuntimeError
        A name that is not a counter, property or dry-run quantity of the C++ table.
    """
    unknown = [name for name in wanted if not known(name)]
    if unknown:
        raise RuntimeError(f"not in cpp/spikex/instrument/counter_names.hpp: {unknown}")
    return wanted
