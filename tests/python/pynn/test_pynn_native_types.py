"""spikex.pynn's native cell types (pyNN.nest's native_cell_type) and NESTML cell types
(PyNN 0.13's nestml_cell_type): a spikex model in its own names and NEST's units, the same
spikes and membrane traces as the standard type on the same model, pyNN.nest's weight
conventions, and a NESTML model built from a file or from text, its receptor types named
as PyNN's receptor_type."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pyNN")
from pyNN import errors  # noqa: E402

import spikex.pynn as sim  # noqa: E402

pytestmark = pytest.mark.usefixtures("loaded_models_forgotten")  # NESTML models loaded here

SPIKE_TIMES = [5.0, 6.0, 7.0, 8.0, 20.0, 21.0, 22.0, 30.0]


def run(cell_type, weight: float, receptor: str = "excitatory", initial: dict | None = None,
        variable: str = "v") -> tuple[list[np.ndarray], np.ndarray]:  # fmt: skip
    """Three cells driven by one spike source; their spike trains and one recorded trace."""
    sim.setup(timestep=0.1)
    source = sim.Population(1, sim.SpikeSourceArray(spike_times=SPIKE_TIMES))
    cells = sim.Population(3, cell_type)
    if initial:
        cells.initialize(**initial)
    cells.record(["spikes", variable])
    sim.Projection(source, cells, sim.AllToAllConnector(), sim.StaticSynapse(weight=weight, delay=1.0),
                   receptor_type=receptor)  # fmt: skip
    sim.run(60.0)
    data = cells.get_data().segments[0]
    sim.end()
    return [np.asarray(train) for train in data.spiketrains], np.asarray(data.analogsignals[0])


def assert_same(a, b, tolerance: float = 0.0) -> None:
    assert sum(train.size for train in a[0]) > 0
    assert all(np.array_equal(x, y) for x, y in zip(a[0], b[0], strict=True))
    assert np.abs(a[1] - b[1]).max() <= tolerance


# IF_curr_exp's defaults in NEST's names and units (its translations).
CURR_EXP = {"E_L": -65.0, "C_m": 1000.0, "tau_m": 20.0, "V_th": -50.0, "V_reset": -65.0, "t_ref": 0.1,
            "tau_syn_ex": 5.0, "tau_syn_in": 5.0, "I_e": 1000.0}  # fmt: skip


def test_a_native_type_has_the_model_s_names_defaults_and_state():
    native = sim.native_cell_type("iaf_psc_exp")
    assert native.__name__ == "iaf_psc_exp"
    assert native.default_parameters["C_m"] == 250.0 and native.default_parameters["t_ref"] == 2.0
    assert native.default_initial_values == {"V_m": -70.0}
    assert native.recordable == ["spikes", "V_m", "I_syn_ex", "I_syn_in"]
    assert "tau_minus" not in native.default_parameters  # set from STDP projections
    assert not native.conductance_based and sim.native_cell_type("iaf_cond_exp").conductance_based


def test_a_native_type_runs_as_the_standard_type_on_the_same_model():
    standard = run(sim.IF_curr_exp(i_offset=1.0), 3.0)
    native = run(sim.native_cell_type("iaf_psc_exp")(**CURR_EXP), 3.0, initial={"V_m": -65.0}, variable="V_m")
    assert_same(standard, native)
    # inhibitory input: negative weights on current inputs, as in PyNN
    standard = run(sim.IF_curr_exp(i_offset=1.0), -0.3, "inhibitory")
    native = run(sim.native_cell_type("iaf_psc_exp")(**CURR_EXP), -0.3, "inhibitory", {"V_m": -65.0}, "V_m")
    assert_same(standard, native)


@pytest.mark.slow
def test_a_conductance_based_native_type_takes_positive_inhibitory_weights():
    cond = {"E_L": -65.0, "C_m": 1000.0, "g_L": 50.0, "V_th": -50.0, "V_reset": -65.0, "t_ref": 0.1,
            "tau_syn_ex": 5.0, "tau_syn_in": 5.0, "I_e": 1000.0, "E_ex": 0.0, "E_in": -70.0}  # fmt: skip
    for receptor, weight in (("excitatory", 0.02), ("inhibitory", 0.01)):
        standard = run(sim.IF_cond_exp(i_offset=1.0), weight, receptor)
        native = run(sim.native_cell_type("iaf_cond_exp")(**cond), weight, receptor, {"V_m": -65.0}, "V_m")
        assert_same(standard, native)


def test_unknown_models_and_models_with_ports_are_refused_by_name():
    with pytest.raises(errors.InvalidModelError, match=r"native_cell_type\('no_such_model'\): no spikex neuron"):
        sim.native_cell_type("no_such_model")
    with pytest.raises(errors.InvalidModelError, match="no spikex neuron model"):
        sim.native_cell_type("poisson_generator")  # a device
    with pytest.raises(NotImplementedError, match="ports numbered by a parameter list.*PointNeuron"):
        sim.native_cell_type("iaf_psc_exp_multisynapse")


# --- NESTML ---------------------------------------------------------------------------------
def library_model(name: str) -> Path:
    for file in metadata.files("nestml") or []:
        if str(file).endswith(f"models/neurons/{name}.nestml"):
            return Path(file.locate()).resolve()
    raise FileNotFoundError(name)


@pytest.fixture(scope="module")
def nestml_cache(nestml_build_cache, monkeypatch_module):
    pytest.importorskip("pynestml")
    monkeypatch_module.setenv("SPIKEX_MODEL_CACHE", str(nestml_build_cache))
    return nestml_build_cache


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


# iaf_psc_exp_neuron's names for CURR_EXP.
NESTML_CURR_EXP = {"E_L": -65.0, "C_m": 1000.0, "tau_m": 20.0, "V_th": -50.0, "V_reset": -65.0, "refr_T": 0.1,
                   "tau_syn_exc": 5.0, "tau_syn_inh": 5.0, "I_e": 1000.0}  # fmt: skip


@pytest.mark.slow
def test_a_nestml_cell_type_from_a_file_or_text_gives_the_builtin_model_s_spikes(nestml_cache):
    path = library_model("iaf_psc_exp_neuron")
    from_file = sim.nestml_cell_type("MyExp", path)
    assert from_file.__name__ == "MyExp" and from_file.spikex_model == "iaf_psc_exp_neuron"
    assert from_file.default_parameters["refr_T"] == 2.0
    assert "V_m" in from_file.default_initial_values and "I_syn_exc" in from_file.recordable
    builtin = run(sim.native_cell_type("iaf_psc_exp")(**CURR_EXP), 3.0, initial={"V_m": -65.0}, variable="V_m")
    generated = run(from_file(**NESTML_CURR_EXP), 3.0, initial={"V_m": -65.0}, variable="V_m")
    # ODE-toolbox's propagators are other expressions than NEST's: traces within 1e-12 mV
    assert_same(builtin, generated, tolerance=1e-9)

    from spikex.pynn.nestml import nestml_cell_type  # PyNN's module path

    from_text = nestml_cell_type("MyExpText", path.read_text())
    assert from_text.spikex_model == "iaf_psc_exp_neuron"
    assert list(nestml_cache.glob("sources/*/iaf_psc_exp_neuron.nestml"))  # the text, kept by content
    assert_same(generated, run(from_text(**NESTML_CURR_EXP), 3.0, initial={"V_m": -65.0}, variable="V_m"))


def test_a_nestml_description_that_is_neither_file_nor_model_is_refused():
    with pytest.raises(errors.InvalidModelError, match="does not exist"):
        sim.nestml_cell_type("X", "missing.nestml")
    with pytest.raises(errors.InvalidModelError, match="neither a .nestml file nor NESTML text"):
        sim.nestml_cell_type("X", "neuron without a model line\n")


PORTS = """\
model two_ports_neuron:
    state:
        V_m mV = -70 mV
        I_a pA = 0 pA
        I_b pA = 0 pA

    equations:
        I_a' = -I_a / 2 ms
        I_b' = -I_b / 4 ms
        V_m' = -(V_m + 70 mV) / 10 ms + (I_a + I_b) / 100 pF

    input:
        AMPA <- spike
        GABA <- spike

    output:
        spike

    update:
        integrate_odes()

    onReceive(AMPA):
        I_a += AMPA * 1 pA * 1 s

    onReceive(GABA):
        I_b += GABA * 1 pA * 1 s
