"""Changes between runs against NEST 3.10 (bench/nest/changes_network.py): SetStatus
between Simulate calls in NEST, Network.set between simulate calls in spikex — a current,
E_L (V_m kept), V_m (a state, now), tau_m and V_th, a dc_generator's amplitude and a spike
source's times. iaf_psc_exp integrates exactly: the same V_m at every step (to 1e-9 mV)
and the same spikes. Without NEST the test skips (fails under CI)."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
from conftest import REPO, require_nest

sys.path.insert(0, str(REPO / "bench" / "nest"))
import run_exact
from changes_network import CHANGES, DC, DT, NEURONS, SEGMENTS_MS, SOURCE_TIMES, connections

import spikex as sx

pytestmark = pytest.mark.slow  # NEST runs in a subprocess
_REASON = run_exact.nest_unavailable_reason()


@pytest.fixture(scope="module")
def nest_run():
    require_nest(_REASON)
    done = run_exact.run_nest_script(REPO / "bench" / "nest" / "nest_changes.py")
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def spikex_run(threads: int = 1):
    net = sx.Network(dt_ms=DT, seed=1, threads=threads)
    neurons = [net.create("iaf_psc_exp", 1, params=p, name=f"n{k}") for k, p in enumerate(NEURONS)]
    devices = {
        "dc": net.create("dc_generator", 1, params=DC),
        "source": net.create("spike_source_array", 1, params={"spike_times": SOURCE_TIMES}),
    }
    for kind, target, weight, delay in connections():
        net.connect(devices[kind][0], neurons[target][0], weight=weight, delay_ms=delay)
    cells = sx.Population(neurons[0].first_gid, len(NEURONS), "iaf_psc_exp")
    net.record_state(cells, "V_m")
    net.record_spikes(cells)
    for k, segment in enumerate(SEGMENTS_MS):
        result = net.simulate(segment)
        for after, what, index, values in CHANGES:
            if after == k:
                net.set(neurons[index] if what == "neuron" else devices[what], **values)
    return result, neurons[0].first_gid


@pytest.mark.parametrize("threads", [1, 2])
def test_changes_between_runs_give_nests_trace_and_spikes(nest_run, threads):
    result, first = spikex_run(threads)
    times, cells, values = (np.asarray(nest_run[k]) for k in ("times", "cells", "V_m"))
    state = result.states[0]
    for k in range(len(NEURONS)):
        steps = np.rint(times[cells == k] / DT).astype(int) - 1
        np.testing.assert_allclose(state["values"][steps, k], values[cells == k], rtol=0, atol=1e-9,
                                   err_msg=f"neuron {k}")  # fmt: skip
    mine = sorted(zip((result.spikes[0] - first).tolist(), result.spike_steps.tolist()))
    stamps = (np.rint(np.asarray(nest_run["spike_times"]) / DT) - 1).astype(int)
    theirs = sorted(zip(nest_run["spike_cells"], stamps.tolist()))
    assert len(theirs) > 20 and {c for c, _ in theirs} == {0, 1, 2, 3}
    assert mine == theirs
