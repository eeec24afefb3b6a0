"""The licence check of docs/dev/licences.md: spikex is MIT, and every shared library the
extension loads and every Python requirement is listed there with a compatible licence."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from conftest import REPO

import spikex

DOC = REPO / "docs" / "dev" / "licences.md"
COMPATIBLE = re.compile(
    r"\b(MIT|Expat|BSD|Zlib|Apache-2\.0|LGPL-[0-9.]+[^|]*\(dynamic\)|GCC Runtime Library Exception|"
    r"not a library file|PSF|CeCILL-2\.1|"
    # a GPL program spikex runs as a separate tool at build time (NESTML), never linked
    r"GPL-[0-9.]+[^|]*\(separate tool\))"
)


def table_rows(heading: str) -> list[list[str]]:
    """The rows of the first table after `heading` in DOC, as lists of stripped cells."""
    text = DOC.read_text(encoding="utf-8").split(heading, 1)[1]
    rows = []
    for line in text.splitlines()[2:]:
        if line.startswith("## "):
            break
        if line.startswith("|") and not line.startswith("|---"):
            rows.append([cell.strip().strip("`") for cell in line.strip("|").split("|")])
    return rows[1:]  # without the header


def test_the_licence_is_mit_in_the_file_and_the_package_metadata():
    assert (REPO / "LICENSE").read_text().startswith("MIT License")
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["license"] == {"text": "MIT"}


@pytest.mark.skipif(shutil.which("ldd") is None, reason="ldd is not installed")
def test_every_linked_library_is_listed_with_a_compatible_licence():
    extension = next(Path(spikex.__file__).parent.glob("_core*.so"))
    listing = subprocess.run(["ldd", str(extension)], capture_output=True, text=True, check=True)
    linked = {Path(line.split()[0]).name for line in listing.stdout.splitlines() if line.strip()}
    rows = {row[0]: row for row in table_rows("## Linked into")}
    for library in sorted(linked):
        # libmpi.so.40 -> libmpi.so, ld-linux-x86-64.so.2 -> ld-linux-x86-64.so
        base = re.sub(r"(\.so)(\.[0-9]+)*$", r"\1", library)
        assert base in rows, f"{library} is linked but not listed in {DOC.relative_to(REPO)}"
        licence = rows[base][2]
        assert COMPATIBLE.search(licence), f"{library}: licence {licence!r} is not one spikex may link"
        assert "GPL" not in licence.replace("LGPL", "") or "Exception" in licence, licence


def test_every_python_requirement_is_listed_with_its_licence():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    build = project["build-system"]["requires"]
    runtime = project["project"]["dependencies"]
    extras = [r for group in project["project"]["optional-dependencies"].values() for r in group]
    listed = {row[0].lower(): row[1] for row in table_rows("## Python packages")}
    for requirement in [*build, *runtime, *extras]:
        name = re.split(r"[<>=!~\[ ;]", requirement, maxsplit=1)[0].lower()
        assert name in listed, f"{name} ({requirement}) is not listed in {DOC.relative_to(REPO)}"
        assert COMPATIBLE.search(listed[name]), f"{name}: {listed[name]}"
