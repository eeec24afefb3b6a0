"""Method variants for ``spikex compare --methods``: an exchange method plus its options.

The papers compare variants of one method as separate columns (Hines et al. 2011: MPI_Isend
with one or two sub-intervals and phases; Allgather with 10, 20 or 40 slots; Jordan et al.
2018: 5g with and without sorting by source). ``--methods`` therefore takes, separated by
commas, either a method name or a method name followed by ``:KEY=VALUE`` options::

    allgather
    allgather:allgather_slots=20
    multisend:subintervals=2:phases=2
    alltoall:connections.sort_by_source=false

A KEY without a dot is a key of ``[exchange]``; a dotted KEY is a full configuration path.
The method names are those of ``spikex.methods.EXCHANGE_METHODS`` at run time, so a newly
registered method is accepted without any change here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..config import KEYS, parse_override
from ..errors import ConfigError
from ..methods import EXCHANGE_METHODS

OPTION_SEPARATOR = ":"
METHOD_SEPARATOR = ","
METHOD_KEY = "exchange.method"


@dataclass(frozen=True)
class MethodVariant:
    """One column of a comparison: an exchange method and the keys set for it.

    Attributes
    ----------
    label : str
        The specification as given, normalised (``multisend:subintervals=2``).
    method : str
        Exchange method name (a key of ``EXCHANGE_METHODS``).
    overrides : tuple of str
        ``KEY=VALUE`` overrides (full dotted keys) that make this variant, after
        ``exchange.method=<method>``.
    """

    label: str
    method: str
    overrides: tuple[str, ...]

    @property
    def slug(self) -> str:
        """The label as a directory name (``multisend-subintervals2-phases2``)."""
        text = self.label.replace(OPTION_SEPARATOR, "-").replace("=", "")
        return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)

    def run_overrides(self) -> tuple[str, ...]:
        """Every ``--set`` item of a run of this variant."""
        return (f"{METHOD_KEY}={self.method}", *self.overrides)


def methods_help() -> str:
    """What ``--methods`` accepts, naming the methods registered now."""
    return (
        "comma-separated exchange methods ("
        + ", ".join(EXCHANGE_METHODS)
        + "), each optionally with :KEY=VALUE options, e.g. allgather:allgather_slots=20"
    )


def parse_method_variants(text: str | list[str] | tuple[str, ...]) -> tuple[MethodVariant, ...]:
    """Parse ``--methods`` into method variants.

    Parameters
    ----------
    text : str or sequence of str
        ``"allgather,multisend:subintervals=2"``, or the same as a list of specifications.

    Returns
    -------
    tuple of MethodVariant
        In the order given.

    Raises
    ------
    ConfigError
        Empty list, unknown method, malformed or unknown option key, a repeated variant,
        or an option that sets ``exchange.method`` itself.
    """
    specs = text.split(METHOD_SEPARATOR) if isinstance(text, str) else list(text)
    specs = [spec.strip() for spec in specs if spec.strip()]
    if not specs:
        raise ConfigError("--methods", text if isinstance(text, str) else "", methods_help())
    variants = tuple(parse_method_variant(spec) for spec in specs)
    labels = [variant.label for variant in variants]
    for label in labels:
        if labels.count(label) > 1:
            raise ConfigError("--methods", label, "is listed twice; list each variant once")
    return variants


def parse_method_variant(spec: str) -> MethodVariant:
    """Parse one ``METHOD[:KEY=VALUE...]`` specification (see module docstring)."""
    name, *options = [part.strip() for part in spec.split(OPTION_SEPARATOR)]
    if name not in EXCHANGE_METHODS:
        raise ConfigError("--methods", name, "unknown exchange method; " + methods_help())
    overrides = []
    for option in options:
        key = _option_key(spec, option)
        overrides.append(f"{key}={option.partition('=')[2].strip()}")
    label = OPTION_SEPARATOR.join([name, *(_short(item) for item in overrides)])
    return MethodVariant(label=label, method=name, overrides=tuple(overrides))


def _option_key(spec: str, option: str) -> str:
    """Full configuration key of one ``KEY=VALUE`` option (value checked later, per run)."""
    if "=" not in option:
        raise ConfigError(
            "--methods", spec, f"option {option!r} must be KEY=VALUE, e.g. multisend:subintervals=2"
        )
    key, _ = parse_override(option)
    full_key = key if "." in key else f"exchange.{key}"
    if full_key == METHOD_KEY:
        raise ConfigError("--methods", spec, "the method is the name before the first ':'")
    if full_key not in KEYS:
        raise ConfigError(
            "--methods",
            spec,
            f"unknown option key {key!r}; a key of [exchange] (e.g. allgather_slots) or a full "
            "configuration path (e.g. connections.sort_by_source), see docs/user/config.md",
        )
    return full_key


def _short(override: str) -> str:
    """``exchange.subintervals=2`` -> ``subintervals=2`` (other sections keep their path)."""
    return override.removeprefix("exchange.")
