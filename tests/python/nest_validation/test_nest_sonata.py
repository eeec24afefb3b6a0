"""NEST 3.10's SONATA example circuit (shared/data/sonata/300_pointneurons: 300
iaf_psc_alpha cells in 5 node types, 100 virtual inputs fed by a spike file, 48,432
static edges, dt = 0.01 ms, 1.5 s) on NEST and on spikex: the same spikes, step for step.

NEST's wheel has no HDF5, so no ``nest.SonataNetwork``: bench/nest/nest_sonata.py builds the
circuit with nest.Create / nest.Connect following SonataNetwork's rules (its own reading
of the files, from plain transcriptions of the HDF5 datasets: bench/nest/sonata_h5_dump.py),
and spikex reads the circuit with ``Network.from_sonata``. Both models are exact, so every
spike agrees (NEST stamps a spike at the end of its step: NEST time = (spikex step + 1) dt).
Without NEST the test skips (fails under CI)."""

from __future__ import annotations

import json
import sys

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


def test_example_circuit_spikes_as_on_nest(nest_spikes):
    net = sx.Network.from_sonata(require_example())
    result = net.simulate(net.sonata.tstop_ms)
    internal = net.sonata.populations["internal"]
    gids, steps = result.spikes[0], result.spike_steps
    ours = sorted(zip(steps.tolist(), (gids - internal.first_gid).tolist(), strict=True))
    theirs = nest_spikes["internal"]
    nest_steps = (np.rint(np.asarray(theirs["times"]) / DT).astype(np.int64) - 1).tolist()
    reference = sorted(zip(nest_steps, theirs["node_ids"], strict=True))
    assert len(reference) > 15000  # about 42 Hz over 1.5 s in 300 cells
    assert len(ours) == len(reference)
    assert ours == reference
