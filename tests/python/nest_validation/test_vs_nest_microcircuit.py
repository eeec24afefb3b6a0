"""The microcircuit comparison with NEST 3.10: the parameters derived as NEST's example
derives them, the spikex command of the contract, the rows and the report of
bench/vs_nest_microcircuit.py, and (with NEST) its NEST half end to end at a tiny scale."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from dataclasses import asdict

import numpy as np
import pytest
from conftest import REPO, require_nest

sys.path.insert(0, str(REPO / "bench" / "nest"))
sys.path.insert(0, str(REPO / "bench"))
import microcircuit_params as mp  # noqa: E402
import run_exact  # noqa: E402
import vs_nest_microcircuit as vs  # noqa: E402

NEST_REASON = run_exact.nest_unavailable_reason()


def test_full_scale_network_as_the_example_derives_it():
    d = mp.derive()
    assert d.num_neurons.sum() == 77169
    # K = log(1 - p) / log((Nt Ns - 1) / (Nt Ns)) for L23E -> L23E, evaluated as the example
    # does: the rounding of (N^2 - 1) / N^2 makes it one synapse less than log1p(-1/N^2)
    n = 20683.0
    assert d.num_synapses[0, 0] == round(math.log(1 - 0.1009) / math.log((n * n - 1) / (n * n)))
    assert d.num_synapses[0, 0] == 45499805
    assert d.num_synapses[0, 5] == 0 and d.num_synapses[:, 7].tolist()[:6] == [0] * 6
    assert 2.98e8 < d.recurrent_synapses < 3.0e8
    # 0.15 mV PSP of iaf_psc_exp (250 pF, 10 ms, 0.5 ms) -> 87.81 pA; g = -4; L4E->L23E x2
    assert d.weight_ext_pa == pytest.approx(87.8085, abs=1e-3)
    assert d.weight_mean_pa[1, 1] == pytest.approx(-4 * d.weight_ext_pa)
    assert d.weight_mean_pa[0, 2] == pytest.approx(2 * d.weight_ext_pa)
    assert d.weight_mean_pa[0, 4] == pytest.approx(d.weight_ext_pa)
    assert d.delay_mean_ms[3, 2] == 1.5 and d.delay_mean_ms[3, 3] == 0.75
    assert d.dc_amp_pa.tolist() == [0.0] * 8
    assert d.poisson_rate_hz.tolist() == (8 * mp.K_EXT).tolist()


def test_scaling_compensation_and_dc_input():
    full = mp.derive()
    scaled = mp.derive(0.1, 0.25)
    assert scaled.num_neurons.tolist() == np.round(mp.N_FULL * 0.1).astype(int).tolist()
    assert scaled.ext_indegrees.tolist() == np.round(mp.K_EXT * 0.25).astype(int).tolist()
    assert scaled.weight_ext_pa == pytest.approx(full.weight_ext_pa / 0.5)
    # DC = tau_syn (1 - sqrt(K)) (recurrent input at the full rates + Poisson input)
    indegree = mp.num_synapses_from_probabilities(
        mp.CONNECTION_PROBABILITIES, mp.N_FULL, mp.N_FULL
    ) / mp.N_FULL[:, None]
    rec = (full.weight_mean_pa * indegree * mp.FULL_MEAN_RATES_HZ).sum(axis=1)
    ext = full.weight_ext_pa * mp.K_EXT * 8.0
    assert scaled.dc_amp_pa == pytest.approx(0.5e-3 * 0.5 * (rec + ext))
    dc = mp.derive(1.0, 1.0, poisson_input=False)
    assert dc.dc_amp_pa == pytest.approx(8.0 * mp.K_EXT * full.weight_ext_pa * 0.5e-3)
    th = mp.derive(0.1, 1.0, thalamic_input=True)
    assert th.num_th_synapses.tolist() == mp.derive(1.0, 1.0, True, True).num_th_synapses.tolist()
    assert th.num_th_synapses[0] == 0 and th.num_th_synapses[2] > 2e6


@pytest.mark.parametrize(
    "n_scaling, k_scaling, background, thalamic",
    [(1.0, 1.0, "poisson", False), (0.1, 0.1, "poisson", True), (0.5, 0.3, "dc", True)],
)
def test_spikex_model_derives_the_same_network(n_scaling, k_scaling, background, thalamic):
    """Both sides of the comparison build the same network: spikex's model
    (python/spikex/models/microcircuit.py) and the NEST script's parameters agree."""
    config_module = pytest.importorskip("spikex.config")
    mc = pytest.importorskip("spikex.models.microcircuit")
    sets = [
        f"network.n_scaling={n_scaling}",
        f"network.k_scaling={k_scaling}",
        f'network.input="{background}"',
        f"network.thalamic_input={'true' if thalamic else 'false'}",
    ]
    base = {"simulation": {"dt_ms": 0.1}, "network": {"model": "microcircuit"}}
    config = config_module.resolved_config(base, sets, ranks=1)
    theirs = mc.derive(config, config_module.get)
    ours = mp.derive(n_scaling, k_scaling, background == "poisson", thalamic)
    assert theirs.sizes.tolist() == ours.num_neurons.tolist()
    assert theirs.synapses.tolist() == ours.num_synapses.tolist()
    assert theirs.weights_pA == pytest.approx(ours.weight_mean_pa, rel=1e-12)
    assert theirs.weight_ext_pA == pytest.approx(ours.weight_ext_pa, rel=1e-12)
    assert theirs.dc_pA == pytest.approx(ours.dc_amp_pa, rel=1e-12, abs=1e-9)
    assert theirs.delays_ms.tolist() == ours.delay_mean_ms.tolist()
    if background == "poisson":
        assert theirs.poisson_rates_hz.tolist() == ours.poisson_rate_hz.tolist()
    if thalamic:
        assert theirs.thalamus.synapses.tolist() == ours.num_th_synapses.tolist()
        assert theirs.thalamus.weight_pA == pytest.approx(ours.weight_th_pa, rel=1e-12)
    for v0 in ("original", "optimized"):
        config = config_module.resolved_config(base, [f'network.v0="{v0}"'], ranks=1)
        theirs = mc.derive(config, config_module.get)
        assert theirs.v0_mean.tolist() == mp.V0[v0]["mean"]
        assert theirs.v0_std.tolist() == mp.V0[v0]["std"]


