"""One configuration key (type, default, allowed values, sentence) and reading a value.

The section modules (``simulation``, ``network``, ...) list their keys as ``Key`` entries;
``registry`` puts the tables together.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import ConfigError, format_value

UINT32_MAX = 2**32 - 1


@dataclass(frozen=True)
class Key:
    """One configuration key.

    Parameters
    ----------
    path : str
        Dotted path, e.g. ``network.burst.groups``.
    kind : str
        ``"int"``, ``"float"``, ``"bool"``, ``"choice"``, ``"grid"`` (a process-grid
        shape: ``"auto"``, ``"hypercube"`` or a list of dimension sizes), ``"path"`` (a
        string naming a file or directory; may be empty) or ``"text"`` (any string).
    default : object
        Value used when the key is absent.
    doc : str
        One sentence saying what the key does.
    minimum, maximum : float, optional
        Inclusive bounds (``minimum`` is exclusive when ``exclusive_minimum``).
    choices : tuple, optional
        Allowed values of a ``"choice"`` key.
    """

    path: str
    kind: str
    default: object
    doc: str
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    choices: tuple = ()

    @property
    def section(self) -> str:
        """Dotted section path, e.g. ``network.burst``."""
        return self.path.rsplit(".", 1)[0]

    @property
    def name(self) -> str:
        """Key name inside its section, e.g. ``groups``."""
        return self.path.rsplit(".", 1)[1]

    def range_text(self) -> str:
        """Short description of the allowed values (for tables)."""
        if self.kind == "bool":
            return "true, false"
        if self.kind == "choice":
            return ", ".join(format_value(choice) for choice in self.choices)
        if self.kind == "grid":
            return '"auto", "hypercube", list of sizes >= 1'
        if self.kind == "path":
            return "a path (string)"
        if self.kind == "text":
            return "a string"
        bounds = []
        if self.minimum is not None:
            bounds.append(
                f"{'>' if self.exclusive_minimum else '>='} {format_number(self.minimum)}"
            )
        if self.maximum is not None:
            bounds.append(f"<= {format_number(self.maximum)}")
        return " and ".join(bounds) if bounds else "any"

    def allowed_text(self) -> str:
        """What an error message says is allowed, e.g. ``must be an integer >= 1``."""
        if self.kind == "bool":
            return "must be true or false"
        if self.kind == "choice":
            return "must be one of " + ", ".join(format_value(c) for c in self.choices)
        if self.kind == "grid":
            return 'must be "auto", "hypercube" or a list of dimension sizes >= 1, e.g. [4, 2]'
        if self.kind == "path":
            return "must be a path (a string)"
        if self.kind == "text":
            return "must be a string"
        noun = "an integer" if self.kind == "int" else "a number"
        bounds = self.range_text()
        return f"must be {noun}" + ("" if bounds == "any" else " " + bounds)

    def check(self, value: object) -> object:
        """Return ``value`` normalised (ints accepted for floats), or raise.

        Raises
        ------
        ConfigError
            If the type or the range is wrong.
        """
        normalised = self._coerce(value)
        if normalised is None or not self._in_range(normalised):
            raise ConfigError(self.path, value, self.allowed_text())
        return normalised

    def _coerce(self, value: object) -> object | None:
        # bool is a subclass of int in Python; in a config it is never a number.
        if self.kind == "bool":
            return value if isinstance(value, bool) else None
        if self.kind == "choice":
            return _matching_choice(value, self.choices)
        if self.kind == "grid":
            return _grid_shape(value)
        if self.kind in ("path", "text"):
            return value if isinstance(value, str) and "\0" not in value else None
        if isinstance(value, bool):
            return None
        if self.kind == "int":
            return value if isinstance(value, int) else None
        if isinstance(value, (int, float)) and math.isfinite(value):
            return float(value)
        return None

    def _in_range(self, value: object) -> bool:
        if self.kind not in ("int", "float"):
            return True
        below = self.minimum is not None and (
            value < self.minimum or (self.exclusive_minimum and value == self.minimum)
        )
        if below:
            return False
        return self.maximum is None or value <= self.maximum


def _matching_choice(value: object, choices: tuple) -> object | None:
    # Compare type as well as value so that 1 never matches true.
    for choice in choices:
        if type(value) is type(choice) and value == choice:
            return choice
    return None


def _grid_shape(value: object) -> object | None:
    """``"auto"``, ``"hypercube"``, or a list of ints >= 1 (also written ``"4x2"``)."""
    if value in ("auto", "hypercube"):
        return value
    if isinstance(value, str):
        parts = value.lower().split("x")
        if not all(part.strip().isdigit() for part in parts):
            return None
        value = [int(part) for part in parts]
    if not isinstance(value, (list, tuple)) or not value:
        return None
    if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in value):
        return None
    return list(value)


def format_number(value: float) -> str:
    """``5`` for 5.0, ``0.5`` for 0.5: a bound or limit as a user would write it."""
    return str(int(value)) if float(value).is_integer() else str(value)


def get(config: dict, path: str) -> object:
    """Value of a dotted key in a resolved configuration."""
    section, name = path.rsplit(".", 1)
    return section_table(config, section)[name]


def section_table(config: dict, section: str) -> dict:
    """The table of a dotted section (``network.burst``) in a configuration."""
    table = config
    for part in section.split("."):
        table = table[part]
    return table


def require_at_least(config: dict, key: str, lower_key: str) -> None:
    """`key` must not be below the value of `lower_key`."""
    value, lower = get(config, key), get(config, lower_key)
    if value < lower:
        raise ConfigError(key, value, f"must be >= {lower_key} = {lower}")
