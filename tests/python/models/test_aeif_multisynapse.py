"""aeif_cond_alpha_multisynapse and aeif_cond_beta_multisynapse through the Python API: a
spike reaches the conductance of the port its connection names (and only that one), the
ports' lists may differ per cell, per-port recordables are NEST's g_1, g_2, ...; bad lists,
ports and weights are refused naming the model, the key, the value and what is allowed (a
negative weight when its spike arrives, as NEST); a diverging cell ends the run naming cell
and time. Layouts and checkpoints: tests/python/networks/users_network.py; NEST:
tests/python/nest_validation/test_nest_aeif_multisynapse.py."""

from __future__ import annotations

import numpy as np
import pytest

import spikex as sx
from spikex import _core

MODELS = ("aeif_cond_alpha_multisynapse", "aeif_cond_beta_multisynapse")
THREE = {
    "aeif_cond_alpha_multisynapse": {"E_rev": [0.0, -85.0, -30.0], "tau_syn": [0.5, 2.0, 6.0]},
    "aeif_cond_beta_multisynapse": {
        "E_rev": [0.0, -85.0, -30.0],
        "tau_rise": [0.5, 1.0, 3.0],
        "tau_decay": [2.0, 6.0, 3.0],
    },
}


@pytest.mark.parametrize("model", MODELS)
def test_a_spike_reaches_the_port_its_connection_names(model):
    net = sx.Network(dt_ms=0.1, seed=1)
    cells = net.create(model, 3, params=THREE[model])
    source = net.create("spike_source_array", 1, params={"spike_times": [2.0]})
    for k in range(3):  # cell k through port k + 1
        net.connect(source[0], cells[k], weight=4.0, delay_ms=1.0, receptor=k + 1)
    for port in (1, 2, 3):
        net.record_state(cells, f"g_{port}")
    net.record_state(cells, "V_m")
    result = net.simulate(20.0)
    g = np.stack([s["values"] for s in result.states[:3]])  # port, step, cell
    for k in range(3):
        for port in range(3):
            moved = g[port, :, k].max() > 0.0
            assert moved == (port == k), (k, port)
        assert g[k, :, k].max() == pytest.approx(4.0, rel=2e-3)  # peaks at the weight
    V = result.states[3]["values"][-1]
    assert V[0] > -70.6 > V[1]  # E_rev 0 mV depolarises, -85 mV hyperpolarises
    assert list(net.connections()["receptor"]) == [1, 2, 3]


def test_port_lists_may_differ_per_cell_with_the_same_number_of_ports():
    net = sx.Network(dt_ms=0.1, seed=1)
    cells = net.create(
        "aeif_cond_alpha_multisynapse",
        2,
        params={"E_rev": [[0.0, -80.0], [-80.0, 0.0]], "tau_syn": [1.0, 1.0]},
    )
    source = net.create("spike_source_array", 1, params={"spike_times": [2.0]})
    net.connect(source[0], cells, weight=[5.0, 5.0], delay_ms=1.0, receptor=1)
    net.record_state(cells, "V_m")
    V = net.simulate(10.0).states[0]["values"][-1]
    assert V[0] > -70.6 > V[1]
    assert net.get(cells, "g_1")[0] == net.get(cells, "g_1")[1]


@pytest.mark.parametrize(
    ("params", "words"),
    [
        (
            {"E_rev": [0.0, -80.0]},
            "parameters E_rev and tau_syn (cell 0): 2 and 1 values: must be lists of the same length",
        ),
        ({"E_rev": [], "tau_syn": []}, "parameter E_rev = [] (cell 0): must have 1 to 16 values"),
        (
            {"E_rev": [0.0] * 17, "tau_syn": [1.0] * 17},
            "(17 values)] (cell 0): must have 1 to 16 values",
        ),
        ({"tau_syn": [0.0]}, "parameter tau_syn = 0: must be > 0 ms (cell 0)"),
        (
            {"E_rev": [[0.0], [0.0, 1.0]], "tau_syn": [[1.0], [1.0, 2.0]]},
            "(cell 1): 2 receptor ports: every cell",
        ),
        ({"V_reset": 5.0}, "parameter V_reset = 5: must be < V_peak = 0 mV"),
    ],
)
def test_bad_lists_and_numbers_are_refused_naming_model_key_value_and_range(params, words):
    net = sx.Network(dt_ms=0.1)
    with pytest.raises(ValueError) as error:
        net.create("aeif_cond_alpha_multisynapse", 2, params=params)
        net.simulate(1.0)
    assert str(error.value).startswith("aeif_cond_alpha_multisynapse ") and words in str(
        error.value
    ), error.value


