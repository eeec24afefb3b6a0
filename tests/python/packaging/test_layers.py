"""The Python package's layering (docs/dev/architecture.md, "Layers"): a module imports
only from its own subpackage or from a lower layer, and no import cycle exists, lazy
imports inside functions included. Read from the source with ast, nothing imported."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

from conftest import REPO

PACKAGE = REPO / "python" / "spikex"
# Lowest first. One place for the order: architecture.md's table says the same in words.
LAYERS = [
    {"errors", "version", "methods", "counters", "distributions"},  # the core's registries as Python sees them; random distributions
    {"nestml"},  # users' NESTML models built into model libraries and loaded into the core's registry
    {"models"},  # the model registry and the network builders
    {"sonata"},  # SONATA circuits as input (builds through a Network it is given)
    {"config"},  # the configuration registry and validation
    {"runtime"},  # what a running rank needs: allocation, watchdog, collectives
    {"io"},  # result files, checkpoints
    {"api"},  # Network, Population, Result
    {"launch"},  # jobs: the launcher, a run's parent and ranks
    {"pynn", "compare"},
    {"plots"},
    {"results", "scaling"},
    {"cli", "__main__"},  # the command line: nothing imports it
]
LEVEL = {name: level for level, names in enumerate(LAYERS) for name in names}
# The package's own __init__ is the public facade (`import spikex as sx`): it may import
# the API; `from spikex import _core` / `__version__` name the extension and the version.
LEAVES = {"_core", "__version__"}


def modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        name = ".".join(("spikex", *path.relative_to(PACKAGE).with_suffix("").parts))
        found[name.removesuffix(".__init__")] = path
    return found


def imports() -> dict[str, set[tuple[str, int]]]:
    """Module -> (imported spikex module, line), every import in the module's source."""
    found = modules()
    edges = defaultdict(set)
    for name, path in found.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
                if not base.startswith("spikex"):
                    continue
                for alias in node.names:
                    if base == "spikex" and alias.name in LEAVES:
                        continue
                    full = f"{base}.{alias.name}"
                    edges[name].add((full if full in found else base, node.lineno))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("spikex"):
                        edges[name].add((alias.name, node.lineno))
    return edges


def subpackage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "spikex"


def test_every_subpackage_has_a_layer():
    names = {subpackage(m) for m in modules()} - {"spikex", "_core"}
    assert names <= set(LEVEL), f"give these a layer in LAYERS: {sorted(names - set(LEVEL))}"


def test_no_module_imports_a_higher_layer():
    upward = []
    for module, targets in imports().items():
        source = subpackage(module)
        for target, line in targets:
            destination = subpackage(target)
            if destination == "spikex" and source != "spikex" and LEVEL[source] < LEVEL["api"]:
                upward.append(f"{module}:{line} imports the facade spikex (it imports api)")
                continue
            if "spikex" in (source, destination) or source == destination:
                continue  # the facade, or within a subpackage
            if LEVEL[destination] > LEVEL[source]:
                upward.append(f"{module}:{line} imports {target}")
    assert upward == []


def test_no_import_cycle():
    """Between modules (the facade aside), lazy imports included."""
    graph = {
        module: {t for t, _ in targets if t != "spikex" and t in modules()}
        for module, targets in imports().items()
        if module != "spikex"
    }
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    cycles = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                cycles.append(" -> ".join(path[path.index(target) :] + [module, target]))
            elif target not in state:
                visit(target, [*path, module])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [])
    assert cycles == []
