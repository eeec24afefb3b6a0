"""PyNN's own system scenarios, from its source distribution.

The scenarios (``test/system/scenarios/``) ship in PyNN's sdist, not in its wheel, so the
harness downloads the sdist once with ``pip download`` into ``build/pynn-sdist/`` and
unpacks it there; later runs reuse it. PyNN's files are read, never edited.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

PYNN_VERSION = "0.13.0"
REPO = Path(__file__).resolve().parents[2]
CACHE = REPO / "build" / "pynn-sdist"


class SourceError(RuntimeError):
    """The sdist could not be downloaded or unpacked (the harness exits 2)."""


def scenarios_parent(cache: Path = CACHE, version: str = PYNN_VERSION) -> Path:
    """The folder holding PyNN's ``scenarios`` package (``test/system``), fetched if missing.

    It goes on ``sys.path`` so that the scenario modules import as ``scenarios.test_x``:
    they use a relative import (``from .fixtures import ...``) and need their package.
    """
    tree = cache / f"pynn-{version}"
    parent = tree / "test" / "system"
    if (parent / "scenarios" / "fixtures.py").is_file():
        return parent
    archive = _download(cache, version)
    _unpack(archive, cache, tree)
    if not (parent / "scenarios" / "fixtures.py").is_file():
        raise SourceError(f"{archive.name} has no test/system/scenarios/fixtures.py")
    return parent


def _download(cache: Path, version: str) -> Path:
    archive = cache / f"pynn-{version}.tar.gz"
    if archive.is_file():
        return archive
    cache.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "-q",
        "--no-deps",
        "--no-binary",
        ":all:",
        f"PyNN=={version}",
        "-d",
        str(cache),
    ]
    done = subprocess.run(
        command, check=False, capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    if done.returncode != 0 or not archive.is_file():
        raise SourceError(
            f"`{' '.join(command)}` failed (exit {done.returncode}):\n{done.stdout}{done.stderr}"
        )
    return archive


def _unpack(archive: Path, cache: Path, tree: Path) -> None:
    # Unpacked beside the final place and renamed, so an interrupted run leaves no half tree.
    staging = cache / f".unpack-{tree.name}"
    if staging.exists():
        shutil.rmtree(staging)
    with tarfile.open(archive) as tar:
        tar.extractall(staging, filter="data")
    unpacked = staging / tree.name
    if not unpacked.is_dir():
        raise SourceError(f"{archive.name} does not unpack into {tree.name}/")
    if tree.exists():
        shutil.rmtree(tree)
    unpacked.rename(tree)
    shutil.rmtree(staging)