def test_beta_time_constants_are_checked_per_port():
    net = sx.Network(dt_ms=0.1)
    with pytest.raises(
        ValueError, match=r"tau_decay = 1: must be >= tau_rise = 2 ms \(cell 0, port 2\)"
    ):
        net.create("aeif_cond_beta_multisynapse", 1, params={**THREE["aeif_cond_beta_multisynapse"], "tau_rise": [0.5, 2.0, 3.0], "tau_decay": [2.0, 1.0, 3.0]})  # fmt: skip
        net.simulate(1.0)


@pytest.mark.parametrize(("receptor", "words"), [(0, "receptor = 0"), (4, "receptor = 4")])
def test_a_port_the_cells_lack_is_refused(receptor, words):
    net = sx.Network(dt_ms=0.1)
    cells = net.create(
        "aeif_cond_beta_multisynapse", 1, params=THREE["aeif_cond_beta_multisynapse"]
    )
    source = net.create("spike_source_array", 1, params={"spike_times": [1.0]})
    with pytest.raises(
        ValueError, match=f"{words}: model .* takes spikes through its receptor ports 1 .. 3"
    ):
        net.connect(source[0], cells[0], weight=1.0, receptor=receptor)


def test_a_negative_weight_is_refused_when_its_spike_arrives_as_in_nest():
    net = sx.Network(dt_ms=0.1)
    cells = net.create(
        "aeif_cond_alpha_multisynapse", 2, params=THREE["aeif_cond_alpha_multisynapse"]
    )
    source = net.create("spike_source_array", 1, params={"spike_times": [3.0]})
    net.connect(source[0], cells[1], weight=-2.0, delay_ms=1.0, receptor=2)
    with pytest.raises(ValueError) as error:
        net.simulate(10.0)
    message = str(error.value)
    assert message.startswith(
        f"aeif_cond_alpha_multisynapse cell {cells[1]}: a spike of weight -2 nS through receptor port 2 at t = 4 ms: weights must be >= 0"
    ), message


def test_recordables_are_numbered_per_port_and_conductances_are_not_settable():
    net = sx.Network(dt_ms=0.1)
    cells = net.create(
        "aeif_cond_beta_multisynapse", 1, params=THREE["aeif_cond_beta_multisynapse"]
    )
    with pytest.raises(ValueError, match='variable "g_4"'):
        net.record_state(cells, "g_4")
    net.simulate(1.0)
    net.set(cells, V_m=-55.0, w=3.0)
    assert net.get(cells, "V_m")[0] == -55.0 and net.get(cells, "w")[0] == 3.0
    with pytest.raises(ValueError, match='state variable "g_2" cannot be set'):
        net.set(cells, g_2=1.0)


def test_a_diverging_cell_ends_the_run_naming_cell_and_time():
    # A port with E_rev = -5000 mV and a strong, fast input: V_m below -1000 mV (NEST's check).
    net = sx.Network(dt_ms=0.1)
    cells = net.create(
        "aeif_cond_beta_multisynapse",
        1,
        params={"E_rev": [-5000.0], "tau_rise": [0.01], "tau_decay": [0.5]},
    )
    source = net.create("spike_source_array", 1, params={"spike_times": [1.0]})
    net.connect(source[0], cells[0], weight=3000.0, delay_ms=1.0, receptor=1)
    with pytest.raises(
        _core.SimulationError,
        match=r"aeif_cond_beta_multisynapse cell 0 at t = 2\.\d* ms: the numerical integration failed \(V_m = -",
    ):
        net.simulate(10.0)
