"""The registry: every configuration key, section and rule, collected from the sections.

One module per section (``simulation``, ``network``, ``distribution``, ``exchange``,
``connections``, ``record``, ``checkpoint``) defines ``SECTION_DOCS``, its ``REGISTRY`` of keys, the
``CROSS_RULES`` between them (one sentence each, for the docs) and the ``CROSS_CHECKS``
that enforce those rules. The order of ``SECTION_MODULES`` is the order of the sections
in ``docs/user/config.md`` and of the checks in ``validate``.
"""

from __future__ import annotations

from collections.abc import Callable

from . import checkpoint, connections, distribution, exchange, network, record, simulation
from .key import Key

SECTION_MODULES = (simulation, network, distribution, exchange, connections, record, checkpoint)

SECTION_DOCS: dict[str, str] = {
    name: doc for module in SECTION_MODULES for name, doc in module.SECTION_DOCS.items()
}
REGISTRY: tuple[Key, ...] = tuple(key for module in SECTION_MODULES for key in module.REGISTRY)
KEYS: dict[str, Key] = {key.path: key for key in REGISTRY}
SECTIONS: tuple[str, ...] = tuple(SECTION_DOCS)
CROSS_RULES: tuple[str, ...] = tuple(
    rule for module in SECTION_MODULES for rule in module.CROSS_RULES
)
CROSS_CHECKS: tuple[Callable[[dict, int], None], ...] = tuple(
    check for module in SECTION_MODULES for check in module.CROSS_CHECKS
)