def test_spikex_command_follows_the_contract():
    setting = vs.Setting(n_scaling=0.1, k_scaling=0.5, presim_ms=100, sim_ms=200, seed=3)
    command = vs.spikex_command(setting, vs.Run("spikex", 2, 1, "rma"), REPO / "out")
    assert command[command.index("run") + 1] == str(vs.CONFIG)
    assert command[command.index("--np") + 1] == "2"
    assert command[command.index("--threads") + 1] == "1"
    values = [command[i + 1] for i, word in enumerate(command) if word == "--set"]
    for expected in (
        "exchange.method=rma",
        "network.n_scaling=0.1",
        "network.k_scaling=0.5",
        'network.input="poisson"',
        "network.thalamic_input=false",
        'network.v0="original"',
        "simulation.presim_ms=100",
        "simulation.tstop_ms=300",
        "simulation.seed=3",
    ):
        assert expected in values
    baseline = vs.spikex_overrides(setting, vs.Run("spikex", 1, 1, "rma", baseline=True))
    assert "network.n_scaling=0.001" in baseline and "simulation.tstop_ms=1" in baseline
    with pytest.raises(ValueError, match="no MPI"):
        vs.nest_command(setting, vs.Run("nest", 2, 1), REPO / "x")


def test_rows_bytes_per_synapse_and_shares():
    setting = vs.Setting(n_scaling=0.1, k_scaling=0.1, presim_ms=100, sim_ms=500)
    synapses = mp.derive(0.1, 0.1).recurrent_synapses
    nest = {
        "recurrent_synapses": synapses,
        "connections": synapses + 100,
        "time_s": {"build": 10.0, "init": 2.0, "simulate": 4.0},
        "peak_rss_mb": 300.0,
        "rss_mb": {"before_build": 100.0},
        "populations": {"L23E": {"rate_hz": 1.0}},
    }
    row = vs.nest_row(setting, vs.Run("nest", 1, 2), nest)
    # presim + measured (6 s for 0.6 s), as spikex's one simulate call; measured alone apart
    assert row["simulate_s_per_bio_s"] == pytest.approx(10.0)
    assert row["measured_simulate_s_per_bio_s"] == pytest.approx(8.0)
    assert row["bytes_per_synapse"] == pytest.approx(200 * 2**20 / synapses)
    spikex = {
        "connections": synapses,
        "time_s": {"build": 5.0, "init": 1.0, "simulate": 2.0, "exchange": 0.5, "wait": 0.1},
        "peak_rss_mb": {"max": 160.0, "mean": 150.0},
        "memory_bytes": {"connections": {"max": 10, "mean": 1000.0}, "cells": {"mean": 24.0}},
        "synapses": synapses - 7,
        "bytes_per_synapse": 17.5,
        "simulated_ms": 600.0,
        "populations": {"L23E": {"cells": 2068, "spikes": 10, "rate_hz": 0.9}},
    }
    baseline = {"peak_rss_mb": {"max": 60.0, "mean": 50.0}}
    row = vs.spikex_row(setting, vs.Run("spikex", 2, 1, "alltoall"), spikex, baseline)
    assert row["simulate_s_per_bio_s"] == pytest.approx(2.0 / 0.6)
    assert row["peak_rss_mb_total"] == pytest.approx(300.0)
    assert row["bytes_per_synapse"] == pytest.approx(200 * 2**20 / (synapses - 7))
    assert row["own_bytes_per_synapse"] == pytest.approx(2048.0 / (synapses - 7))
    assert row["store_bytes_per_synapse"] == 17.5
    assert row["exchange_share"] == pytest.approx(0.25) and row["wait_share"] == 0.05
    assert row["rates_hz"] == {"L23E": 0.9}


