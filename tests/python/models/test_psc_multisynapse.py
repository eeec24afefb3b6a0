"""iaf_psc_exp_multisynapse and iaf_psc_alpha_multisynapse through the Python API: a spike
reaches the current of the port its connection names (and only that one), with the sign of
its weight; the ports' lists may differ per cell; per-port recordables are NEST's I_syn_1,
I_syn_2, ... and I_syn their sum; bad lists, numbers and ports are refused naming the
model, the key, the value and what is allowed. Layouts and checkpoints:
tests/python/networks/users_network.py; NEST:
tests/python/nest_validation/test_nest_psc_multisynapse.py; C++:
tests/cpp/test_iaf_psc_multisynapse.cpp."""

from __future__ import annotations

import numpy as np
import pytest

import spikex as sx

MODELS = ("iaf_psc_exp_multisynapse", "iaf_psc_alpha_multisynapse")
TAU_SYN = [0.5, 3.0, 12.0]


@pytest.mark.parametrize("model", MODELS)
def test_a_spike_reaches_the_port_its_connection_names_with_its_sign(model):
    net = sx.Network(dt_ms=0.1, seed=1)
    cells = net.create(model, 3, params={"tau_syn": TAU_SYN})
    source = net.create("spike_source_array", 1, params={"spike_times": [2.0]})
    weights = [300.0, -200.0, 100.0]
    for k in range(3):  # cell k through port k + 1
        net.connect(source[0], cells[k], weight=weights[k], delay_ms=1.0, receptor=k + 1)
    for name in ("I_syn_1", "I_syn_2", "I_syn_3", "I_syn", "V_m"):
        net.record_state(cells, name)
    result = net.simulate(40.0)
    current = np.stack([s["values"] for s in result.states[:3]])  # port, step, cell
    for k in range(3):
        for port in range(3):
            moved = np.abs(current[port, :, k]).max() > 0.0
            assert moved == (port == k), (k, port)
        extreme = current[k, :, k][np.argmax(np.abs(current[k, :, k]))]
        # exp: jumps by the weight; alpha: peaks at it
        assert extreme == pytest.approx(weights[k], rel=1e-9 if "exp" in model else 1e-3)
    np.testing.assert_array_equal(result.states[3]["values"], current.sum(axis=0))
    V = result.states[4]["values"]
    assert V[:, 0].max() > -70.0 and V[:, 1].min() < -70.0  # the signs act on V
    assert list(net.connections()["receptor"]) == [1, 2, 3]


@pytest.mark.parametrize("model", (*MODELS, "aeif_cond_alpha_multisynapse", "glif_psc", "glif_cond"))
def test_a_poisson_generator_drives_the_port_its_connection_names(model):
    # a device's spike train reaches the port too (it is drawn at the target, not delivered
    # through the connection table); the same draws whichever port it takes
    def run(port: int, threads: int = 1):
        net = sx.Network(dt_ms=0.1, seed=4, threads=threads)
        params = {"tau_syn": TAU_SYN} if "iaf_psc" in model else {"tau_syn": [2.0, 5.0]} if "glif" in model else {}
        if model in ("glif_cond", "aeif_cond_alpha_multisynapse"):
            params = {"tau_syn": [2.0, 5.0], "E_rev": [0.0, -10.0]}
        cells = net.create(model, 4, params=params)
        drive = net.create("poisson_generator", 1, params={"rate": 4000.0})
        net.connect_rule("all_to_all", drive, cells, weight=30.0 if "psc" in model else 2.0, delay_ms=0.1,
                         receptor=port)  # fmt: skip
        name = "I_syn_{}" if "iaf_psc" in model else ("I_syn" if model == "glif_psc" else "g_{}")
        names = [name.format(k) for k in (1, 2)] if "{}" in name else [name]
        for variable in names:
            net.record_state(cells, variable)
        result = net.simulate(30.0)
        return [np.asarray(s["values"]) for s in result.states]

    first, second = run(1), run(2)
    if len(first) == 2:  # a recordable per port: only the named one moves, by the same amounts
        assert np.abs(first[0]).max() > 0.0 and np.abs(first[1]).max() == 0.0
        assert np.abs(second[1]).max() > 0.0 and np.abs(second[0]).max() == 0.0
        assert not np.array_equal(first[0], second[1])  # the ports' own time constants
    else:
        assert np.abs(first[0]).max() > 0.0
    for a, b in zip(run(2, threads=2), second):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("model", MODELS)
