"""The configuration registry: every key, its type, default, allowed values and meaning.

This registry is the single source of truth for configuration. ``load_config`` fills
defaults from it, ``validate`` checks against it, error messages quote it, and
``python -m spikex.config --markdown`` renders it as ``docs/user/config.md``.

=================  ======================================================================
module             holds
=================  ======================================================================
``key``            ``Key`` (one key: type, default, range, sentence) and ``get``
``simulation``     the ``[simulation]`` keys
``network``        the ``[network]`` keys and sub-sections, and the rules between them
``distribution``   the ``[distribution]`` keys
``exchange``       the ``[exchange]`` keys and every rule about them (self-contained)
``connections``    the ``[connections]`` keys and their rule
``record``         the ``[record]`` keys
``populations``    ``models``, ``[[populations]]`` and ``[[projections]]``: a user's own network
``registry``       the sections put together: ``REGISTRY``, ``KEYS``, ``CROSS_RULES``, ...
``validate``       load, fill defaults, ``--set`` overrides, validation
``markdown``       ``docs/user/config.md`` (``python -m spikex.config --markdown``)
=================  ======================================================================
"""

from __future__ import annotations

from .key import Key, get
from .markdown import describe
from .registry import CROSS_RULES, KEYS, REGISTRY, SECTION_DOCS, SECTIONS
from .validate import (
    apply_overrides,
    load_config,
    parse_override,
    resolve,
    resolved_config,
    validate,
)

__all__ = [
    "CROSS_RULES",
    "KEYS",
    "REGISTRY",
    "SECTIONS",
    "SECTION_DOCS",
    "Key",
    "apply_overrides",
    "describe",
    "get",
    "load_config",
    "parse_override",
    "resolve",
    "resolved_config",
    "validate",
]
