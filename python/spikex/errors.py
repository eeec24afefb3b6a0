"""Exceptions that carry a user-facing, one-line message.

Every error a user can cause (bad configuration, bad argument, bad API call) is a
``ValueError`` subclass, so Python API users catch one type and the command line turns
it into exit status 2 with one line and no traceback.
"""

from __future__ import annotations

_NO_VALUE = object()


def format_value(value: object) -> str:
    """Render a configuration value as it would be written in TOML.

    Parameters
    ----------
    value : object
        A value read from TOML, ``--set`` or a Python call.

    Returns
    -------
    str
        ``true``/``false`` for booleans, double-quoted strings, ``repr`` otherwise.
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {format_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    return repr(value)


class ConfigError(ValueError):
    """A configuration key has a value that is not allowed.

    Parameters
    ----------
    key : str
        Dotted key path (``network.cells``), a section, a file or an option name.
    value : object, optional
        The offending value; omitted when there is none (missing file, unknown section).
    allowed : str
        What would be accepted, e.g. ``"must be an integer >= 1"``.

    Notes
    -----
    ``str(error)`` is always a single line, for example
    ``config error: network.cells = -5: must be an integer >= 1``.
    """

    def __init__(self, key: str, value: object = _NO_VALUE, allowed: str = "") -> None:
        self.key = key
        self.value = value
        self.allowed = allowed
        super().__init__(self._one_line())

    @property
    def has_value(self) -> bool:
        """Whether the error refers to a concrete value."""
        return self.value is not _NO_VALUE

    def _one_line(self) -> str:
        subject = self.key
        if self.has_value:
            subject = f"{self.key} = {format_value(self.value)}"
        text = f"config error: {subject}: {self.allowed}"
        # Never more than one line, whatever the value contained.
        return " ".join(text.split())


class UserInputError(ValueError):
    """A user error reported by a worker or the core, message kept verbatim.

    Parameters
    ----------
    message : str
        One line; the command line prints it and exits with status 2.
    """


class RunError(RuntimeError):
    """A run failed after it was launched (a rank died or the job was aborted).

    Parameters
    ----------
    message : str
        One line naming the rank and the cause.
    """
