"""`pip install "spikex[pynn]"` (CONTRACT.md): the extra names what spikex.pynn needs, and
spikex.pynn runs what PyNN 0.13 itself crashes on under numpy 2."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import tomllib
from importlib.metadata import PackageNotFoundError, version

import pytest
from conftest import REPO

pytest.importorskip("pyNN")
from packaging.requirements import Requirement  # noqa: E402 - after the skip


def test_the_pynn_extra_names_pynn_and_mpi4py_and_is_what_is_installed():
    extra = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]["pynn"]
    requirements = {Requirement(text).name.lower(): Requirement(text) for text in extra}
    assert {"pynn", "neo", "quantities", "lazyarray", "mpi4py"} <= set(requirements)
    for name, requirement in requirements.items():
        try:
            installed = version(requirement.name)
        except PackageNotFoundError:
            pytest.fail(f"{requirement} is in the pynn extra but not installed by make build")
        assert requirement.specifier.contains(installed, prereleases=True), (requirement, installed)


ONE_CELL = """
import numpy as np
import spikex.pynn as sim

sim.setup(timestep=0.1)
source = sim.Population(1, sim.SpikeSourceArray(spike_times=[1.0]))
cell = sim.Population(1, sim.IF_curr_exp())
for connector in (sim.OneToOneConnector(), sim.AllToAllConnector()):
    sim.Projection(source, cell, connector, sim.StaticSynapse(weight=0.5, delay=1.0))
cell.record("v")
sim.run(10.0)
v = cell.get_data().segments[0].analogsignals[0].magnitude[:, 0]
print("NUMPY", np.__version__.split(".")[0], "RISE", round(float(v.max() - v[0]), 6))
sim.end()
"""


def test_a_one_cell_population_with_a_map_connector_runs_under_numpy_2():
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(ONE_CELL)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    line = next(line for line in done.stdout.splitlines() if line.startswith("NUMPY"))
    _, major, _, rise = line.split()
    assert float(rise) > 0  # both connections delivered the spike
    if int(major) < 2:
        pytest.skip("numpy 1 here: the crash this mends needs numpy 2")
