"""``[record]``: what a run records."""

from __future__ import annotations

from collections.abc import Callable

from .key import Key

SECTION_DOCS: dict[str, str] = {
    "record": "What is recorded.",
}

REGISTRY: tuple[Key, ...] = (
    Key("record.spikes", "bool", True, "Record the spikes of every cell."),
    Key(
        "record.timeline",
        "bool",
        False,
        "Write timeline.h5: per rank and (sub-)interval computation, send-initiation, wait "
        "and exchange time, conservation rounds, spikes generated / sent / received.",
    ),
)

CROSS_RULES: tuple[str, ...] = ()

CROSS_CHECKS: tuple[Callable[[dict, int], None], ...] = ()
