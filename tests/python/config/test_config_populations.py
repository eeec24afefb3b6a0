"""A user's own network in a configuration file: ``[[populations]]`` and ``[[projections]]``
(config/populations.py, docs/user/config.md). The file builds the network the Python API
builds with the same create and connect_rule calls (same spikes, same connections); the
same spikes on 1-2 threads, 1-3 ranks and through a checkpoint resumed on another layout;
overrides address a population by name and a projection by index; every bad field is one
line naming ``populations[i].field``, the value and what is allowed. (A NESTML model named
through ``models``: tests/python/nestml/test_nestml.py.)"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import spikex as sx
from conftest import run_stoppable
from spikex.config import resolved_config
from spikex.errors import ConfigError
from spikex.launch.launcher import child_environment

NETWORK = """\
[simulation]
tstop_ms = 120.0
dt_ms = 0.1
seed = 7

[[populations]]
name = "E"
model = "iaf_psc_exp"
cells = 160
params = { V_m = { distribution = "uniform", low = -70.0, high = -55.0 }, tau_m = 12.0 }

[[populations]]
name = "I"
model = "iaf_cond_exp"
cells = 40

[[populations]]
name = "noise"
model = "poisson_generator"
cells = 1
params = { rate = 18000.0 }

[[projections]]
source = "noise"
target = "E"
weight = 87.8
delay_ms = 1.5

[[projections]]
source = "noise"
target = "I"
weight = 6.0

[[projections]]
source = "E"
target = "E"
rule = "fixed_indegree"
indegree = 20
weight = { distribution = "normal_clipped", mean = 87.8, std = 8.8, low = 0.0 }
delay_ms = { distribution = "uniform", low = 0.5, high = 2.0 }

[[projections]]
source = "E"
target = "I"
rule = "pairwise_bernoulli"
probability = 0.2
weight = 2.0
allow_autapses = false

