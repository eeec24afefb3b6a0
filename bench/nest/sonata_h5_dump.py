"""Copy of a SONATA circuit whose HDF5 files NEST's interpreter can read without h5py.

NEST 3.10's wheel is built without HDF5 (so without ``nest.SonataNetwork``) and its venv
has no h5py. ``dump_circuit(source, destination)`` copies the circuit directory and writes
next to every ``X.h5`` a ``X.h5.npz`` holding each dataset under its HDF5 path and the
attributes as JSON (``__attrs__``): a plain transcription with no SONATA reading in it,
so that ``nest_sonata.py`` (NEST's side) reads the files on its own.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np


def dump_h5(path: Path) -> Path:
    import h5py

    arrays, attributes = {}, {}

    def visit(name, item):
        if isinstance(item, h5py.Dataset):
            data = item[()]
            arrays[name] = (
                np.asarray(data).astype(str) if item.dtype.kind in "OS" else np.asarray(data)
            )
        if len(item.attrs):
            attributes[name] = {
                k: (v.decode() if isinstance(v, bytes) else np.asarray(v).tolist())
                for k, v in item.attrs.items()
            }

    with h5py.File(path, "r") as handle:
        handle.visititems(visit)
        if len(handle.attrs):
            attributes[""] = {
                k: (v.decode() if isinstance(v, bytes) else np.asarray(v).tolist())
                for k, v in handle.attrs.items()
            }
    target = path.with_name(path.name + ".npz")
    np.savez(target, __attrs__=np.array(json.dumps(attributes)), **arrays)
    return target


def dump_circuit(source: Path, destination: Path) -> Path:
    """Copy ``source`` to ``destination`` and transcribe every .h5 file in it."""
    shutil.copytree(source, destination)
    for path in sorted(Path(destination).rglob("*.h5")):
        dump_h5(path)
    return destination
