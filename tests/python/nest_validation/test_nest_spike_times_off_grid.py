"""spike_source_array's off-grid rule against pyNN.nest (NEST 3.10's spike_generator with
precise times through a parrot neuron, as pyNN.nest builds a SpikeSourceArray): a time is
emitted at the end of the step that contains it, a time within 1e-6 step of a grid point
is on it, and times sharing a step are one spike in spikex (with a warning naming the
population and cell) where NEST sends each. pyNN.nest records the parrot's precise times
(the given ones) and delivers them to grid-based neurons at their stamps; it drops a time
at or below min_delay (the generator's times are shifted back by it), which spikex emits.
Without NEST the test skips (fails under CI)."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
from conftest import REPO, require_nest

sys.path.insert(0, str(REPO / "bench" / "nest"))
import run_exact

import spikex as sx

pytestmark = pytest.mark.slow  # NEST runs in a subprocess
_REASON = run_exact.nest_unavailable_reason()
DT = 0.1
TIMES = [0.05, 1.0, 2.0000000001, 2.4999999, 3.01, 4.9, 6.9963747597544366, 7.31, 7.35, 9.99]
SHARED = (7.31, 7.35)  # one step: NEST sends both, spikex one

NEST_CODE = f"""
import json
import pyNN.nest as sim
sim.setup(timestep={DT}, min_delay={DT})
p = sim.Population(1, sim.SpikeSourceArray(spike_times={TIMES!r}))
p.record("spikes")
sim.run(12.0)
print(json.dumps([float(t) for t in p.get_data().segments[0].spiketrains[0].magnitude]))
"""


def test_off_grid_times_are_emitted_as_pynn_nest_emits_them():
    require_nest(_REASON)
    done = run_exact.run_nest_script_code(NEST_CODE)
    assert done.returncode == 0, done.stdout + done.stderr
    theirs = np.asarray(json.loads(done.stdout.strip().splitlines()[-1]))
    net = sx.Network(dt_ms=DT)
    with pytest.warns(UserWarning, match=r"population 'src' cell 0: spike times 7.31 and 7.35 ms fall in one step"):
        source = net.create("spike_source_array", 1, params={"spike_times": TIMES}, name="src")
    net.record_spikes(source)
    result = net.simulate(12.0)
    mine = result.spike_steps + 1  # NEST's stamp of spikex's step n is n + 1
    np.testing.assert_allclose(theirs, [t for t in TIMES if t > DT], rtol=0, atol=1e-12)
    stamps = np.where(np.abs(theirs / DT - np.round(theirs / DT)) <= 1e-6, np.round(theirs / DT), np.ceil(theirs / DT))
    assert mine.tolist() == [1] + sorted(set(stamps.astype(int).tolist()))  # 0.05 ms: step 0 in spikex only
    assert len(mine) == len(TIMES) - 1  # the shared step's two times are one spike
