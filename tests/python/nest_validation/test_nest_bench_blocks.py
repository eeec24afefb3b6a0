"""The hpc_benchmark comparison scripts run the measured time in blocks (rate and mean
E→E weight per block, stop on runaway) the same way on both simulators; the STDP runaway
comparison (bench/nest/stdp_runaway.py) depends on it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import REPO, require_nest

sys.path.insert(0, str(REPO / "bench" / "nest"))
import hpc_params as hp
import run_exact
import stdp_runaway

NEST_REASON = run_exact.nest_unavailable_reason()


def test_block_lengths_cover_the_measured_time():
    assert hp.block_lengths(1000.0, 0.0) == [1000.0]
    assert hp.block_lengths(1000.0, 100.0) == [100.0] * 10
    assert hp.block_lengths(250.0, 100.0) == [100.0, 100.0, 50.0]
    assert hp.block_lengths(50.0, 100.0) == [50.0]


def test_runaway_time_and_drift_before_it():
    blocks = [
        {"t_end_ms": 200.0, "rate_hz": 20.0, "ee_weight_mean": 45.7},
        {"t_end_ms": 300.0, "rate_hz": 30.0, "ee_weight_mean": 45.8},
        {"t_end_ms": 400.0, "rate_hz": 61.0, "ee_weight_mean": 47.0},
        {"t_end_ms": 500.0, "rate_hz": 700.0, "ee_weight_mean": 50.0},
    ]
    assert stdp_runaway.runaway_ms(blocks, 3.0) == 400.0
    assert stdp_runaway.runaway_ms(blocks, 50.0) is None
    drift = stdp_runaway.drift_per_100ms(blocks, 400.0, 100.0)
    assert [row["rate_hz"] for row in drift] == [30.0]
    assert drift[0]["dw_pa_per_100ms"] == pytest.approx(0.1)


def _run(program: list[str], tmp_path, name: str, extra: list[str]) -> dict:
    stem = tmp_path / name
    common = ["--scale", "0.05", "--indegree", "200", "--plastic", "--presim", "20"]
    done = subprocess.run(
        [*program, *common, *extra, "-o", str(stem)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=run_exact.nest_environment() if "nest_" in program[1] else None,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads((stem.parent / f"{name}.json").read_text())


@pytest.mark.parametrize("simulator", ["spikex", pytest.param("nest", marks=pytest.mark.slow)])  # NEST: a subprocess
def test_blocks_add_up_and_a_runaway_stops_the_run(tmp_path, simulator):
    if simulator == "nest":
        require_nest(NEST_REASON)  # skips without NEST, fails under CI
    program = (
        [str(run_exact.NEST_PYTHON), str(REPO / "bench/nest/nest_hpc_benchmark.py")]
        if simulator == "nest"
        else [sys.executable, str(REPO / "bench/nest/spikex_hpc.py")]
    )
    blocks = ["--tsim", "150", "--block-ms", "50", "--block-weights"]
    weights_after = ["--weights"] if simulator == "spikex" else []  # NEST always reads them
    full = _run(program, tmp_path, "full", [*blocks, *weights_after])
    assert [b["t_end_ms"] for b in full["blocks"]] == [70.0, 120.0, 170.0]
    assert sum(b["spikes"] for b in full["blocks"]) == full["spikes_total"] > 0
    assert not full["stopped_early"] and full["simulated_ms"] == 150.0
    weights = [b["ee_weight_mean"] for b in full["blocks"]]
    assert all(w > 0 for w in weights) and weights[-1] == pytest.approx(
        full["ee_weight_after_mean"]
    )

    stopped = _run(program, tmp_path, "stopped", [*blocks, "--stop-above-hz", "0.001"])
    assert len(stopped["blocks"]) == 1 and stopped["stopped_early"]
    assert stopped["simulated_ms"] == 50.0
    assert stopped["mean_rate_hz"] == pytest.approx(stopped["blocks"][0]["rate_hz"])
