"""Finds the scenarios in PyNN's ``scenarios`` package, the way pytest would collect them.

A scenario is a function of a ``test*`` module whose name starts with ``test`` and that
carries a ``parametrize`` mark over ``sim`` (PyNN's ``@run_with_simulators(...)``). The
simulator names in the mark are ignored: every scenario runs against our backend. Helper
functions without the mark are not scenarios, and neither is a marked function that
pytest would not collect (``test_cell_types.issue367``).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Scenario:
    package: str  # the package's import name, "scenarios" for PyNN's
    module: str  # "test_connectors"
    function: str  # "test_issue309"

    @property
    def id(self) -> str:
        return f"{self.module}::{self.function}"


class CollectError(RuntimeError):
    """A scenario module does not import (the harness exits 2: its set-up is broken)."""


def collect(parent: Path, package: str = "scenarios") -> list[Scenario]:
    """Every scenario of ``parent/package``, modules by name, functions in source order."""
    if str(parent) not in sys.path:
        sys.path.insert(0, str(parent))
    root = importlib.import_module(package)
    found = []
    for info in sorted(pkgutil.iter_modules(root.__path__), key=lambda info: info.name):
        if not info.name.startswith("test"):
            continue
        try:
            module = importlib.import_module(f"{package}.{info.name}")
        except Exception as error:  # any import failure: the harness's set-up is broken
            raise CollectError(
                f"{package}.{info.name} does not import: {type(error).__name__}: {error}"
            ) from error
        functions = [
            value
            for name, value in vars(module).items()
            if name.startswith("test")
            and inspect.isfunction(value)
            and value.__module__ == module.__name__
            and parametrized_over_sim(value)
        ]
        functions.sort(key=lambda function: function.__code__.co_firstlineno)
        found += [Scenario(package, info.name, function.__name__) for function in functions]
    return found


def parametrized_over_sim(function) -> bool:
    """Whether ``function`` carries ``pytest.mark.parametrize("sim", ...)``."""
    for mark in getattr(function, "pytestmark", []):
        if getattr(mark, "name", None) != "parametrize" or not mark.args:
            continue
        names = mark.args[0]
        if isinstance(names, str):
            names = [name.strip() for name in names.split(",")]
        if "sim" in names:
            return True
    return False
