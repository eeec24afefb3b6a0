"""Runs one scenario in this (child) process and writes its outcome as JSON.

    python pynn_child.py PARENT PACKAGE MODULE FUNCTION BACKEND RESULT_JSON

imports ``PACKAGE.MODULE`` from ``PARENT``, imports the backend module (``spikex.pynn``)
and calls ``FUNCTION(sim=backend)``, as pytest's parametrize would. A missing backend is
a failure like any other. The outcome goes to a file, not stdout, because scenarios print.
No outcome file means the interpreter died (the parent says "crashed").
"""

from __future__ import annotations

import importlib
import json
import sys
import traceback

# The exceptions that mean "the backend does not offer this". pyNN's and pytest's classes
# are taken from sys.modules: a scenario that raised one has imported its module already.
PYNN_NOT_SUPPORTED = (
    "NotImplementedError",  # older PyNN versions have their own
    "InvalidModelError",
    "NoModelAvailableError",  # PyNN's "this simulator has no model for that"
)
REASON_CHARS = 200


def not_supported_classes() -> tuple[type, ...]:
    """What the backend raises when it refuses a scenario."""
    classes = [NotImplementedError]
    pynn_errors = sys.modules.get("pyNN.errors")
    classes += [
        getattr(pynn_errors, name) for name in PYNN_NOT_SUPPORTED if hasattr(pynn_errors, name)
    ]
    return tuple(classes)


def skip_classes() -> tuple[type, ...]:
    """pytest.skip(...): the scenario itself stepped aside (a package it needs is missing,
    such as morphio), before the backend had a say."""
    pytest = sys.modules.get("pytest")
    return (pytest.skip.Exception,) if pytest is not None else ()


def classify(error: BaseException) -> tuple[str, str]:
    """(result, reason) for a scenario that raised ``error``: not-supported (refused by
    the backend), skipped (by the scenario, for its environment) or fail."""
    message = first_line(getattr(error, "msg", None) or str(error))
    if isinstance(error, skip_classes()):
        return "skipped", message or f"{type(error).__name__}{raised_at(error)}"
    if isinstance(error, not_supported_classes()):
        return "not-supported", message or f"{type(error).__name__}{raised_at(error)}"
    name = type(error).__qualname__
    if type(error).__module__ not in ("builtins", "__main__"):
        name = f"{type(error).__module__}.{name}"
    return "fail", f"{name}: {message}" if message else f"{name}{raised_at(error)}"


def raised_at(error: BaseException) -> str:
    """Where ``error`` was raised, as " (in folder/file.py:line)": the reason given for an
    exception without a message must still say something."""
    frame = error.__traceback__
    if frame is None:
        return ""
    while frame.tb_next is not None:
        frame = frame.tb_next
    path = frame.tb_frame.f_code.co_filename.split("/")
    return f" (in {'/'.join(path[-2:])}:{frame.tb_lineno})"


def first_line(text: str) -> str:
    """The first non-empty line of ``text``, cut to REASON_CHARS characters."""
    line = next((line.strip() for line in str(text).splitlines() if line.strip()), "")
    return line if len(line) <= REASON_CHARS else line[: REASON_CHARS - 1] + "…"


def run(parent: str, package: str, module: str, function: str, backend: str) -> tuple[str, str]:
    sys.path.insert(0, parent)
    try:
        scenario = getattr(importlib.import_module(f"{package}.{module}"), function)
        scenario(sim=importlib.import_module(backend))
    except BaseException as error:  # noqa: BLE001 - SystemExit and pytest's outcomes too
        traceback.print_exc()  # to the child's stderr: `harness.py --verbose` shows it
        return classify(error)
    return "pass", ""


def main(argv: list[str]) -> int:
    parent, package, module, function, backend, result_path = argv
    result, reason = run(parent, package, module, function, backend)
    with open(result_path, "w") as out:
        json.dump({"result": result, "reason": reason}, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