def test_report_states_the_load_and_what_was_not_run():
    setting = vs.Setting(n_scaling=0.1, k_scaling=0.1)
    rows = [
        {
            "simulator": "nest", "ranks": 1, "threads": 2, "method": "", "build_s": 1.0,
            "init_s": 2.0, "simulate_s_per_bio_s": 3.0, "peak_rss_mb_total": 400.0,
            "bytes_per_synapse": 50.0, "own_bytes_per_synapse": None, "exchange_share": None,
            "wait_share": None, "measured": {"date_utc": "2026-01-01 10:00", "load_1min": 2.5},
        },
        {
            "simulator": "spikex", "ranks": 2, "threads": 1, "method": "rma", "build_s": 0.5,
            "init_s": 0.0, "simulate_s_per_bio_s": 2.0, "peak_rss_mb_total": 200.0,
            "bytes_per_synapse": 20.0, "own_bytes_per_synapse": 19.0,
            "store_bytes_per_synapse": 17.5, "exchange_share": 0.123, "wait_share": 0.01,
            "measured": {"date_utc": "2026-01-01 10:05", "load_1min": 3.0},
        },
    ]  # fmt: skip
    result = {
        "setting": asdict(setting),
        "neurons": 7717,
        "recurrent_synapses": 2988807,
        "rows": rows,
        "skipped": ["nest 2x1: the NEST 3.10 wheel has no MPI"],
        "machine": {"cpu": "cpu", "cores": 2, "date_utc": "2026-01-01 10:00"},
    }
    text = vs.markdown(result)
    assert "load average at the end of a run 2.5–3.0" in text
    assert "| nest | 1 × 2 | – | 1.0 | 3.0 | 400 | 50.0 | – | – | – |" in text
    assert "| spikex | 2 × 1 | rma | 0.5 | 2.0 | 200 | 20.0 | 19.0 / 17.5 | 12 % | 1 % |" in text
    assert "Not run: nest 2x1" in text
    # 2 / 3 of NEST's time and 20 / 50 of its memory at 2 cores: the time target is missed
    assert "* 2 cores (1 spikex runs against NEST 1 × 2): simulate 0.67, memory per synapse 0.40 — **targets not met**" in text
    rows[1]["simulate_s_per_bio_s"] = 0.6
    assert "simulate 0.20, memory per synapse 0.40 — targets met" in vs.markdown(result)


