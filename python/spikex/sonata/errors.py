"""The one error a SONATA circuit or configuration can cause: ``SonataError``."""

from __future__ import annotations

from ..errors import UserInputError


class SonataError(UserInputError):
    """A SONATA file is missing or wrong: one line naming the file, the key and the value.

    A ``ValueError`` (through ``UserInputError``): the Python API raises it as it is, and
    ``spikex run`` prints it as one line and exits with status 2.
    """

    def __init__(self, where: str, message: str | None = None) -> None:
        text = where if message is None else f"{where}: {message}"
        super().__init__(" ".join(text.split()))