def test_port_lists_may_differ_per_cell_with_the_same_number_of_ports(model):
    net = sx.Network(dt_ms=0.1, seed=1)
    cells = net.create(model, 2, params={"tau_syn": [[1.0, 8.0], [8.0, 1.0]]})
    source = net.create("spike_source_array", 1, params={"spike_times": [2.0]})
    net.connect(source[0], cells, weight=[100.0, 100.0], delay_ms=1.0, receptor=1)
    net.record_state(cells, "I_syn_1")
    result = net.simulate(12.0)
    fast, slow = result.states[0]["values"][-1]
    assert 0 < fast < 0.05 * slow  # 9 ms after the spike: port 1 has 1 ms in cell 0, 8 ms in cell 1


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"tau_syn": []}, "parameter tau_syn (cell 0): 0 values: must have 1 to 16"),
        ({"tau_syn": [1.0] * 17}, "parameter tau_syn (cell 0): 17 values: must have 1 to 16"),
        ({"tau_syn": [1.0, 0.0]}, "parameter tau_syn = 0: must be > 0 ms (cell 0)"),
        ({"tau_syn": [-2.0]}, "parameter tau_syn = -2: must be > 0 ms (cell 0)"),
        (
            {"tau_syn": [[1.0], [1.0, 2.0]]},
            "parameter tau_syn (cell 1): 2 values where the population's first cell has 1",
        ),
        ({"V_reset": -50.0}, "parameter V_reset = -50: must be < V_th = -55 mV"),
        ({"C_m": 0.0}, "parameter C_m = 0: must be > 0 pF"),
    ],
)
def test_bad_lists_and_numbers_are_refused_naming_model_key_value_and_range(model, params, words):
    net = sx.Network(dt_ms=0.1)
    with pytest.raises(ValueError) as error:
        net.create(model, 2, params=params)
        net.simulate(1.0)
    message = str(error.value)
    assert message.startswith(f"{model} ") and words in message, message


def test_tau_syn_equal_to_tau_m_as_nest():
    """NEST refuses a given tau_syn equal to tau_m in the exp model only; with tau_syn not
    given its default [2.0] and tau_m = 2 run (the propagator's limit)."""
    net = sx.Network(dt_ms=0.1)
    net.create("iaf_psc_exp_multisynapse", 1, params={"tau_m": 5.0, "tau_syn": [1.0, 5.0]})
    with pytest.raises(
        ValueError, match=r"tau_syn = 5: must differ from tau_m = 5 ms \(cell 0; NEST's rule"
    ):
        net.simulate(1.0)
    for model, params in (
        ("iaf_psc_exp_multisynapse", {"tau_m": 2.0}),
        ("iaf_psc_alpha_multisynapse", {"tau_m": 5.0, "tau_syn": [1.0, 5.0]}),
    ):
        net = sx.Network(dt_ms=0.1)
        cells = net.create(model, 1, params={**params, "I_e": 3000.0})  # above rheobase
        net.record_spikes(cells)
        assert len(net.simulate(100.0).spike_steps) > 0, model


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("receptor", [0, 4])
def test_a_port_the_cells_lack_is_refused(model, receptor):
    net = sx.Network(dt_ms=0.1)
    cells = net.create(model, 2, params={"tau_syn": TAU_SYN})
    source = net.create("spike_source_array", 1, params={"spike_times": [1.0]})
    expected = (
        f'receptor = {receptor}: model "{model}" takes spikes through its receptor ports 1 .. 3'
    )
    with pytest.raises(ValueError, match=expected):
        net.connect(source[0], cells[0], weight=1.0, receptor=receptor)
    with pytest.raises(ValueError, match=expected):
        net.connect_rule("all_to_all", source, cells, weight=1.0, receptor=receptor)


@pytest.mark.parametrize("model", MODELS)
def test_recordables_are_numbered_per_port_and_only_v_m_is_settable(model):
    net = sx.Network(dt_ms=0.1)
    cells = net.create(model, 1, params={"tau_syn": [1.0, 2.0]})
    with pytest.raises(ValueError, match='variable "I_syn_3"'):
        net.record_state(cells, "I_syn_3")
    net.simulate(1.0)
    net.set(cells, V_m=-60.0)
    assert net.get(cells, "V_m")[0] == -60.0
    for name in ("I_syn_2", "I_syn"):
        with pytest.raises(ValueError, match=f'{model}: state variable "{name}" cannot be set'):
            net.set(cells, **{name: 1.0})
