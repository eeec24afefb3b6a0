"""SONATA outputs in the circuit's terms: report files, the config's spike files and
``summary.json`` populations by node type.

* **Reports** (``reports`` of the simulation config, ``module`` ``membrane_report``,
  ``multimeter_report`` or ``multimeter``): one file per report, ``file_name`` (``.h5``
  added when it has no extension; default ``<report name>.h5``) in the output directory
  (an absolute ``file_name`` as it is). Layout (the SONATA report format, as libsonata and
  BMTK read it): ``/report/<population>/data`` (float32 as the specification and
  libsonata want it, one row per sampled time, one
  column per node, attributes ``variable``, ``units``) and ``/report/<population>/mapping``
  with ``node_ids`` (uint64, the circuit's node ids, ascending), ``index_pointers`` (uint64,
  n + 1; also as ``index_pointer``, the name BMTK's reader takes), ``element_ids`` (uint32,
  0: a point neuron has one element; ``element_pos`` 0.0 for BMTK's reader) and ``time`` = ``[start, stop, dt]`` ms (stop
  exclusive). Samples are taken at ``start_time + k * dt`` for every such time below
  ``end_time`` (and within the run); ``dt`` below the run's dt is the run's dt (SONATA's
  rule); otherwise it must be a whole multiple of it (NEST's multimeter's rule).
* **Spikes**: ``OUTDIR/spikes.h5`` (sorted by time, spikex's contract) always;
  ``output.spikes_file`` (relative to the output directory) as well, in the order
  ``output.spikes_sort_order`` (or ``run.spikes_sort_order``) asks: ``by_time``, ``by_id``
  (by node id, then time), ``none`` (written by time); its ``sorting`` attribute is
  SONATA's enum (uint8: none 0, by_id 1, by_time 2), which libsonata reads and BMTK
  accepts; ``output.spikes_file_csv``: BMTK's CSV (``timestamps population node_ids``,
  space separated).
* **summary.json populations** by node type or node attribute
  (``"spikex": {"summary_populations": ...}``, ``summary_populations``).
"""

from __future__ import annotations

import os
import shutil
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import SonataError

REPORT_MODULES = ("membrane_report", "multimeter_report", "multimeter")
SORT_ORDERS = {
    "by_time": "by_time",
    "time": "by_time",
    "by_id": "by_id",
    "id": "by_id",
    "node_id": "by_id",
    "gid": "by_id",
    "none": "none",
    "na": "none",
}  # fmt: skip  (BMTK's names)
# The SONATA spike file's ``sorting`` attribute, an enum (libsonata reads only this;
# spikes.h5 keeps the string "by_time" of spikex's contract).
SORTING_ENUM = {"none": 0, "by_id": 1, "by_time": 2}
STEP_TOLERANCE = 1e-6
H5_SUFFIXES = (".h5", ".hdf5", ".hdf")


@dataclass
class ReportSpec:
    """One report of the simulation config, checked."""

    name: str
    file_name: str
    cells: dict  # population -> sorted node ids
    variable: str
    interval_ms: float
    start_ms: float
    end_ms: float | None  # None: to the end of the run
    unit: str | None = None

    def path(self, outdir: Path) -> Path:
        """Where the report's file goes."""
        path = Path(self.file_name)
        return path if path.is_absolute() else Path(outdir) / path


