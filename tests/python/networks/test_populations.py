"""Populations in summary.json and spikes.h5, presimulation, connections given per rank
(connect(local=True)) and bytes per synapse."""

from __future__ import annotations

import h5py
import numpy as np
import pytest
from conftest import REPO, marked, run_config, run_spmd

import spikex as sx

SILENT = {"tau_ms": 1000.0, "invl_low_ms": 20000.0, "invl_high_ms": 20000.0}


def _two_populations(presim_ms: float = 0.0):
    net = sx.Network(dt_ms=0.1, seed=3)
    a = net.create("interval_fire", 40, params={"invl_low_ms": 10.0, "invl_high_ms": 10.0}, name="fast")
    b = net.create("interval_fire", 10, params=SILENT, name="quiet")
    net.set_recording_start(presim_ms)
    net.record_spikes(a)
    net.record_spikes(b[0:5])
    return net, a, b


def test_population_counts_and_rates_over_the_recorded_time():
    net, a, b = _two_populations(presim_ms=50.0)
    result = net.simulate(250.0)
    pops = result.summary["populations"]
    assert list(pops) == ["fast", "quiet"]
    # Every fast cell fires every 10 ms (ceil to a step): 20 spikes each in [50, 250).
    gids, times = result.population_spikes("fast")
    assert times.min() >= 50.0 - 1e-9 and gids.size == pops["fast"]["spikes"]
    assert pops["fast"] == {
        "model": "interval_fire", "cells": 40, "recorded_cells": 40,
        "spikes": gids.size, "rate_hz": pytest.approx(gids.size / 40 / 0.2),
    }  # fmt: skip
    assert 90.0 <= pops["fast"]["rate_hz"] <= 100.0
    assert pops["quiet"]["cells"] == 10 and pops["quiet"]["recorded_cells"] == 5
    assert pops["quiet"]["spikes"] == 0 and pops["quiet"]["rate_hz"] == 0.0
    assert result.summary["spikes_total"] == gids.size


def test_presimulated_spikes_are_not_recorded_but_the_network_ran():
    full, _, _ = _two_populations()
    late, _, _ = _two_populations(presim_ms=50.0)
    all_spikes, after = full.simulate(250.0), late.simulate(250.0)
    keep = all_spikes.spikes[1] >= 50.0 - 1e-9
    assert np.array_equal(all_spikes.spikes[0][keep], after.spikes[0])
    assert np.array_equal(all_spikes.spikes[1][keep], after.spikes[1])


def test_presim_must_end_before_tstop(tmp_path):
    from conftest import run_cli, write_config

    done = run_cli(["run", str(write_config(tmp_path)), "--set", "simulation.presim_ms=200", "-o", str(tmp_path / "o")])
    assert done.returncode == 2
    assert "simulation.presim_ms = 200" in done.stderr and "must be < simulation.tstop_ms" in done.stderr


LOCAL_SCRIPT = """
import numpy as np, spikex as sx, sys
def build(local):
    net = sx.Network(dt_ms=0.1, seed=4, method=sys.argv[1] if len(sys.argv) > 1 else "allgather")
    cells = net.create("interval_fire", 60, params={"invl_low_ms": 5.0, "invl_high_ms": 9.0})
    rng = np.random.default_rng(1)
    src = rng.integers(0, 60, 2000); tgt = rng.integers(0, 60, 2000)
    w = rng.uniform(-0.2, 0.2, 2000); d = rng.choice([0.1, 0.4, 1.0], 2000)
    if local:
        mine = np.isin(tgt, net.local_gids())
        src, tgt, w, d = src[mine], tgt[mine], w[mine], d[mine]
    net.connect(src, tgt, weight=w, delay_ms=d, local=local)
    net.record_spikes(cells)
    return net.simulate(100.0)
a, b = build(False), build(True)
assert a.spikes_sha256 == b.spikes_sha256 and a.summary["spikes_total"] > 100, (a, b)
assert a.summary["connections"] == b.summary["connections"] == 2000
try:
    net = sx.Network(dt_ms=0.1)
    cells = net.create("interval_fire", 10)
    other = [g for g in range(10) if g not in set(net.local_gids())]
    if other:
        net.connect(0, other[0], weight=0.1, delay_ms=1.0, local=True)
        net.simulate(1.0)
        raise SystemExit("a foreign target was accepted")
except ValueError as error:
    assert "is not on rank" in str(error), error
if net.rank == 0:
    print("OK", a.spikes_sha256)
"""


