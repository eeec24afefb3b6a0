"""Opening a circuit's nodes or edges HDF5 file, with the checks every reader needs."""

from __future__ import annotations

from pathlib import Path

from .errors import SonataError


def open_circuit_file(path: Path, kind: str):
    """``path`` opened read-only (an ``h5py.File``, to use in ``with``) once it exists,
    reads as HDF5 and has its ``/<kind>`` group (``kind``: ``nodes`` or ``edges``);
    else SonataError naming the file."""
    import h5py

    if not path.is_file():
        raise SonataError(str(path), f"{kind}_file not found")
    try:
        handle = h5py.File(path, "r")
    except OSError as error:
        raise SonataError(str(path), f"cannot read as HDF5: {error}") from None
    if kind not in handle:
        handle.close()
        raise SonataError(str(path), f"no /{kind} group: not a SONATA {kind} file")
    return handle