"""


@pytest.mark.slow
def test_a_nestml_type_s_receptor_types_are_its_named_ports(nestml_cache):
    cell_type = sim.nestml_cell_type("TwoPorts", PORTS)
    assert cell_type.receptor_types == ("AMPA", "GABA")
    sim.setup(timestep=0.1)
    source = sim.Population(1, sim.SpikeSourceArray(spike_times=[1.0]))
    cells = sim.Population(2, cell_type())
    cells.record(["I_a", "I_b"])
    # nA -> pA as pyNN.nest; a negative weight keeps its sign on a port
    sim.Projection(source, cells[0:1], sim.AllToAllConnector(), sim.StaticSynapse(weight=0.02, delay=0.5),
                   receptor_type="AMPA")  # fmt: skip
    sim.Projection(source, cells[1:2], sim.AllToAllConnector(), sim.StaticSynapse(weight=-0.03, delay=0.5),
                   receptor_type="GABA")  # fmt: skip
    with pytest.raises(errors.ConnectionError):
        sim.Projection(source, cells, sim.AllToAllConnector(), receptor_type="NMDA")
    sim.run(3.0)
    signals = {str(a.name): np.asarray(a) for a in cells.get_data().segments[0].analogsignals}
    sim.end()
    a, b = signals["I_a"], signals["I_b"]
    assert not a[:, 1].any() and not b[:, 0].any()  # each spike reached its own port only
    assert a[:, 0].max() == pytest.approx(20.0) and b[:, 1].min() == pytest.approx(-30.0)
