"""The model conformance suite: every entry of the model registry (spikex.models.MODELS,
listing nothing by hand) is complete, documented with its generated tables, refuses each
bad parameter value by name, and (with NEST 3.10) has NEST's defaults. Layout and
checkpoint determinism of every model: tests/python/networks/test_network_determinism.py
and tests/cpp/test_checkpoint_state.cpp run them over the same models."""

from __future__ import annotations

import copy
import json
import math
import sys

import numpy as np
import pytest
from conftest import REPO, require_nest

import spikex as sx
from spikex.models import MODELS, SYNAPSE_TYPES, entry_problems
from spikex.models.reference import marked_models, parameter_table, refreshed

sys.path.insert(0, str(REPO / "bench" / "nest"))
import run_exact


@pytest.mark.parametrize("model", sorted(MODELS))
def test_entry_is_complete(model):
    assert entry_problems(MODELS[model], root=REPO) == []


def test_an_incomplete_entry_is_reported_item_by_item():
    entry = copy.deepcopy(MODELS["iaf_cond_exp"])
    entry["docs_page"] = ""
    entry["integration"] = ""
    spec = {s["name"]: s for s in entry["parameter_specs"]}
    spec["V_th"]["unit"] = ""
    spec["C_m"]["default"] = math.nan
    spec["E_L"]["meaning"] = ""
    spec["t_ref"]["default"] = -1.0  # outside >= 0
    entry["state_specs"][0]["meaning"] = ""
    problems = entry_problems(entry, root=REPO)
    expected = [
        "iaf_cond_exp: no docs page",
        "iaf_cond_exp: no integration",
        "iaf_cond_exp parameter V_th: no unit",
        "iaf_cond_exp parameter C_m: no default",
        "iaf_cond_exp parameter E_L: no meaning",
        "iaf_cond_exp parameter t_ref: default -1.0 outside its range (must be >= 0 ms)",
        "iaf_cond_exp state V_m: no meaning",
    ]
    assert sorted(problems) == sorted(expected)
    missing_page = dict(MODELS["iaf_cond_exp"], docs_page="docs/models/no_such_page.md")
    assert entry_problems(missing_page, root=REPO) == [
        "iaf_cond_exp: docs page docs/models/no_such_page.md does not exist"
    ]


@pytest.mark.parametrize("model", sorted(MODELS))
def test_docs_page_holds_the_generated_tables(model):
    page = REPO / MODELS[model]["docs_page"]
    text = page.read_text()
    assert model in marked_models(text), f"{page.name} has no '<!-- parameters: {model} -->' block"
    assert refreshed(text) == text, f"{page.name} is stale: run `python -m spikex.models.reference`"
    assert parameter_table(model) in text


@pytest.mark.parametrize("synapse", sorted(n for n, e in SYNAPSE_TYPES.items() if e["docs_page"]))
def test_synapse_types_are_complete_and_their_pages_current(synapse):
    entry = dict(SYNAPSE_TYPES[synapse], docs_page=f"docs/models/{SYNAPSE_TYPES[synapse]['docs_page']}")
    assert entry_problems(entry, root=REPO) == []
    assert {s["name"]: s["default"] for s in entry["parameter_specs"]} == entry["defaults"]
    text = (REPO / entry["docs_page"]).read_text()
    assert synapse in marked_models(text) and refreshed(text) == text


def test_connection_rules_page_holds_the_generated_table():
    from spikex.models.reference import RULES_PAGE, connection_rule_table

    text = (REPO / RULES_PAGE).read_text()
    assert connection_rule_table() in text and refreshed(text) == text, (
        f"{RULES_PAGE} is stale: run `python -m spikex.models.reference`"
    )


def _outside(spec: dict) -> float | None:
    """A value the spec refuses, or None when every finite number is allowed."""
    r = spec["range"]
    if r["choices"]:
        return 0.5
    if math.isfinite(r["low"]):
        return r["low"] - 1.0 if not r["low_open"] else r["low"]
    if math.isfinite(r["high"]):
        return r["high"] + 1.0
    return None


def _bad_values():
    for model, entry in sorted(MODELS.items()):
        for spec in entry["parameter_specs"]:
            if spec["shape"] == "per_cell" and _outside(spec) is not None:
                yield pytest.param(model, spec, id=f"{model}-{spec['name']}")


