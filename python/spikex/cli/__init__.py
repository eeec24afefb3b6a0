"""The ``spikex`` command line (``commands``: click's group and its commands; ``demo``).
The top layer: it may import everything, nothing imports it (docs/dev/architecture.md)."""

from .commands import main

__all__ = ["main"]
