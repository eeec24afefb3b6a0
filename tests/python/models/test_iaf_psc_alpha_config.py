"""The iaf_psc_alpha model as the configuration and the Python API see it: its keys are
registered, validated with the key named in the message, and map one to one onto the
parameters the C++ model accepts."""

from __future__ import annotations

import pytest
from conftest import run_cli, write_config
from spikex import _core
from spikex import config as registry
from spikex.errors import ConfigError
from spikex.models import MODEL_PARAMETERS, MODELS

IAF = """
[simulation]
tstop_ms = 20.0
dt_ms = 0.1

[network]
model = "iaf_psc_alpha"
cells = 64
indegree = 10
indegree_spread = 2
delay_ms = 1.5
weight = 20.0

[network.iaf_psc_alpha]
{extra}
"""


def test_every_parameter_has_a_documented_key():
    names = MODEL_PARAMETERS["iaf_psc_alpha"]
    assert set(names) == {
        "E_L", "C_m", "tau_m", "t_ref", "V_th", "V_reset", "tau_syn_ex", "tau_syn_in", "I_e",
        "V_m", "V_m_sd", "tau_minus", "poisson_rate_hz", "poisson_weight",
    }  # fmt: skip
    for name, path in names.items():
        key = registry.KEYS[path]
        assert path == f"network.iaf_psc_alpha.{name}"
        assert key.kind == "float" and key.doc.endswith(".")
    assert MODELS["iaf_psc_alpha"]["docs_page"].endswith("iaf_psc_alpha.md")
    assert "network.iaf_psc_alpha" in registry.SECTION_DOCS


def test_the_core_accepts_exactly_these_parameters():
    for model, parameters in MODEL_PARAMETERS.items():
        assert set(_core.model_parameter_names(model)) == set(parameters), model


def test_defaults_are_nests():
    resolved = registry.validate(registry.resolve({"network": {"model": "iaf_psc_alpha"}}))
    section = resolved["network"]["iaf_psc_alpha"]
    assert section == {
        "E_L": -70.0, "C_m": 250.0, "tau_m": 10.0, "t_ref": 2.0, "V_th": -55.0,
        "V_reset": -70.0, "tau_syn_ex": 2.0, "tau_syn_in": 2.0, "I_e": 0.0, "V_m": -70.0,
        "V_m_sd": 0.0, "tau_minus": 20.0, "poisson_rate_hz": 0.0, "poisson_weight": 0.0,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("extra", "key", "fragment"),
    [
        ("C_m = 0.0", "network.iaf_psc_alpha.C_m", "> 0"),
        ("tau_m = -1.0", "network.iaf_psc_alpha.tau_m", "> 0"),
        ("tau_syn_ex = 0", "network.iaf_psc_alpha.tau_syn_ex", "> 0"),
        ("tau_syn_in = 0", "network.iaf_psc_alpha.tau_syn_in", "> 0"),
        ("t_ref = -0.5", "network.iaf_psc_alpha.t_ref", ">= 0"),
        ("V_m_sd = -1.0", "network.iaf_psc_alpha.V_m_sd", ">= 0"),
        ("tau_minus = 0.0", "network.iaf_psc_alpha.tau_minus", "> 0"),
        ("poisson_rate_hz = -5.0", "network.iaf_psc_alpha.poisson_rate_hz", ">= 0"),
        ('I_e = "lots"', "network.iaf_psc_alpha.I_e", "must be a number"),
        ("V_reset = -50.0", "network.iaf_psc_alpha.V_reset", "network.iaf_psc_alpha.V_th"),
        ("poisson_rate_hz = 6e6", "network.iaf_psc_alpha.poisson_rate_hz", "500"),
        ("tau_s = 2.0", "network.iaf_psc_alpha.tau_s", "unknown key"),
    ],
)
def test_bad_values_are_config_errors_naming_the_key(extra, key, fragment):
    raw = {"simulation": {"dt_ms": 0.1}, "network": {"model": "iaf_psc_alpha"}}
    name, _, value = extra.partition(" = ")
    raw["network"]["iaf_psc_alpha"] = {name: registry.parse_override(f"x={value}")[1]}
    with pytest.raises(ConfigError) as error:
        registry.validate(registry.resolve(raw))
    assert key in str(error.value)
    assert fragment in str(error.value)