@pytest.mark.parametrize(("model", "spec"), list(_bad_values()))
def test_a_bad_value_is_refused_naming_model_key_value_and_range(model, spec):
    bad = _outside(spec)
    net = sx.Network(dt_ms=0.1)
    with pytest.raises(ValueError) as error:  # at create (Python's checks) or at build (the core's)
        net.create(model, 1, params={spec["name"]: bad})
        net.simulate(0.2)
    message = str(error.value)
    assert model in message and spec["name"] in message, message
    assert "\n" not in message and "must be" in message, message
    bound = spec["allowed"].split()[-2] if spec["unit"] not in ("", "1") else spec["allowed"].split()[-1]
    assert bound.rstrip("]").lstrip("[") in message or spec["allowed"] in message, message


@pytest.fixture(scope="module")
def nest_defaults():
    require_nest(run_exact.nest_unavailable_reason())
    names = sorted({e["nest_model"] for e in MODELS.values() if e["nest_model"]})
    code = (
        "import json, nest\nnest.set_verbosity('M_ERROR')\n"
        "def plain(v): return v.tolist() if getattr(v, 'ndim', 0) == 1 else v\n"  # list parameters
        f"print(json.dumps({{m: {{k: plain(v) for k, v in nest.GetDefaults(m).items()"
        f" if isinstance(v, (int, float)) or getattr(v, 'ndim', 0) == 1}} for m in {names!r}}}))"
    )
    done = run_exact.run_nest_script_code(code)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow  # NEST in a subprocess
@pytest.mark.parametrize("model", sorted(m for m, e in MODELS.items() if e["nest_model"]))
def test_defaults_are_nests(nest_defaults, model):
    entry = MODELS[model]
    theirs = nest_defaults[entry["nest_model"]]
    compared = 0
    for spec in entry["parameter_specs"]:
        if (
            spec["shape"] == "per_cell_list"
            and spec["default_rule"].startswith("[")
            and spec["name"] in theirs
        ):
            # a list a cell takes when none is given (the multisynapse models' ports)
            expected = pytest.approx(theirs[spec["name"]])
            assert json.loads(spec["default_rule"]) == expected, spec["name"]
            continue
        if spec["shape"] != "per_cell" or spec["name"] not in theirs:
            continue
        nest_value = float(theirs[spec["name"]])
        if nest_value == sys.float_info.max:  # NEST's "no end" (stop)
            nest_value = math.inf
        assert spec["default"] == pytest.approx(nest_value, rel=1e-12, abs=1e-300), spec["name"]
        compared += 1
    assert compared >= 3


# Models whose recordables move only when the cell fires (adaptation): parameters that make
# it fire within the test's 10 ms (the others take I_e = 300 pA).
_FIRING = {
    "iaf_cond_exp_sfa_rr": {"I_e": 1000.0},
    "gif_cond_exp": {
        "I_e": 300.0,
        "V_T_star": -60.0,
        "tau_stc": [5.0],
        "q_stc": [10.0],
        "tau_sfa": [5.0],
        "q_sfa": [2.0],
    },
}
# The GLIF models (no I_e: a dc_generator drives them) at level 5, every mechanism on: its
# recordables move, and threshold_spike / threshold_voltage are settable (NEST's rule).
_GLIF5 = {"spike_dependent_threshold": True, "after_spike_currents": True, "adapting_threshold": True}
_FIRING.update({"glif_psc": _GLIF5, "glif_cond": _GLIF5})
_SET_WITH = {"glif_psc": _GLIF5, "glif_cond": _GLIF5}  # under which every recordable can be set


def _drive_without_I_e(net, model: str, cells, amplitude: float) -> None:
    """A current through a dc_generator for a model that takes currents but has no I_e."""
    if "I_e" not in MODELS[model]["parameters"] and MODELS[model]["accepts_current"]:
        dc = net.create("dc_generator", 1, params={"amplitude": amplitude})
        for cell in cells:
            net.connect(dc[0], cell, weight=1.0, delay_ms=0.1)


def _recorded(variable: str) -> str:
    """A recordable name to record: a per-port one's first port ("g_<port>" -> "g_1")."""
    return variable.replace("_<port>", "_1")


