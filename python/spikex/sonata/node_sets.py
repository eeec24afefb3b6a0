"""SONATA node sets: which nodes an input (or report) names.

A node set is a name, looked up in the config's ``node_sets`` and in its
``node_sets_file`` (read only when a name needs it), or else taken as a node population's
name (as NEST and BMTK do), ``all`` meaning every node that is not virtual (BMTK's
built-in node set); a dict of conditions (``population``, ``node_id`` (or BMTK's
``node_ids``), and any node attribute: a node type column such as ``model_type``, ``ei``
or ``pop_name``, or a node group dataset), each a value or a list of values; or a list of
node sets (their union).
"""

from __future__ import annotations

import numpy as np

from .config import SonataConfig, read_json
from .errors import SonataError
from .nodes import NodePopulation


class NodeSets:
    """Resolves node sets of one configuration against its node populations."""

    def __init__(self, config: SonataConfig, populations: list[NodePopulation]) -> None:
        self.config = config
        self.populations = {p.name: p for p in populations}
        self._file: dict | None = None

    def _definitions(self) -> dict:
        if self._file is None:
            self._file = {}
            if self.config.node_sets_file is not None and self.config.node_sets_file.exists():
                self._file = read_json(
                    self.config.node_sets_file, "node_sets_file", str(self.config.path)
                )
        return {**self._file, **self.config.node_sets}

    def resolve(self, node_set: object, where: str, depth: int = 0) -> dict[str, np.ndarray]:
        """``{population: sorted node ids}`` of ``node_set``; SonataError naming ``where``
        for a name that is neither a node set nor a population."""
        if depth > 16:
            raise SonataError(where, f"node set {node_set!r} refers to itself")
        if isinstance(node_set, str):
            definitions = self._definitions()
            if node_set in definitions:
                return self.resolve(
                    definitions[node_set], f"{where} (node set {node_set!r})", depth + 1
                )
            if node_set in self.populations:
                return {node_set: np.arange(self.populations[node_set].size)}
            if node_set == "all":
                return {
                    name: p.real_node_ids
                    for name, p in self.populations.items()
                    if p.real_node_ids.size
                }
            source = self.config.node_sets_file
            known = (
                f"{source} does not exist"
                if source is not None and not source.exists()
                else "it is not defined"
            )
            raise SonataError(
                where,
                f"node_set = {node_set!r}: no node set or node population of that name ({known}; populations: {', '.join(self.populations)})",
            )
        if isinstance(node_set, list):
            union: dict[str, np.ndarray] = {}
            for part in node_set:
                for name, ids in self.resolve(part, where, depth + 1).items():
                    union[name] = np.union1d(union.get(name, np.zeros(0, np.int64)), ids)
            return union
        if isinstance(node_set, dict):
            return self._conditions(node_set, where)
        raise SonataError(
            where, f"node_set = {node_set!r}: must be a name, an object of conditions or a list"
        )

    def _conditions(self, conditions: dict, where: str) -> dict[str, np.ndarray]:
        names = conditions.get("population", list(self.populations))
        names = [names] if isinstance(names, str) else list(names)
        for name in names:
            if name not in self.populations:
                raise SonataError(
                    where,
                    f"population = {name!r}: no node population of that name ({', '.join(self.populations)})",
                )
        result = {}
        for name in names:
            population = self.populations[name]
            keep = np.ones(population.size, dtype=bool)
            for key, wanted in conditions.items():
                if key == "population":
                    continue
                values = (
                    np.arange(population.size) if key == "node_id" else population.attribute(key)
                )
                if values is None:
                    keep[:] = False
                    continue
                wanted = wanted if isinstance(wanted, list) else [wanted]
                keep &= np.isin(
                    values, np.asarray(wanted, dtype=object if values.dtype == object else None)
                )
            if keep.any():
                result[name] = np.flatnonzero(keep)
        return result
