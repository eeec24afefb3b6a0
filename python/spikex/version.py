"""The package version, from the installed distribution's metadata."""

from __future__ import annotations

from importlib import metadata

try:
    __version__ = metadata.version("spikex")
except metadata.PackageNotFoundError:  # imported from a source tree that is not installed
    __version__ = "0.0.0+unknown"
