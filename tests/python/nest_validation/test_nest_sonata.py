"""NEST 3.10's SONATA example circuit (shared/data/sonata/300_pointneurons: 300
iaf_psc_alpha cells in 5 node types, 100 virtual inputs fed by a spike file, 48,432
static edges, dt = 0.01 ms, 1.5 s) on NEST and on spikex: the same spikes, step for step.

NEST's wheel has no HDF5, so no ``nest.SonataNetwork``: bench/nest/nest_sonata.py builds the
circuit with nest.Create / nest.Connect following SonataNetwork's rules (its own reading
of the files, from plain transcriptions of the HDF5 datasets: bench/nest/sonata_h5_dump.py),
and spikex reads the circuit with ``Network.from_sonata``. Both models are exact, so every
spike agrees (NEST stamps a spike at the end of its step: NEST time = (spikex step + 1) dt).
Without NEST the test skips (fails under CI).

Where NEST was built from source with HDF5 (bench/nest/build_nest_hdf5.sh, into
bench/nest-hdf5/), the circuit also runs on NEST's own reader, ``nest.SonataNetwork``
(bench/nest/nest_sonata_network.py), against the same spikex spikes. That NEST is optional
(CI does not build it): without it, that test skips, under CI too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO, require_nest

sys.path.insert(0, str(REPO / "bench" / "nest"))
sys.path.insert(0, str(REPO / "tests" / "python" / "sonata"))
import run_exact
import spikex as sx
from sonata_circuits import require_example
from sonata_h5_dump import dump_circuit

pytestmark = pytest.mark.slow  # NEST runs in a subprocess
_REASON = run_exact.nest_unavailable_reason()
DT = 0.01
# NEST 3.10 with HDF5 (bench/nest/build_nest_hdf5.sh), or the interpreter this names.
NEST_HDF5_PYTHON = Path(
    os.environ.get("SPIKEX_NEST_HDF5_PYTHON") or REPO / "bench" / "nest-hdf5" / "python"
)


@pytest.fixture(scope="module")
def nest_spikes(tmp_path_factory):
    require_nest(_REASON)
    example = require_example().parent
    copy = dump_circuit(example, tmp_path_factory.mktemp("nest") / "300_pointneurons")
    done = run_exact.run_nest_script(
        REPO / "bench" / "nest" / "nest_sonata.py", args=[str(copy / "simulation_config.json")]
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def spikex_spikes():
    """spikex's run of the example: its edges connected, and its spikes as sorted
    (step, node id) of population ``internal``."""
    net = sx.Network.from_sonata(require_example())
    result = net.simulate(net.sonata.tstop_ms)
    internal = net.sonata.populations["internal"]
    gids, steps = result.spikes[0], result.spike_steps
    spikes = sorted(zip(steps.tolist(), (gids - internal.first_gid).tolist(), strict=True))
    return {"connections": net.sonata.connections, "spikes": spikes}


def as_steps(theirs: dict) -> list[tuple[int, int]]:
    """NEST's spikes of one population as sorted (spikex step, node id)."""
    nest_steps = (np.rint(np.asarray(theirs["times"]) / DT).astype(np.int64) - 1).tolist()
    return sorted(zip(nest_steps, theirs["node_ids"], strict=True))


def test_example_circuit_spikes_as_on_nest(nest_spikes, spikex_spikes):
    reference = as_steps(nest_spikes["internal"])
    assert len(reference) > 15000  # about 42 Hz over 1.5 s in 300 cells
    assert len(spikex_spikes["spikes"]) == len(reference)
    assert spikex_spikes["spikes"] == reference


@pytest.fixture(scope="module")
def sonata_network_spikes():
    """The example on NEST's own reader, nest.SonataNetwork (the HDF5 NEST, if built)."""
    if not NEST_HDF5_PYTHON.exists():
        pytest.skip(
            f"{NEST_HDF5_PYTHON} does not exist: NEST with HDF5 is optional "
            "(bash bench/nest/build_nest_hdf5.sh builds it)"
        )
    done = subprocess.run(
        [str(NEST_HDF5_PYTHON), str(REPO / "bench" / "nest" / "nest_sonata_network.py"),
         "spikes", str(require_example())],
        capture_output=True, text=True, env=run_exact.nest_environment(), stdin=subprocess.DEVNULL,
        timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_example_circuit_spikes_as_on_nest_sonata_network(sonata_network_spikes, spikex_spikes):
    assert sonata_network_spikes["num_connections"] == spikex_spikes["connections"]
    reference = as_steps(sonata_network_spikes["internal"])
    assert len(reference) > 15000
    assert len(spikex_spikes["spikes"]) == len(reference)
    assert spikex_spikes["spikes"] == reference
