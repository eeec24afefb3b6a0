"""spikex's iaf_psc_exp_multisynapse and iaf_psc_alpha_multisynapse against NEST 3.10's: the
protocol of bench/nest/psc_multisynapse_protocol.py (three receptor ports, spike trains of
both signs through each, dc and step currents, four membranes, and one cell with a port at
tau_syn == tau_m where the propagators take their limit; 2 s). Exact propagators on both
sides, the same additions in the same order: spike times equal and every trace (V_m,
I_syn, I_syn_<k>) bit-identical at every step. V_m is bitwise NEST's because spikex's
propagators use NEST's own series for expm1 (NEST 3.10's wheel is built without
HAVE_EXPM1; iaf_propagators.hpp): with libm's expm1, V_m differed by up to 5 ulps."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
from conftest import REPO, require_nest

import spikex as sx

sys.path.insert(0, str(REPO / "bench" / "nest"))
import run_exact
from psc_multisynapse_protocol import DT, T_SIM, cases, connections, input_trains, variables

pytestmark = pytest.mark.slow


def spikex_side(model: str) -> dict:
    net = sx.Network(dt_ms=DT, seed=1)
    cells = [net.create(model, 1, params=case) for case in cases(model)]
    trains = {name: net.create("spike_source_array", 1, params={"spike_times": times})
              for name, times in input_trains().items()}  # fmt: skip
    devices = {
        "dc": net.create("dc_generator", 1, params={"amplitude": 400.0, "start": 300.0, "stop": 1200.0}),
        "step": net.create("step_current_generator", 1,
                           params={"amplitude_times": [100.0, 700.0, 1500.0], "amplitude_values": [350.0, -100.0, 500.0]}),
    }  # fmt: skip
    for source, target, weight, delay, port in connections(model):
        pre = trains.get(source) or devices[source]
        net.connect(pre, cells[target], weight=weight, delay_ms=delay, receptor=port)
    gids = np.array([c.first_gid for c in cells])
    net.record_spikes(gids)
    recorded = []  # (case, variable) in the order of result.states
    for k, (cell, case) in enumerate(zip(cells, cases(model))):
        for v in variables(case):
            net.record_state(cell, v)
            recorded.append((k, v))
    return {"result": net.simulate(T_SIM), "gids": gids, "recorded": recorded}


@pytest.mark.parametrize("model", ["iaf_psc_exp_multisynapse", "iaf_psc_alpha_multisynapse"])
def test_spikes_and_traces_equal_to_nest(tmp_path, model):
    require_nest(run_exact.nest_unavailable_reason())
    out = tmp_path / "nest.json"
    done = run_exact.run_nest_script(
        REPO / "bench" / "nest" / "psc_multisynapse.py", args=[str(out), model]
    )
    assert done.returncode == 0, done.stderr[-2000:]
    nest = json.loads(out.read_text())
    mine = spikex_side(model)
    result, gids = mine["result"], mine["gids"]
    spiking, times = result.spikes
    for k, gid in enumerate(gids):
        own = [float(t) + DT for t in times[spiking == gid]]  # NEST stamps the end of the step
        assert own == pytest.approx(nest["spikes"][k], abs=1e-9), f"case {k}: spike times differ"
        assert len(own) >= 10, f"case {k}: too few spikes to mean anything"
    for (k, variable), rec in zip(mine["recorded"], result.states):
        theirs = np.asarray(nest["traces"][str(k)][variable])
        assert len(theirs) == round(T_SIM / DT) - 1
        ours = np.asarray(rec["values"], dtype=float)[: len(theirs), 0]
        same = ours == theirs
        assert same.all(), (
            f"case {k} {variable}: first difference at step "
            f"{int(np.argmax(~same))}, max |diff| {np.max(np.abs(ours - theirs))}"
        )
