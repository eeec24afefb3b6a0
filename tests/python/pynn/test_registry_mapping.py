"""spikex.pynn's standard types and the model registry agree: every model entry's
`pynn_types` is a type spikex.pynn provides on that model, every translated parameter and
recordable names a parameter or state variable of the model's entry, and each unit factor
is PyNN's unit over the entry's (nF -> pF, nA -> pA, uS -> nS: 1000)."""

from __future__ import annotations

import pytest

pytest.importorskip("pyNN")

import spikex.pynn as sim  # noqa: E402
from spikex.models import MODELS  # noqa: E402

PYNN_TYPES = {name: (model, entry) for model, entry in MODELS.items() for name in entry["pynn_types"]}
SCALE = {("nF", "pF"): 1000.0, ("nA", "pA"): 1000.0, ("uS", "nS"): 1000.0}


@pytest.mark.parametrize("name", sorted(PYNN_TYPES))
def test_registry_pynn_type_is_provided_on_its_model(name):
    model, _ = PYNN_TYPES[name]
    cls = getattr(sim, name)
    assert getattr(cls, "spikex_model", None) == model or getattr(cls, "spikex_model", "") == model


@pytest.mark.parametrize("cls", sim.STANDARD_CELL_TYPES, ids=lambda c: c.__name__)
def test_cell_type_translations_name_the_entry(cls):
    entry = MODELS[cls.spikex_model]
    assert cls.__name__ in entry["pynn_types"] or cls.spikex_model.startswith("spike_source")
    specs = {s["name"]: s for s in entry["parameter_specs"]}
    for pynn_name, t in cls.translations.items():
        native = t["translated_name"]
        assert native in specs, f"{cls.__name__}.{pynn_name} -> {native}: not a parameter of {cls.spikex_model}"
        unit, native_unit = getattr(cls, "units", {}).get(pynn_name), specs[native]["unit"]
        if t["type"] == "computed":  # derived (g_L = cm / tau_m): checked by the NEST comparison
            continue
        factor = t["forward_transform"](**{pynn_name: 1.0}) if t["type"] == "scaled" else 1.0
        if unit is not None:
            assert factor == SCALE.get((unit, native_unit), 1.0), (cls.__name__, pynn_name, unit, native_unit)
    states = set(entry["state_variables"])
    for variable, native in cls.variable_map.items():
        assert native in states, f"{cls.__name__} records {variable} as {native}: not recordable"


def test_pynn_page_lists_the_types_as_the_code_has_them():
    """docs/user/pynn.md's table is generated (python -m spikex.pynn.reference)."""
    from pathlib import Path

    from spikex.pynn import reference

    root = Path(__file__).resolve().parents[3]
    block = reference.BLOCK.search((root / reference.PAGE).read_text())
    assert block is not None
    assert block.group(2) == reference.table(), "stale: run python -m spikex.pynn.reference ."
    for cls in sim.STANDARD_CELL_TYPES:
        assert f"`{cls.__name__}`" in block.group(2)


@pytest.mark.parametrize("cls", __import__("spikex.pynn.point_neuron", fromlist=["x"]).POINT_NEURON_PARTS,
                         ids=lambda c: c.__name__)  # fmt: skip
def test_point_neuron_parts_name_their_models_entries(cls):
    """A PointNeuron's neuron part and responses translate to parameters of every model
    they may build, and record its (per-port) state variables."""
    for model in cls.possible_models:
        entry = MODELS[model]
        specs = {s["name"] for s in entry["parameter_specs"]}
        for pynn_name, t in cls.translations.items():
            if pynn_name == "locations":  # dropped: a point neuron has no morphology
                continue
            assert t["translated_name"] in specs, f"{cls.__name__}.{pynn_name} -> {t['translated_name']} ({model})"
        states = {s["name"] for s in entry["state_specs"]}
        for variable, native in cls.variable_map.items():
            assert native in states, f"{cls.__name__} records {variable} as {native} ({model})"
