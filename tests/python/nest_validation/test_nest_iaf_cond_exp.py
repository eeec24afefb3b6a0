"""iaf_cond_exp, iaf_cond_alpha, iaf_cond_exp_sfa_rr and step_current_generator against NEST
3.10 (bench/nest/cond_exp_network.py): single neurons under a constant current, a
step_current_generator, a dc_generator and trains of excitatory and inhibitory conductance
input, one with only E_L changed (each model with its own defaults otherwise).

spikex integrates with NEST's own scheme (ode/rkf45_integrator.hpp: Runge-Kutta-Fehlberg
4(5) with GSL's standard step control, NEST's error bound) and NEST's right-hand side in
NEST's order of operations: the traces are bit-identical at every step, the spikes the
same. Without NEST the test skips (fails under CI)."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
from conftest import REPO, require_nest

sys.path.insert(0, str(REPO / "bench" / "nest"))
import run_exact
from cond_exp_network import DC, DT, NEURONS, STEP_CURRENT, T_SIM, connections, input_trains, recordables

import spikex as sx

pytestmark = pytest.mark.slow  # NEST runs in a subprocess
_REASON = run_exact.nest_unavailable_reason()
VARIABLES = ("V_m", "g_ex", "g_in", "g_sfa", "g_rr")
TOLERANCE = dict.fromkeys(VARIABLES, 0.0)
MIN_SPIKES = {"iaf_cond_exp_sfa_rr": 25}  # adapts: 30 spikes (the others: over 100)


@pytest.fixture(scope="module", params=["iaf_cond_exp", "iaf_cond_alpha", "iaf_cond_exp_sfa_rr"])
def model(request):
    return request.param


@pytest.fixture(scope="module")
def nest_run(model):
    require_nest(_REASON)
    done = run_exact.run_nest_script(REPO / "bench" / "nest" / "nest_cond_exp.py", args=[model])
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def spikex_run(model):
    net = sx.Network(dt_ms=DT, seed=1)
    neurons = [net.create(model, 1, params=p, name=f"n{k}") for k, p in enumerate(NEURONS)]
    trains = input_trains()
    sources = {
        "step": net.create("step_current_generator", 1, params=STEP_CURRENT),
        "dc": net.create("dc_generator", 1, params=DC),
        "exc": net.create("spike_source_array", 1, params={"spike_times": trains["exc"]}),
        "inh": net.create("spike_source_array", 1, params={"spike_times": trains["inh"]}),
    }
    for kind, target, weight, delay in connections():
        net.connect(sources[kind][0], neurons[target][0], weight=weight, delay_ms=delay)
    cells = sx.Population(neurons[0].first_gid, len(NEURONS), model)
    for variable in recordables(model):
        net.record_state(cells, variable)
    net.record_spikes(cells)
    return net.simulate(T_SIM), neurons[0].first_gid


@pytest.mark.parametrize("variable", VARIABLES)
def test_traces_agree_with_nest(model, nest_run, spikex_run, variable):
    if variable not in recordables(model):
        pytest.skip(f"{model} has no {variable}")
    result, _ = spikex_run
    trace = nest_run["trace"]
    times, cells = np.asarray(trace["times"]), np.asarray(trace["cells"])
    state = result.states[recordables(model).index(variable)]
    for k in range(len(NEURONS)):
        theirs = np.asarray(trace[variable])[cells == k]
        steps = np.rint(times[cells == k] / DT).astype(int) - 1  # NEST's (n + 1)·dt is step n
        assert steps.size == round(T_SIM / DT) - 1
        np.testing.assert_allclose(
            state["values"][steps, k], theirs, rtol=0, atol=TOLERANCE[variable], err_msg=f"neuron {k}"
        )
    if variable == "V_m":
        # Without conductance input only V is integrated: the same to rounding, which
        # shows the step current's and the dc_generator's timing exact (with sfa_rr, up to
        # the first spike, which opens g_sfa and g_rr).
        spikes = nest_run["spikes"]
        for k in (0, 1):
            theirs = np.asarray(trace["V_m"])[cells == k]
            steps = np.rint(times[cells == k] / DT).astype(int) - 1
            first = min((t for t, c in zip(spikes["times"], spikes["cells"]) if c == k), default=T_SIM)
            until = len(steps) if model != "iaf_cond_exp_sfa_rr" else round(first / DT) - 1
            assert until > 50
            np.testing.assert_allclose(state["values"][steps[:until], k], theirs[:until], rtol=0, atol=1e-9)
        # NEST's rule: E_L alone does not move the start (neuron 3 starts at -70 mV).
        assert abs(state["values"][0, 3] - (-70.0)) < 1.0


def test_spikes_identical_to_nest(model, nest_run, spikex_run):
    result, first = spikex_run
    mine = sorted(zip((result.spikes[0] - first).tolist(), result.spike_steps.tolist()))
    stamps = (np.rint(np.asarray(nest_run["spikes"]["times"]) / DT) - 1).astype(int)
    theirs = sorted(zip(nest_run["spikes"]["cells"], stamps.tolist()))
    assert len(theirs) >= MIN_SPIKES.get(model, 100)
    assert len({cell for cell, _ in theirs}) >= len(NEURONS) - 1  # alpha, sfa_rr: neuron 4 stays silent
    assert mine == theirs
