"""The spike-exchange methods, as the C++ registry declares them.

The registry (``cpp/spikex/exchange/method_registry.hpp``; one line per method in
``exchange_registry.cpp``) is the one source of truth: each entry has the method's name,
sentence, capabilities, options (type, default, range, doc sentence), declared variants,
dry-run counting rule, cost formula and docs page. This module turns it into what the
Python side needs: the method list (``EXCHANGE_METHODS``), capability queries, and the
merged ``[exchange]`` options from which ``spikex.config`` makes its keys, the CLI its help
and ``docs/user/config.md`` its table. A new method needs no change here.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import _core

#: Every registered method, in registration order (dicts as _core.exchange_registry()).
REGISTRY: tuple[dict, ...] = tuple(_core.exchange_registry())
#: name -> registry entry (as in ``REGISTRY``)
METHODS: dict[str, dict] = {entry["name"]: entry for entry in REGISTRY}
#: name -> one-line description
EXCHANGE_METHODS: dict[str, str] = {name: entry["description"] for name, entry in METHODS.items()}


def capability(method: str, name: str) -> bool:
    """Whether ``method`` has capability ``name`` (e.g. ``"point_to_point"``)."""
    return bool(METHODS[method]["capabilities"][name])


def methods_with(name: str) -> tuple[str, ...]:
    """The methods that have capability ``name``."""
    return tuple(method for method in METHODS if capability(method, name))


@dataclass(frozen=True)
class ExchangeOption:
    """One key of ``[exchange]``: its spec (as the C++ declares it) and the methods that own
    it (empty for the options every method has)."""

    spec: dict
    owners: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.spec["name"]

    @property
    def variant(self) -> bool:
        """A variant option must keep its default for methods that do not own it."""
        return bool(self.spec["variant"])


def _merged_options() -> dict[str, ExchangeOption]:
    options: dict[str, ExchangeOption] = {}
    for entry in REGISTRY:
        for spec in entry["options"]:
            known = options.get(spec["name"])
            if known is not None and known.spec != spec:
                raise RuntimeError(
                    f"exchange option {spec['name']!r} is declared differently by "
                    f"{known.owners[0]} and {entry['name']} (cpp/spikex/exchange)"
                )
            owners = (known.owners if known else ()) + (entry["name"],)
            options[spec["name"]] = ExchangeOption(spec, owners)
    for spec in _core.common_exchange_options():
        options[spec["name"]] = ExchangeOption(spec, ())
    return options


#: option name -> ExchangeOption, in registry order (common options last)
EXCHANGE_OPTIONS: dict[str, ExchangeOption] = _merged_options()


def variant_label(method: str, values: dict) -> str:
    """``multisend:phases=2:subintervals=2`` (the ``spikex compare --methods`` form)."""
    parts = [method]
    for key, value in sorted(values.items()):
        text = str(value).lower() if isinstance(value, bool) else str(value)
        parts.append(f"{key}={text}")
    return ":".join(parts)


def declared_variants(method: str) -> tuple[dict, ...]:
    """The option sets the conformance suite runs for ``method``: defaults first."""
    return ({},) + tuple(dict(values) for values in METHODS[method]["variants"])


def variant_labels(method: str) -> list[str]:
    """Every declared variant of ``method`` as ``spikex compare --methods`` labels; a
    target-addressed method also with the creation-order connection layout."""
    labels = [variant_label(method, values) for values in declared_variants(method)]
    if METHODS[method]["capabilities"]["target_addressed"]:
        labels.append(f"{method}:connections.sort_by_source=false")
    return labels


def all_variant_labels() -> list[str]:
    """``variant_labels`` of every registered method, in registry order."""
    return [label for method in METHODS for label in variant_labels(method)]
