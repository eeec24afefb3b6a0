"""glif_psc and glif_cond through the Python API: the level flags take Python booleans
(NEST's); spikes enter through receptor ports only; the recordables of a
GLIF5 cell under a current move as the model says (the threshold's spike component jumps
at each spike, the after-spike currents turn negative)."""

from __future__ import annotations

import numpy as np
import pytest
import spikex as sx

LEVEL5 = {
    "spike_dependent_threshold": True,
    "after_spike_currents": True,
    "adapting_threshold": True,
}


def _run(model: str, params: dict) -> tuple[np.ndarray, dict]:
    net = sx.Network(dt_ms=0.1)
    cell = net.create(model, 1, params=params)
    dc = net.create("dc_generator", 1, params={"amplitude": 500.0})
    net.connect(dc[0], cell[0], weight=1.0, delay_ms=0.1)
    net.record_spikes(cell)
    for variable in ("threshold_spike", "ASCurrents_sum", "threshold_voltage"):
        net.record_state(cell, variable)
    result = net.simulate(200.0)
    states = {s["variable"]: np.asarray(s["values"])[:, 0] for s in result.states}
    return result.spike_steps, states


@pytest.mark.parametrize("model", ["glif_psc", "glif_cond"])
def test_flags_take_booleans_as_nest_does(model):
    steps, states = _run(model, LEVEL5)
    same_steps, _ = _run(model, {k: 1.0 for k in LEVEL5})
    assert len(steps) > 5 and np.array_equal(steps, same_steps)
    assert states["threshold_spike"].max() > 0.3  # jumps by th_spike_add = 0.37 mV per spike
    assert states["ASCurrents_sum"].min() < -100.0  # asc_amps -9.18, -198.94 pA
    assert np.ptp(states["threshold_voltage"]) > 0.1
    plain, _ = _run(model, {k: False for k in LEVEL5})
    assert len(plain) > len(steps)  # GLIF1 adapts in no way


@pytest.mark.parametrize("model", ["glif_psc", "glif_cond"])
def test_spikes_come_through_ports_only(model):
    net = sx.Network(dt_ms=0.1)
    cells = net.create(
        model,
        1,
        params={"tau_syn": [1.0, 2.0, 3.0]}
        | ({"E_rev": [0.0, -80.0, -70.0]} if model == "glif_cond" else {}),
    )
    source = net.create("spike_source_array", 1, params={"spike_times": [1.0]})
    for receptor in (0, 4):
        with pytest.raises(ValueError, match="receptor"):
            net.connect(source[0], cells[0], weight=1.0, delay_ms=1.0, receptor=receptor)
            net.simulate(1.0)