[[projections]]
source = "I"
target = "E"
rule = "fixed_total_number"
total_number = 600
weight = -300.0
delay_ms = 0.8
"""


def by_hand() -> sx.Result:
    """NETWORK through the Python API."""
    net = sx.Network(dt_ms=0.1, seed=7)
    e = net.create("iaf_psc_exp", 160, params={"V_m": sx.uniform(-70.0, -55.0), "tau_m": 12.0}, name="E")
    i = net.create("iaf_cond_exp", 40, name="I")
    noise = net.create("poisson_generator", 1, params={"rate": 18000.0}, name="noise")
    net.connect_rule("all_to_all", noise, e, weight=87.8, delay_ms=1.5)
    net.connect_rule("all_to_all", noise, i, weight=6.0, delay_ms=1.0)
    net.connect_rule(
        "fixed_indegree", e, e, indegree=20,
        weight=sx.normal_clipped(87.8, 8.8, low=0.0), delay_ms=sx.uniform(0.5, 2.0),
    )  # fmt: skip
    net.connect_rule("pairwise_bernoulli", e, i, probability=0.2, weight=2.0, allow_autapses=False)
    net.connect_rule("fixed_total_number", i, e, total_number=600, weight=-300.0, delay_ms=0.8)
    net.record_spikes(e)
    net.record_spikes(i)
    return net.simulate(120.0)


@pytest.fixture
def network_file(tmp_path) -> Path:
    path = tmp_path / "own.toml"
    path.write_text(NETWORK)
    return path


def test_the_file_builds_the_network_the_python_api_builds(network_file):
    expected = by_hand()
    result = sx.Network.from_config(network_file).simulate(120.0)
    assert result.summary["spikes_sha256"] == expected.summary["spikes_sha256"]
    assert result.summary["connections"] == expected.summary["connections"]
    assert result.summary["spikes_total"] > 500  # both populations fire
    populations = result.summary["populations"]
    assert {name: p["cells"] for name, p in populations.items()} == {"E": 160, "I": 40, "noise": 1}
    assert populations["noise"]["recorded_cells"] == 0  # a device's spikes are not recorded
    assert populations["E"]["spikes"] > 0 and populations["I"]["spikes"] > 0


def test_two_threads_give_the_spikes_of_one(network_file):
    one = sx.Network.from_config(network_file).simulate(120.0)
    two = sx.Network.from_config(network_file, overrides=["simulation.threads=2"]).simulate(120.0)
    assert two.summary["threads"] == 2
    assert two.summary["spikes_sha256"] == one.summary["spikes_sha256"]


def test_overrides_address_a_population_by_name_and_a_projection_by_index(network_file):
    config = resolved_config(
        network_file,
        ["populations.E.cells=100", "populations.E.params.tau_m=15", "projections.2.indegree=5",
         "populations.noise.record_spikes=true"],
    )  # fmt: skip
    e = config["populations"][0]
    assert (e["cells"], e["params"]["tau_m"]) == (100, 15.0)
    assert config["projections"][2]["indegree"] == 5
    result = sx.Network.from_config(config).simulate(20.0)
    assert result.summary["populations"]["noise"]["recorded_cells"] == 1
    assert result.summary["cells"] == 141


def test_the_resolved_configuration_checks_again_unchanged(network_file):
    """summary.json and a checkpoint hold the resolved configuration: it must validate
    again to itself (JSON round trip included)."""
    config = resolved_config(network_file)
    again = resolved_config(json.loads(json.dumps(config)))
    assert again == config
    assert config["models"] == [] and config["projections"][1]["rule"] == "all_to_all"


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("populations.E.cells=0", "populations[0].cells = 0: must be an integer >= 1"),
        ("populations.E.model=nope", 'populations[0].model = "nope": is not a model of the registry'),
        ("populations.E.params.foo=1", "populations[0].params.foo = 1: is not a parameter of iaf_psc_exp; allowed: E_L"),
        ("populations.E.params.tau_m=-3", "populations[0].params.tau_m = -3: must be > 0"),
        ("populations.E.params.V_m=[1, 2]", "must be a number or a list of 160 numbers"),
        ("populations.I.name=E", 'populations[1].name = "E": is already the name of populations[0]'),
        ("populations.E.colour=1", "populations[0].colour = 1: unknown field; allowed: name, model, cells"),
        ("populations.X.cells=3", "no population 'X'; populations: E, I, noise"),
        ("projections.2.indegree=-1", "projections[2].indegree = -1: must be an integer >= 0"),
        ("projections.4.indegree=4", "projections[4].indegree = 4: is not used by rule fixed_total_number (takes total_number)"),
        ("projections.1.rule=fixed_outdegree", "projections[1].outdegree: is missing: rule fixed_outdegree takes outdegree"),
        ("projections.0.target=Z", 'projections[0].target = "Z": must name a population; allowed: "E", "I", "noise"'),
        ("projections.0.rule=sideways", 'projections[0].rule = "sideways": must be one of "random"'),
        ("projections.0.weight={distribution='normal', mean=1.0}", "projections[0].weight.std: is missing: normal takes mean, std"),
        ("projections.0.weight={distribution='cauchy'}", 'projections[0].weight.distribution = "cauchy": must be one of "normal"'),
        ("projections.0.synapse_params.tau=3", "projections[0].synapse_params.tau = 3: is not a parameter of static"),
        ("projections.9.weight=1", "no projection 9; indices 0 to 4"),
        ("populations.E.record_state=w", 'populations[0].record_state = "w": is not a recordable of iaf_psc_exp; allowed: V_m'),
        ("populations.E.record_state_cells=3", "populations[0].record_state_cells = 3: is used with record_state"),
        ("models=['missing.nestml']", 'models[0] = "missing.nestml": file not found'),
        ("network.sonata=x.json", "populations: cannot be given with network.sonata"),
    ],
)
def test_a_bad_field_is_one_line_naming_it(network_file, override, message):
    with pytest.raises(ConfigError) as error:
        resolved_config(network_file, [override])
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_a_list_of_the_wrong_shape_is_refused(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('populations = "E"\n')
    with pytest.raises(ConfigError, match=r'populations = "E": must be an array of tables \[\[populations\]\]'):
        resolved_config(path)


def test_the_cli_exits_2_for_a_bad_field(network_file, tmp_path):
    done = run_stoppable(
        [sys.executable, "-m", "spikex", "run", str(network_file), "-o", str(tmp_path / "out"),
         "--set", "projections.0.source=nowhere"],
        timeout=120, env=child_environment(),
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert 'projections[0].source = "nowhere": must name a population' in done.stderr
    assert "Traceback" not in done.stderr


def test_a_population_records_its_own_state_variable(network_file, tmp_path):
    """record_state: any recordable of the population's model, into state.h5 with its unit;
    the other neuron populations keep record.state_cells' variable."""
    import h5py

    out = tmp_path / "out"
    done = run_stoppable(
        [sys.executable, "-m", "spikex", "run", str(network_file), "-o", str(out),
         "--set", "simulation.tstop_ms=20", "--set", "record.state_cells=3",
         "--set", "populations.I.record_state=g_ex", "--set", "populations.I.record_state_cells=5"],
        timeout=120, env=child_environment(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    with h5py.File(out / "state.h5") as report:
        e, i = report["report/E/data"], report["report/I/data"]
        assert (e.attrs["variable"], e.attrs["units"], e.shape[1]) == ("V_m", "mV", 3)
        assert (i.attrs["variable"], i.attrs["units"], i.shape[1]) == ("g_ex", "nS", 5)
        assert e.shape[0] == i.shape[0] == 20  # every 1 ms
        assert float(np.max(i[:])) > 0.0  # the drive's conductance


@pytest.mark.slow
@pytest.mark.mpi
def test_the_same_spikes_on_other_layouts_and_through_a_checkpoint(network_file, tmp_path):
    def run(*args: str) -> dict:
        out = tmp_path / f"out{len(list(tmp_path.iterdir()))}"
        done = run_stoppable(
            [sys.executable, "-m", "spikex", "run", *args, "-o", str(out)], timeout=300, env=child_environment()
        )
        assert done.returncode == 0, done.stderr
        return json.loads((out / "summary.json").read_text())

    expected = by_hand().summary["spikes_sha256"]
    assert run(str(network_file), "--np", "2")["spikes_sha256"] == expected
    assert run(str(network_file), "--np", "3", "--threads", "2", "--set", "exchange.method=rma")["spikes_sha256"] == expected
    checkpoints = tmp_path / "checkpoints"
    run(str(network_file), "--np", "2", "--set", "simulation.tstop_ms=60", "--checkpoint-every", "50",
        "--checkpoint-dir", str(checkpoints))  # fmt: skip
    resumed = run("--resume", str(checkpoints), "--np", "1", "--threads", "2", "--set", "simulation.tstop_ms=120")
    assert resumed["spikes_sha256"] == expected
    assert np.isclose(resumed["config"]["projections"][0]["weight"], 87.8)