def _receptor(model: str) -> int:
    """The port to connect to (1 for a model with receptor ports, which take spikes through
    a port only; 0 otherwise)."""
    return 1 if MODELS[model].get("has_receptor_ports") else 0


def _recordables():
    for model, entry in sorted(MODELS.items()):
        for variable in entry["state_variables"]:
            yield pytest.param(model, variable, id=f"{model}-{variable}")


@pytest.mark.parametrize(("model", "variable"), list(_recordables()))
def test_every_recordable_variable_records(model, variable):
    """Each recordable of each model records, every step, and moves under input."""
    net = sx.Network(dt_ms=0.1, seed=3)
    params = _FIRING.get(model, {"I_e": 300.0}) if MODELS[model]["parameter_specs"] else None
    cells = net.create(model, 2, params=params)
    _drive_without_I_e(net, model, [cells[0], cells[1]], 500.0)
    source = net.create("spike_source_array", 1, params={"spike_times": [1.0, 2.0, 3.0, 4.0]})
    weight = 50.0 if "g_" not in variable else 5.0
    receptor = _receptor(model)  # ports take weights >= 0, their reversal potential choosing
    net.connect(source[0], cells[0], weight=weight, delay_ms=0.5, receptor=receptor)
    net.connect(
        source[0], cells[1], weight=weight if receptor else -weight, delay_ms=0.5, receptor=receptor
    )
    net.record_state(cells, _recorded(variable))
    values = net.simulate(10.0).states[0]["values"]
    assert values.shape == (100, 2)
    assert np.all(np.isfinite(values))
    assert np.ptp(values) > 0, f"{model}.{variable} never changes"


@pytest.mark.parametrize(("model", "variable"), list(_recordables()))
def test_every_recordable_variable_can_be_set_between_runs(model, variable):
    """Network.set of a recordable between runs (NEST's SetStatus): read back at once,
    and a parameter change afterwards keeps it (the group is rebuilt with its state)."""
    net = sx.Network(dt_ms=0.1, seed=3)
    cells = net.create(model, 2, params=_SET_WITH.get(model))
    spec_name, variable = variable, _recorded(variable)
    net.record_state(cells, variable)
    before = net.simulate(1.0).states[0]["values"][-1]
    target = before + np.where(np.abs(before) > 1e-3, 0.01 * before, 0.01)
    specs = MODELS[model]["state_specs"]
    if not next(s for s in specs if spec_name in (s["name"], f"{s['name']}_<port>"))["settable"]:
        with pytest.raises(ValueError, match=f'state variable "{variable}" cannot be set'):
            net.set(cells[1], **{variable: target[1]})
        return
    net.set(cells[1], **{variable: target[1]})
    per_cell = [s for s in MODELS[model]["parameter_specs"] if s["shape"] == "per_cell" and s["name"] != "tau_minus"]
    if any(s["name"] == "I_e" for s in per_cell):
        net.set(cells, I_e=0.0)  # a parameter change: the state must survive the rebuild
    now = net.get(cells, variable)
    assert now[1] == pytest.approx(target[1], rel=1e-12), f"{model}.{variable} not set"
    assert now[0] == before[0]


def _neurons_with_current():
    return sorted(m for m, e in MODELS.items() if e["kind"] == "neuron" and e["accepts_current"])


@pytest.mark.parametrize("model", _neurons_with_current())
def test_stdp_onto_every_neuron_model(model):
    """stdp_synapse onto each neuron model: the postsynaptic spikes reach the rule through
    the model interface (the cell's tau_minus), and the weight moves."""
    net = sx.Network(dt_ms=0.1, seed=3)
    source = net.create("spike_source_array", 1, params={"spike_times": list(np.arange(1.0, 100.0, 3.3))})
    cell = net.create(model, 1, params={"I_e": 1000.0} if "I_e" in MODELS[model]["parameters"] else None)
    _drive_without_I_e(net, model, [cell[0]], 1000.0)
    net.connect(source[0], cell[0], weight=1.0, delay_ms=1.0, synapse="stdp_synapse",
                synapse_params={"Wmax": 100.0, "lambda": 0.1}, receptor=_receptor(model))  # fmt: skip
    net.record_spikes(cell)
    result = net.simulate(100.0)
    assert result.summary["spikes_total"] > 3, f"{model} does not fire"
    assert net.connections()["weight"][0] != 1.0
