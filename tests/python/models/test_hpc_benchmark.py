"""NEST's hpc_benchmark, scaled down: same spikes for every ranks x threads split and every
exchange method, static and with STDP; the network's derived quantities; bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import marked, run_cli, run_config, write_config
from spikex.methods import EXCHANGE_METHODS
from spikex.models import hpc_benchmark

# 450 neurons, 375 inputs each, 150 ms: seconds per run, tens of thousands of spikes.
SMALL_HPC = """
[simulation]
dt_ms = 0.1
tstop_ms = 150.0

[network]
model = "hpc_benchmark"
scale = 0.04
indegree_e = 300
indegree_i = 75
"""

SPLITS = ((1, 1), (1, 2), (2, 1), (2, 2), (3, 1), (4, 2))
METHODS = tuple(EXCHANGE_METHODS)  # every registered method, allgather first
PLASTICITY = {"static": "network.plastic=false", "stdp": "network.plastic=true"}


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    return write_config(tmp_path_factory.mktemp("hpc"), SMALL_HPC, "hpc.toml")


@pytest.fixture(scope="module")
def reference(config, tmp_path_factory):
    directory = tmp_path_factory.mktemp("reference")
    return {name: run_config(config, directory / name, 1, (flag,)) for name, flag in PLASTICITY.items()}


@pytest.mark.slow
def test_reference_runs_are_alive_and_plasticity_matters(reference):
    static, stdp = reference["static"], reference["stdp"]
    cells = static["cells"]
    assert cells == 360 + 90
    assert static["connections"] == cells * (300 + 75)
    rate = static["spikes_total"] / cells / 0.15
    assert 5.0 < rate < 200.0, f"rate {rate:.1f} Hz"
    assert static["threads"] == 1
    assert stdp["spikes_sha256"] != static["spikes_sha256"], "STDP must change the dynamics"
    assert "plasticity" in stdp["memory_bytes"] and "plasticity" not in static["memory_bytes"]


@pytest.mark.slow
@pytest.mark.parametrize("ranks,threads", marked(SPLITS[1:], mpi_if=lambda case: case[0] > 1))
@pytest.mark.parametrize("plasticity", PLASTICITY)
def test_same_spikes_for_every_ranks_threads_split(config, reference, tmp_path, ranks, threads, plasticity):
    sets = (PLASTICITY[plasticity], f"simulation.threads={threads}")
    summary = run_config(config, tmp_path / "out", ranks, sets)
    assert (summary["ranks"], summary["threads"]) == (ranks, threads)
    assert summary["spikes_sha256"] == reference[plasticity]["spikes_sha256"]
    assert summary["events_delivered"] == reference[plasticity]["events_delivered"]


@pytest.mark.mpi
@pytest.mark.slow
@pytest.mark.parametrize("method", [method for method in METHODS if method != "allgather"])
@pytest.mark.parametrize("plasticity", PLASTICITY)
def test_same_spikes_for_every_exchange_method(config, reference, tmp_path, method, plasticity):
    sets = (PLASTICITY[plasticity], f"exchange.method={method}", "simulation.threads=2")
    summary = run_config(config, tmp_path / "out", 3, sets)
    assert summary["method"] == method
    assert summary["spikes_sha256"] == reference[plasticity]["spikes_sha256"]


def test_weights_follow_nest_derivation():
    je = hpc_benchmark.psc_amplitude_pA(0.14, 10.0, hpc_benchmark.TAU_SYN_MS, 250.0)
    assert je == pytest.approx(45.6096, abs=5e-5)
    assert hpc_benchmark.poisson_rate_hz(1.685, 9000, je) == pytest.approx(20856, rel=2e-4)
    # The rate does not depend on CE (nu_thresh ~ 1/CE).
    assert hpc_benchmark.poisson_rate_hz(1.685, 3000, je) == pytest.approx(20856, rel=2e-4)
    w = hpc_benchmark.lambert_w_minus_one(-0.2)
    assert w * math.exp(w) == pytest.approx(-0.2, rel=1e-14) and w < -1


def test_stdp_moves_excitatory_weights_and_nothing_else(tmp_path):
    import spikex as sx

    net = sx.Network.from_config(
        write_config(tmp_path, SMALL_HPC), overrides=["network.plastic=true", "simulation.threads=2"]
    )
    before = net.connections()
    net.simulate(150.0)
    after = net.connections()
    je = hpc_benchmark.psc_amplitude_pA(0.14, 10.0, hpc_benchmark.TAU_SYN_MS, 250.0)
    ee = (before["source"] < 360) & (before["target"] < 360)
    assert np.all(before["weight"][ee] == je)
    changed = after["weight"][ee] != je
    assert changed.mean() > 0.5, "most E->E synapses have seen pre and post spikes"
    assert np.all(after["weight"][ee] >= 0)
    assert np.array_equal(after["weight"][~ee], before["weight"][~ee]), "static synapses stay"


@pytest.mark.parametrize(
    "sets,words",
    [
        (("network.scale=0.0001",), ["network.scale", "at least one"]),
        (("network.scale=0",), ["network.scale", "> 0"]),
        (("network.hpc_benchmark.g=1.0",), ["network.hpc_benchmark.g", "<= 0"]),
        (("network.hpc_benchmark.delay_ms=0.05",), ["network.hpc_benchmark.delay_ms", "simulation.dt_ms"]),
        (("simulation.threads=0",), ["simulation.threads", ">= 1"]),
    ],
)
def test_bad_input_is_one_clear_line(config, tmp_path, sets, words):
    args = ["run", str(config), "-o", str(tmp_path / "bad")]
    for item in sets:
        args += ["--set", item]
    done = run_cli(args)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    for word in words:
        assert word in done.stderr
    assert not (tmp_path / "bad" / "summary.json").exists()
