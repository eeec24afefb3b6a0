"""spikex's glif_psc and glif_cond against NEST 3.10's: the protocol of
bench/nest/glif_protocol.py (the five GLIF levels with NEST's defaults and with other
parameters, three receptor ports and NEST's default ones, spike trains of both signs
through every port, a dc and a step current; 2 s at dt = 0.1 ms).

glif_psc: exact propagators on both sides, NEST's expressions in NEST's order: the spike
times equal and every recordable bit-identical at every step. glif_cond: NEST's RKF45 with
its step control and NEST's right-hand side in its order (ode/rkf45_integrator.hpp): the
same, bit for bit."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
from conftest import REPO, require_nest

import spikex as sx

sys.path.insert(0, str(REPO / "bench" / "nest"))
import run_exact
from glif_protocol import DC, DT, STEP, T_SIM, cases, connections, input_trains, variables

pytestmark = pytest.mark.slow


def spikex_side(model: str) -> dict:
    net = sx.Network(dt_ms=DT, seed=1)
    cells = [net.create(model, 1, params=case) for case in cases(model)]
    trains = {name: net.create("spike_source_array", 1, params={"spike_times": times})
              for name, times in input_trains().items()}  # fmt: skip
    devices = {
        "dc": net.create("dc_generator", 1, params=DC),
        "step": net.create("step_current_generator", 1, params=STEP),
    }
    for source, target, weight, delay, port in connections(model):
        pre = trains.get(source) or devices[source]
        net.connect(pre, cells[target], weight=weight, delay_ms=delay, receptor=port)
    gids = np.array([c.first_gid for c in cells])
    net.record_spikes(gids)
    recorded = []  # (case, variable) in the order of result.states
    for k, (cell, case) in enumerate(zip(cells, cases(model), strict=True)):
        for v in variables(case, model):
            net.record_state(cell, v)
            recorded.append((k, v))
    return {"result": net.simulate(T_SIM), "gids": gids, "recorded": recorded}


@pytest.mark.parametrize("model", ["glif_psc", "glif_cond"])
def test_spikes_and_traces_equal_to_nest(tmp_path, model):
    require_nest(run_exact.nest_unavailable_reason())
    out = tmp_path / "nest.json"
    done = run_exact.run_nest_script(REPO / "bench" / "nest" / "glif.py", args=[str(out), model])
    assert done.returncode == 0, done.stderr[-2000:]
    nest = json.loads(out.read_text())
    mine = spikex_side(model)
    result, gids = mine["result"], mine["gids"]
    spiking, times = result.spikes
    for k, gid in enumerate(gids):
        own = [float(t) + DT for t in times[spiking == gid]]  # NEST stamps the end of the step
        assert own == pytest.approx(nest["spikes"][k], abs=1e-9), f"case {k}: spike times differ"
        assert len(own) >= 10, f"case {k}: too few spikes to mean anything"
    for (k, variable), rec in zip(mine["recorded"], result.states, strict=True):
        theirs = np.asarray(nest["traces"][str(k)][variable])
        assert len(theirs) == round(T_SIM / DT) - 1
        ours = np.asarray(rec["values"], dtype=float)[: len(theirs), 0]
        same = ours == theirs
        assert same.all(), (
            f"case {k} {variable}: first difference at step "
            f"{int(np.argmax(~same))}, max |diff| {np.max(np.abs(ours - theirs))}"
        )