def report_specs(config, node_sets, populations: dict, dt_ms: float) -> list[ReportSpec]:
    """The config's membrane reports (module docstring). A report of another module, or
    whose node set is defined nowhere (NEST's example names a node_sets_file it does not
    ship), is left out with a warning; ``enabled: false`` leaves it out silently; a bad
    value is an error naming the report, key, value and what is allowed."""
    from ..models import is_state_variable

    found, skipped, files = [], [], {}
    default_cells = config.node_set if config.node_set is not None else "all"
    for name, report in config.reports.items():
        where = f"{config.path}: reports.{name}"
        if not isinstance(report, dict):
            raise SonataError(where, f"= {report!r}: must be an object")
        if not report.get("enabled", True):
            continue
        module = report.get("module", "membrane_report")
        if module not in REPORT_MODULES:
            skipped.append(f"{name} (module {module!r})")
            continue
        try:
            cells = node_sets.resolve(report.get("cells", default_cells), where)
        except SonataError as error:
            skipped.append(f"{name} ({error})")
            continue
        cells = _real_nodes(cells, populations)
        variable = report.get("variable_name", "V_m")
        if isinstance(variable, list) and len(variable) == 1:
            variable = variable[0]
        if not isinstance(variable, str):
            raise SonataError(
                where,
                f"variable_name = {variable!r}: one variable name per report (give each variable its own report)",
            )
        for pop, ids in cells.items():
            models = populations[pop].node_models
            for model in dict.fromkeys(
                models[ids] if models is not None else [populations[pop].model]
            ):
                if not is_state_variable(model, variable):
                    raise SonataError(
                        where,
                        f"variable_name = {variable!r}: not a recordable variable of {model} (population '{pop}')",
                    )
        interval = _interval(report.get("dt", dt_ms), dt_ms, where)
        start = _time(report, "start_time", 0.0, where)
        end = report.get("end_time")
        if end is not None:
            end = _time(report, "end_time", None, where)
            if end <= start:
                raise SonataError(where, f"end_time = {end!r}: must be > start_time = {start} (ms)")
        file_name = report.get("file_name", name)
        if not isinstance(file_name, str) or not file_name:
            raise SonataError(where, f"file_name = {file_name!r}: must be a file name")
        if Path(file_name).suffix.lower() not in H5_SUFFIXES:
            file_name += ".h5"
        if file_name in files:
            raise SonataError(
                where,
                f"file_name = {file_name!r}: report {files[file_name]!r} writes that file too",
            )
        files[file_name] = name
        unit = report.get("unit")
        if cells:
            found.append(
                ReportSpec(name, file_name, cells, variable, interval, start, end,
                           unit if isinstance(unit, str) else None)
            )  # fmt: skip
    if skipped:
        warnings.warn(f"{config.path}: reports left out: {'; '.join(skipped)}", stacklevel=4)
    return found


def _real_nodes(cells: dict, populations: dict) -> dict:
    """``cells`` without virtual nodes (and without empty populations)."""
    out = {}
    for pop, ids in cells.items():
        virtual = populations[pop].node_virtual
        ids = np.asarray(ids, dtype=np.int64)
        if virtual is not None:
            ids = ids[~virtual[ids]]
        elif populations[pop].virtual:
            ids = ids[:0]
        if ids.size:
            out[pop] = ids
    return out


