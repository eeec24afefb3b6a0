"""Network.set before and between runs (api/changes.py): what it changes and when, and
the errors that name the model, the key and what is allowed. NEST comparison:
nest_validation/test_nest_changes.py; layouts and resumes: test_network_determinism.py and
checkpoint/test_resume.py (users_network.apply_changes)."""

from __future__ import annotations

import numpy as np
import pytest

import spikex as sx


def _net():
    net = sx.Network(dt_ms=0.1, seed=2)
    cells = net.create("iaf_psc_exp", 3, params={"I_e": 0.0}, name="cells")
    dc = net.create("dc_generator", 1, params={"amplitude": 0.0}, name="dc")
    net.connect_rule("all_to_all", dc, cells, weight=1.0, delay_ms=0.5)
    net.record_spikes(cells)
    net.record_state(cells, "V_m")
    return net, cells, dc


def test_a_parameter_change_applies_from_the_next_step_and_a_state_at_once():
    net, cells, dc = _net()
    net.simulate(10.0)
    net.set(cells[0:1], I_e=500.0)
    net.set(cells[1], V_m=-60.0)
    result = net.simulate(10.0)
    v = result.states[0]["values"]
    assert v[99, 0] == v[99, 2] == -70.0
    assert v[100, 0] > -70.0 and v[100, 2] == -70.0  # I_e acts from step 100 on
    assert -60.1 < v[100, 1] < -60.0  # V_m set at once, relaxing to E_L


def test_a_device_change_reaches_targets_after_the_delay():
    net, cells, dc = _net()
    net.simulate(10.0)
    net.set(dc, amplitude=400.0)
    result = net.simulate(5.0)
    v = result.states[0]["values"][:, 2]
    # emission step 100 arrives at step 105; NEST's current acts on V one step later
    assert np.all(v[:106] == -70.0) and v[106] > -70.0


def test_e_l_changes_keep_v_m():
    net, cells, dc = _net()
    net.simulate(5.0)
    net.set(cells, E_L=-65.0)
    result = net.simulate(0.1)
    v = result.states[0]["values"]
    assert v[50, 0] > -70.0  # relaxing from -70 towards the new E_L, not jumping to it


@pytest.mark.parametrize(
    "values, message",
    [
        ({"tau_m": -1.0}, r"iaf_psc_exp parameter tau_m = -1: must be > 0 ms"),
        ({"bogus": 1.0}, r'"iaf_psc_exp" has no parameter or state variable "bogus": allowed are E_L'),
        ({"I_e": [1.0, 2.0]}, r"I_e = \[1.0, 2.0\]: must be a number or one number per cell \(3\)"),
        ({"V_th": -80.0}, r"V_reset"),
    ],
)
def test_bad_changes_are_refused_and_leave_the_network_as_it_was(values, message):
    net, cells, dc = _net()
    net.simulate(5.0)
    before = net.simulate(0.0).summary["spikes_sha256"]
    with pytest.raises(ValueError, match=message):
        net.set(cells, **values)
    net.set(cells, I_e=1000.0)  # still usable
    assert net.simulate(20.0).summary["spikes_sha256"] != before


def test_before_the_build_a_change_is_what_the_network_is_built_with():
    a, cells_a, _ = _net()
    a.set(cells_a, I_e=450.0)
    b = sx.Network(dt_ms=0.1, seed=2)
    cells_b = b.create("iaf_psc_exp", 3, params={"I_e": 450.0}, name="cells")
    dc = b.create("dc_generator", 1, params={"amplitude": 0.0}, name="dc")
    b.connect_rule("all_to_all", dc, cells_b, weight=1.0, delay_ms=0.5)
    b.record_spikes(cells_b)
    assert a.simulate(50.0).spike_steps.tolist() == b.simulate(50.0).spike_steps.tolist()


def test_list_parameters_change_together():
    net = sx.Network(dt_ms=0.1)
    step = net.create("step_current_generator", 1, params={"amplitude_times": [1.0], "amplitude_values": [10.0]})
    cell = net.create("iaf_psc_exp", 1)
    net.connect(step[0], cell[0], weight=1.0, delay_ms=0.1)
    net.simulate(2.0)
    net.set(step, amplitude_times=[3.0, 4.0], amplitude_values=[500.0, 0.0])
    with pytest.raises(ValueError, match="3 amplitude_times and 2 amplitude_values"):
        net.set(step, amplitude_times=[5.0, 6.0, 7.0])
    net.simulate(5.0)


def test_a_sine_generator_is_refused_between_runs_with_a_clear_message():
    net = sx.Network(dt_ms=0.1)
    ac = net.create("ac_generator", 1, params={"amplitude": 10.0, "frequency": 5.0}, name="ac")
    cell = net.create("iaf_psc_exp", 1)
    net.connect(ac[0], cell[0], weight=1.0, delay_ms=0.1)
    net.simulate(1.0)
    with pytest.raises(ValueError, match=r"set: ac_generator \(cell 0\) cannot change between runs"):
        net.set(ac, amplitude=20.0)
    net.simulate(1.0)