def test_bad_value_exits_2_with_the_key_named(tmp_path):
    config = write_config(tmp_path, IAF.format(extra="tau_m = 0.0"))
    outdir = tmp_path / "out"
    done = run_cli(["run", str(config), "-o", str(outdir)], timeout=60)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("spikex: ")
    assert "network.iaf_psc_alpha.tau_m" in lines[0]
    assert not outdir.exists()


def test_bad_override_exits_2_with_the_key_named(tmp_path):
    config = write_config(tmp_path, IAF.format(extra=""))
    done = run_cli(
        [
            "run",
            str(config),
            "-o",
            str(tmp_path / "out"),
            "--set",
            "network.iaf_psc_alpha.V_reset=-40",
        ],
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert "network.iaf_psc_alpha.V_reset" in done.stderr
    assert "network.iaf_psc_alpha.V_th" in done.stderr


# ---- whole runs ------------------------------------------------------------------------

DC_DRIVEN = """
[simulation]
tstop_ms = 50.0
dt_ms = 0.1

[network]
model = "iaf_psc_alpha"
cells = 8
indegree = 2
indegree_spread = 0
delay_ms = 1.5
weight = 0.0

[network.iaf_psc_alpha]
I_e = 500.0
V_reset = -65.0
"""

RECURRENT = """
[simulation]
tstop_ms = 60.0
dt_ms = 0.1
seed = 11

[network]
model = "iaf_psc_alpha"
cells = 300
indegree = 30
indegree_spread = 4
delay_ms = 1.5
weight = 0.0
weight_spread = 400.0

[network.iaf_psc_alpha]
E_L = 0.0
V_th = 20.0
V_reset = 0.0
t_ref = 0.5
tau_syn_ex = 0.5
tau_syn_in = 0.5
V_m = 5.7
V_m_sd = 7.2
poisson_rate_hz = 20000.0
poisson_weight = 45.6
"""


def _spike_times(outdir) -> dict[int, list[float]]:
    import h5py

    times: dict[int, list[float]] = {}
    with h5py.File(outdir / "spikes.h5") as file:
        for population in file["spikes"].values():
            for gid, t in zip(population["node_ids"][:], population["timestamps"][:]):
                times.setdefault(int(gid), []).append(float(t))
    return times


def test_dc_driven_run_fires_at_the_closed_form_times(tmp_path):
    # From E_L: ceil(10 ms/h * ln(20/5)) = 139 updates, spike at step 138 (13.8 ms); then
    # 20 refractory steps and ceil(100 ln(15/5)) = 110 updates from V_reset: every 13 ms.
    from conftest import run_config

    run_config(write_config(tmp_path, DC_DRIVEN), tmp_path / "out")
    times = _spike_times(tmp_path / "out")
    assert sorted(times) == list(range(8))
    for gid in range(8):
        assert times[gid] == pytest.approx([13.8, 26.8, 39.8], abs=1e-9)


@pytest.mark.mpi
@pytest.mark.slow
def test_recurrent_run_with_poisson_input_is_the_same_on_any_split(tmp_path):
    from conftest import run_config

    config = write_config(tmp_path, RECURRENT)
    reference = run_config(config, tmp_path / "one")
    assert reference["spikes_total"] > 300
    for name, ranks, sets in [
        ("two", 2, ("distribution.scheme=random_shuffle",)),
        ("threads", 1, ("simulation.threads=2",)),
    ]:
        summary = run_config(config, tmp_path / name, ranks=ranks, sets=sets)
        assert summary["spikes_sha256"] == reference["spikes_sha256"], name