def _interval(value: object, dt_ms: float, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise SonataError(where, f"dt = {value!r}: must be a number > 0 (ms)")
    steps = float(value) / dt_ms
    if steps < 1.0:
        return dt_ms  # SONATA: a report dt below the simulation's is the simulation's
    if abs(steps - round(steps)) > STEP_TOLERANCE * max(1.0, steps):
        raise SonataError(
            where, f"dt = {value!r}: must be a whole multiple of the run's dt = {dt_ms} ms"
        )
    return round(steps) * dt_ms


def _time(report: dict, key: str, default, where: str) -> float:
    value = report.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise SonataError(where, f"{key} = {value!r}: must be a number >= 0 (ms)")
    return float(value)


def report_samples(spec: ReportSpec, state: dict) -> tuple[np.ndarray, np.ndarray]:
    """(times_ms, values) of a recording, cut at the report's ``end_time``."""
    times = np.asarray(state["times_ms"], dtype=float)
    keep = np.ones(times.size, bool) if spec.end_ms is None else times < spec.end_ms - 1e-9
    return times[keep], np.asarray(state["values"])[keep]


def write_report(path: Path, spec: ReportSpec, state: dict, circuit) -> None:
    """Write one report file, atomically (temporary name, then rename)."""
    import h5py

    times, values = report_samples(spec, state)
    gids = np.asarray(state["gids"], dtype=np.int64)
    names, node_ids = circuit.node_ids(gids)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = temporary_name(path)
    try:
        with h5py.File(temporary, "w") as report:
            for population in spec.cells:
                keep = np.flatnonzero(names == population)
                group = report.create_group(f"report/{population}")
                data = group.create_dataset("data", data=values[:, keep].astype(np.float32))
                data.attrs["variable"] = spec.variable
                data.attrs["units"] = spec.unit or _state_unit(spec.variable, circuit, population)
                mapping = group.create_group("mapping")
                count = keep.size
                mapping.create_dataset("node_ids", data=node_ids[keep].astype(np.uint64))
                pointers = np.arange(count + 1, dtype=np.uint64)
                mapping.create_dataset("index_pointers", data=pointers)
                mapping.create_dataset("index_pointer", data=pointers)  # BMTK's reader's name
                mapping.create_dataset("element_ids", data=np.zeros(count, dtype=np.uint32))
                mapping.create_dataset(
                    "element_pos", data=np.zeros(count)
                )  # BMTK's reader needs it
                start = float(times[0]) if times.size else spec.start_ms
                time = mapping.create_dataset(
                    "time",
                    data=np.array([start, start + spec.interval_ms * times.size, spec.interval_ms]),
                )
                time.attrs["units"] = "ms"  # libsonata's reader needs it
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def temporary_name(path: Path) -> Path:
    """A hidden name next to ``path`` for writing before the atomic rename (as
    ``io.output`` names them; ``sonata`` is below ``io``)."""
    return path.with_name(f".{path.name}.tmp-{os.getpid()}")


def _state_unit(variable: str, circuit, population: str) -> str:
    """The unit of a state variable of the population's (first) point-neuron model."""
    from ..models import MODELS

    node_population = next(p for p in circuit.node_populations if p.name == population)
    models = node_population.node_models
    model = next((m for m in models if m != "spike_source_array"), node_population.model)
    for spec in MODELS.get(model, {}).get("state_specs", []):
        if spec.get("name") == variable:
            return str(spec.get("unit", ""))
    return ""


# ---- spikes --------------------------------------------------------------------------


@dataclass
class SpikeFiles:
    """The config's spike outputs (``output``): file names as given (relative to the
    output directory) and the sort order."""

    h5: str | None = None
    csv: str | None = None
    sort_order: str = "by_time"

    def paths(self, outdir: Path) -> tuple[Path | None, Path | None]:
        def place(name):
            if name is None:
                return None
            path = Path(name)
            return path if path.is_absolute() else Path(outdir) / path

        return place(self.h5), place(self.csv)


def spike_files(config) -> SpikeFiles:
    """``output.spikes_file``, ``output.spikes_file_csv`` and the sort order
    (``output.spikes_sort_order``, else ``run.spikes_sort_order``)."""
    where = f"{config.path}: output"
    files = SpikeFiles()
    for key, attribute in (("spikes_file", "h5"), ("spikes_file_csv", "csv")):
        value = config.output.get(key)
        if value is None:
            continue
        if not isinstance(value, str) or not value:
            raise SonataError(where, f"{key} = {value!r}: must be a file name")
        setattr(files, attribute, value)
    for section, values in (("output", config.output), ("run", config.run)):
        if "spikes_sort_order" in values:
            order = values["spikes_sort_order"]
            if order not in SORT_ORDERS:
                raise SonataError(
                    f"{config.path}: {section}",
                    f"spikes_sort_order = {order!r}: must be one of by_time, by_id, none "
                    "(or BMTK's time, id, node_id, gid, na)",
                )
            files.sort_order = SORT_ORDERS[order]
            break
    return files


def write_spike_files(spikes_h5: Path, outdir: Path, files: SpikeFiles) -> list[Path]:
    """Rank 0, after ``spikes.h5`` is in place: the config's own spike files, each written
    to a temporary name and renamed. Returns the paths written."""
    import h5py

    h5_path, csv_path = files.paths(outdir)
    written = []
    if h5_path is not None and h5_path.resolve() != Path(spikes_h5).resolve():
        h5_path.parent.mkdir(parents=True, exist_ok=True)
        temporary = temporary_name(h5_path)
        try:
            shutil.copyfile(spikes_h5, temporary)
            sorting = h5py.enum_dtype(SORTING_ENUM, basetype="u1")
            with h5py.File(temporary, "a") as handle:
                for group in handle.get("spikes", {}).values():
                    order = "by_time"
                    if files.sort_order == "by_id":
                        ids, times = group["node_ids"][:], group["timestamps"][:]
                        by_id = np.lexsort((times, ids))
                        group["node_ids"][:] = ids[by_id]
                        group["timestamps"][:] = times[by_id]
                        if ids.size:  # BMTK's reader fails on an empty group said by_id
                            order = "by_id"
                    del group.attrs["sorting"]
                    group.attrs.create("sorting", SORTING_ENUM[order], dtype=sorting)
            os.replace(temporary, h5_path)
        finally:
            temporary.unlink(missing_ok=True)
        written.append(h5_path)
    if csv_path is not None:
        csv_path.parent.mkdir(parents=True, exist_ok=True)
        temporary = temporary_name(csv_path)
        try:
            with h5py.File(spikes_h5, "r") as handle, open(temporary, "w", encoding="utf-8") as out:
                out.write("timestamps population node_ids\n")
                rows = []
                for name, group in handle.get("spikes", {}).items():
                    ids, times = group["node_ids"][:], group["timestamps"][:]
                    rows.append((np.full(ids.size, name, dtype=object), ids, times))
                if rows:
                    names = np.concatenate([r[0] for r in rows])
                    ids = np.concatenate([r[1] for r in rows])
                    times = np.concatenate([r[2] for r in rows])
                    order = (
                        np.lexsort((times, ids, names)) if files.sort_order == "by_id"
                        else np.argsort(times, kind="stable")
                    )  # fmt: skip
                    out.writelines(
                        f"{float(times[k])!r} {names[k]} {int(ids[k])}\n" for k in order.tolist()
                    )
            os.replace(temporary, csv_path)
        finally:
            temporary.unlink(missing_ok=True)
        written.append(csv_path)
    return written


# ---- summary.json populations by node type --------------------------------------------


def summary_key(config, given: str | None) -> str:
    """The ``summary_populations`` setting: ``given`` (``from_sonata``, the TOML key),
    else the simulation config's ``spikex.summary_populations``, else ``populations``."""
    value = given or config.spikex.get("summary_populations") or "populations"
    if not isinstance(value, str):
        raise SonataError(
            f"{config.path}: spikex",
            f"summary_populations = {value!r}: must be populations, node_types or a node attribute name",
        )
    return value


def node_groups(population, key: str, where: str) -> tuple[np.ndarray, list[str]]:
    """Each node's group index and the groups' labels (``key``: ``node_types`` or a node
    attribute such as ``pop_name``)."""
    values = population.node_type_ids if key == "node_types" else population.attribute(key)
    if values is None:
        raise SonataError(
            where,
            f"summary_populations = {key!r}: population '{population.name}' has no node attribute "
            f"of that name (allowed: populations, node_types, or a node-type column or node-group dataset)",
        )
    labels = np.array(
        [str(v.decode() if isinstance(v, bytes) else v) for v in values], dtype=object
    )
    names, index = np.unique(labels, return_inverse=True)
    return index, [str(n) for n in names]


def grouped_summary(
    circuit, entries: dict, spike_node_ids: dict, recorded: dict, recorded_ms: float
) -> dict:
    """``summary.json`` ``populations`` with each SONATA population's entry replaced by one
    per node group (``<population>:<label>``), when ``circuit.summary_populations`` asks.
    ``spike_node_ids``: population -> node ids of its spikes (an array, or an iterable of
    arrays); ``recorded``: population -> node ids whose spikes are recorded."""
    key = circuit.summary_populations
    if key == "populations":
        return entries
    out = {}
    seconds = recorded_ms / 1000.0
    for name, entry in entries.items():
        population = next((p for p in circuit.node_populations if p.name == name), None)
        if population is None or population.virtual:
            out[name] = entry
            continue
        index, labels = node_groups(population, key, f"{circuit.config.path}: spikex")
        counts = np.zeros(len(labels), np.int64)
        chunks = spike_node_ids.get(name, [])
        for ids in [chunks] if isinstance(chunks, np.ndarray) else chunks:
            ids = np.asarray(ids, dtype=np.int64)
            counts += np.bincount(index[ids], minlength=len(labels))
        cells = np.bincount(index, minlength=len(labels))
        recorded_cells = np.bincount(
            index[np.asarray(recorded.get(name, []), dtype=np.int64)], minlength=len(labels)
        )
        models = population.node_models
        for k, label in enumerate(labels):
            members = index == k
            model = (
                "+".join(dict.fromkeys(models[members])) if models is not None else population.model
            )
            rate = (
                counts[k] / (recorded_cells[k] * seconds)
                if recorded_cells[k] and seconds > 0
                else 0.0
            )
            out[f"{name}:{label}"] = {
                "model": model,
                "cells": int(cells[k]),
                "recorded_cells": int(recorded_cells[k]),
                "spikes": int(counts[k]),
                "rate_hz": float(rate),
                "population": name,
                ("node_type_id" if key == "node_types" else key): label,
            }
    return out


def spike_node_ids_from_file(path: Path, block: int = 1 << 22):
    """population -> generator of node-id blocks of a SONATA spike file (bounded memory)."""
    import h5py

    def blocks(name):
        with h5py.File(path, "r") as handle:
            dataset = handle["spikes"][name]["node_ids"]
            for start in range(0, dataset.shape[0], block):
                yield np.asarray(dataset[start : start + block], dtype=np.int64)

    with h5py.File(path, "r") as handle:
        names = list(handle.get("spikes", {}))
    return {name: blocks(name) for name in names}


__all__ = [
    "REPORT_MODULES",
    "ReportSpec",
    "SpikeFiles",
    "grouped_summary",
    "report_specs",
    "spike_files",
    "write_report",
    "write_spike_files",
]