def test_layout_argument():
    assert vs.parse_layout("2x1") == (2, 1)
    with pytest.raises(Exception, match="RANKSxTHREADS"):
        vs.parse_layout("two")


def _nest_run(tmp_path, stem: str, extra: list[str]) -> dict:
    done = subprocess.run(
        [
            str(run_exact.NEST_PYTHON), str(REPO / "bench/nest/nest_microcircuit.py"),
            "--n-scaling", "0.02", "--k-scaling", "0.05", "--presim-ms", "50",
            "--sim-ms", "100", "--seed", "4", *extra, "--out", str(tmp_path / stem) + ".json",
        ],
        capture_output=True, text=True, timeout=600, check=False,
        env=run_exact.nest_environment(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads((tmp_path / f"{stem}.json").read_text())


@pytest.mark.slow
def test_nest_script_and_the_driver_nest_half(tmp_path, monkeypatch):
    require_nest(NEST_REASON)
    # a dot in the stem must not be taken for a suffix
    report = _nest_run(tmp_path, "run.0.05", ["--thalamic", "--v0", "optimized"])
    derived = mp.derive(0.02, 0.05, thalamic_input=True)
    assert report["neurons"] == derived.num_neurons.sum()
    assert report["parameters"]["dc_amp_pa"] == pytest.approx(derived.dc_amp_pa.tolist())
    # recurrent, thalamic, Poisson generator -> neurons, neurons -> recorders, generator
    # -> parrots
    expected = derived.recurrent_synapses + derived.num_th_synapses.sum()
    expected += 2 * derived.num_neurons.sum() + mp.THALAMUS["num_neurons"]
    assert report["connections"] == expected
    with np.load(tmp_path / "run.0.05.npz") as data:
        assert [str(p) for p in data["populations"]] == list(mp.POPULATIONS)
        assert float(data["t_start_ms"]) == 50.0 and float(data["t_stop_ms"]) == 150.0
        for name, size in zip(mp.POPULATIONS, data["sizes"]):
            times, cells = data[f"{name}_times_ms"], data[f"{name}_cells"]
            assert ((times > 50.0) & (times <= 150.0)).all()
            assert ((cells >= 0) & (cells < size)).all()
            assert report["populations"][name]["spikes"] == times.size
    assert all(p["spikes"] > 0 for p in report["populations"].values())
    # DC instead of Poisson input: no generator connections
    dc = _nest_run(tmp_path, "dc", ["--input", "dc"])
    assert dc["connections"] == derived.recurrent_synapses + derived.num_neurons.sum()
    assert dc["parameters"]["dc_amp_pa"] == pytest.approx(
        mp.derive(0.02, 0.05, poisson_input=False).dc_amp_pa.tolist()
    )

    monkeypatch.setattr(vs, "DATA", tmp_path / "data")
    output, doc = tmp_path / "result.json", tmp_path / "doc.md"
    arguments = ["--n-scaling", "0.02", "--k-scaling", "0.05", "--presim-ms", "20"]
    arguments += ["--sim-ms", "50", "--simulators", "nest", "--layouts", "1x1", "2x1"]
    assert vs.main([*arguments, "--output", str(output), "--doc", str(doc)]) == 0
    result = json.loads(output.read_text())
    assert [(r["simulator"], r["ranks"], r["threads"]) for r in result["rows"]] == [
        ("nest", 1, 1)
    ]
    assert result["rows"][0]["bytes_per_synapse"] > 0
    assert "no MPI" in result["skipped"][0]
    assert "| nest | 1 × 1 |" in doc.read_text()
    assert (tmp_path / "data" / f"nest_r1t1_{vs.Setting(0.02, 0.05, 20, 50).tag}.npz").exists()