@pytest.mark.parametrize("ranks", marked([1, 3], mpi_if=lambda r: r > 1))
def test_connections_given_per_rank_equal_replicated_ones(tmp_path, ranks):
    done = run_spmd(LOCAL_SCRIPT, ranks, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "OK" in done.stdout


@pytest.mark.slow
def test_hpc_benchmark_static_synapses_take_at_most_8_bytes(tmp_path):
    config = REPO / "examples" / "hpc_benchmark_laptop.toml"
    summary = run_config(
        config, tmp_path / "o", 1, ("network.scale=0.1", "network.indegree_e=800", "network.indegree_i=200", "simulation.tstop_ms=5")
    )
    assert summary["synapses"] == summary["connections"] == 1125 * 1000
    assert summary["bytes_per_synapse"] <= 8.0
    with h5py.File(tmp_path / "o" / "spikes.h5") as spikes:
        assert sorted(spikes["spikes"]) == ["E", "I"]


@pytest.mark.slow
def test_plastic_synapses_keep_one_weight_each_and_static_ones_share(tmp_path):
    # E->E plastic: 900 E targets x 800 E inputs of the 1,125 x 1,000 synapses. Each keeps a
    # byte target and an 8-byte weight; the static ones (E->I, I->all: constant weights)
    # only their byte target, their groups one weight each; the targets' pages and the
    # groups add the rest (docs/user/memory.md).
    config = REPO / "examples" / "hpc_benchmark_laptop.toml"
    summary = run_config(
        config, tmp_path / "o", 1,
        ("network.scale=0.1", "network.indegree_e=800", "network.indegree_i=200",
         "simulation.tstop_ms=5", "network.plastic=true"),
    )  # fmt: skip
    plastic = 900 * 800 / (1125 * 1000)
    floor = plastic * 9 + (1 - plastic) * 1
    assert floor <= summary["bytes_per_synapse"] <= floor + 0.3


@pytest.mark.slow
def test_state_report_of_the_first_cells_of_every_population(tmp_path):
    config = REPO / "examples" / "hpc_benchmark_laptop.toml"
    sets = (
        "network.scale=0.02", "network.indegree_e=40", "network.indegree_i=10",
        "simulation.tstop_ms=20", "simulation.presim_ms=5",
        "record.state_cells=3", "record.state_interval_ms=0.5",
    )  # fmt: skip
    run_config(config, tmp_path / "o", 2, sets)
    with h5py.File(tmp_path / "o" / "state.h5") as report:
        assert sorted(report["report"]) == ["E", "I"]
        data = report["report/E/data"]
        assert data.shape == (30, 3) and data.attrs["units"] == "mV"
        assert report["report/E/mapping/node_ids"][:].tolist() == [0, 1, 2]
        assert report["report/E/mapping/time"][:].tolist() == pytest.approx([5.0, 20.0, 0.5])
        values = data[:]
    assert np.all((values >= 0.0) & (values < 20.0)) and np.ptp(values) > 0.1  # hpc: E_L = 0, V_th = 20 mV


def test_record_state_refuses_models_without_the_variable():
    net = sx.Network(dt_ms=0.1)
    cells = net.create("interval_fire", 3)
    with pytest.raises(ValueError, match='variable "V_m" of model "interval_fire": allowed are none'):
        net.record_state(cells, "V_m")
    neurons = net.create("iaf_psc_delta", 3)
    with pytest.raises(ValueError, match='variable "I_syn_ex" of model "iaf_psc_delta": allowed are V_m'):
        net.record_state(neurons, "I_syn_ex")
    with pytest.raises(ValueError, match="whole multiple of dt_ms"):
        net.record_state(neurons, "V_m", interval_ms=0.15)
