"""Changes before and between runs (``Network.set``): NEST's ``SetStatus`` between
``Simulate`` calls, PyNN's ``set()``/``initialize()`` after ``run()``.

A change names cells and a parameter or state variable of their model. Before the network
is built it changes what the network will be built with. Between runs, a recordable state
variable (``V_m``, ``g_ex``, ``w``, ...) is set at once; a parameter changes from the next
step on: the cells' groups are built again from it, their state carried over (the
absolute ``V_m`` kept when ``E_L`` changes, as NEST keeps it), and a device's new settings
apply to what it emits from then on (inputs already on their way keep the old ones).
Connectivity cannot change (``connect`` stays refused once built).

Every change between runs is kept (step, cells, name, values) so that a checkpoint taken
after it resumes with it (``checkpointing.py`` replays the parameter changes).
"""

from __future__ import annotations

import numpy as np

from ..errors import format_value
from ..models import LIST_PARAMETERS, MODELS, is_state_variable
from .population import Population


def change(network, cells, values: dict, from_step: int | None = None) -> list[dict]:
    """Apply the changes ``values`` (name -> value) to ``cells`` (collective); returns the
    records of what changed (one per population touched and name or list group)."""
    where = f"set({', '.join(values)})"
    if isinstance(cells, Population):
        gids = np.arange(cells.first_gid, cells.stop_gid, dtype=np.int64)
    else:
        gids = network._gid_array(where, "cells", np.atleast_1d(cells))
    order = np.argsort(gids, kind="stable")
    gids = gids[order]
    if gids.size == 0:
        return []
    if np.any(np.diff(gids) == 0):
        raise ValueError(f"{where}: cells contains gid {int(gids[np.argmax(np.diff(gids) == 0)])} twice")
    step = int(network._engine.step if from_step is None else from_step)
    built = network._state != "open"
    records = []
    for population in network.populations:
        inside = (gids >= population.first_gid) & (gids < population.stop_gid)
        if not inside.any():
            continue
        mine, positions = gids[inside], order[inside]
        model = population.model
        lists = {k: v for k, v in values.items() if k in LIST_PARAMETERS[model]}
        for name, value in values.items():
            if name in lists:
                continue
            if name not in MODELS[model]["parameters"] and not is_state_variable(model, name):
                allowed = ", ".join(list(MODELS[model]["parameters"]) + list(MODELS[model]["state_variables"]))
                raise ValueError(f"{where}: {format_value(model)} has no parameter or state variable "
                                 f"{format_value(name)}: allowed are {allowed}")  # fmt: skip
            per_cell = _per_cell(where, name, value, len(gids))[order][inside]
            for first, count, start in _runs(mine):
                cut = per_cell[start : start + count]
                network._engine.change_values(first, count, name, cut, step)
                records.append({"step": step, "built": built, "first": first, "count": count,
                                "name": name, "values": cut.tolist()})  # fmt: skip
        if lists:
            records += _change_lists(network, where, population, mine, positions, lists, step, built)
    return records


def _change_lists(network, where, population, gids, positions, lists, step, built) -> list[dict]:
    """Every list parameter of `lists` (name -> value as for create) of the cells `gids`
    (ascending; `positions`: their places in the caller's order) in one engine call per run."""
    from .list_parameters import _cell_lists

    n_given = len(positions) if all(_is_per_cell(v) for v in lists.values()) else None
    flat = {}
    for name, value in lists.items():
        if _is_per_cell(value):
            values, offsets = _cell_lists(where, name, value, len(value))
            if len(value) != n_given:
                raise ValueError(f"{where}: {name}: one list per cell ({len(positions)}) or one list for all")
            per_cell = [values[offsets[k] : offsets[k + 1]] for k in positions]
        else:
            values, _ = _cell_lists(where, name, value, 1)
            per_cell = [values] * len(gids)
        offsets = np.zeros(len(per_cell) + 1, dtype=np.uint64)
        np.cumsum([x.size for x in per_cell], out=offsets[1:])
        values = np.concatenate(per_cell) if per_cell else np.zeros(0)
        if name == "spike_times":
            from . import spike_times

            spike_times.check(population.name, values, offsets, network.dt_ms)
        flat[name] = (values, offsets)
    records = []
    for first, count, start in _runs(gids):
        names, cuts, parts = [], [], []
        for name, (values, offsets) in flat.items():
            part = offsets[start : start + count + 1]
            names.append(name)
            cuts.append(values[int(part[0]) : int(part[-1])].tolist())
            parts.append((part - part[0]).tolist())
        network._engine.change_lists(first, count, names, cuts, parts, step)
        records.append({"step": step, "built": built, "first": first, "count": count,
                        "lists": names, "values": cuts, "offsets": parts})  # fmt: skip
    return records


def replay(network, records: list[dict], until_step: int) -> None:
    """The parameter changes made between runs up to `until_step` (a restored checkpoint:
    its state holds the state variables' changes, the spec needs the parameters')."""
    for r in records:
        if not r["built"] or r["step"] > until_step:
            continue
        if "lists" in r:
            network._engine.change_lists(r["first"], r["count"], r["lists"], r["values"], r["offsets"], r["step"])
            continue
        model = next(p.model for p in network.populations if p.first_gid <= r["first"] < p.stop_gid)
        if not is_state_variable(model, r["name"]):
            network._engine.change_values(
                r["first"], r["count"], r["name"], np.asarray(r["values"], dtype=float), r["step"]
            )


def _is_per_cell(value) -> bool:
    return isinstance(value, (list, tuple)) and len(value) > 0 and all(np.ndim(v) == 1 for v in value)


def _per_cell(where: str, name: str, value, n: int) -> np.ndarray:
    array = np.asarray(value, dtype=float) if not isinstance(value, str) else None
    if array is None or array.ndim > 1 or (array.ndim == 1 and array.size != n):
        raise ValueError(
            f"{where}: {name} = {format_value(value)}: must be a number or one number per cell ({n})"
        )
    return np.broadcast_to(array, (n,)).astype(float)


def _runs(sorted_gids: np.ndarray) -> list[tuple[int, int, int]]:
    """(first gid, count, start index) of each run of consecutive gids."""
    breaks = np.flatnonzero(np.diff(sorted_gids) != 1) + 1
    starts = np.concatenate([[0], breaks])
    ends = np.concatenate([breaks, [sorted_gids.size]])
    return [(int(sorted_gids[s]), int(e - s), int(s)) for s, e in zip(starts, ends)]
