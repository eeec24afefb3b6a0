"""A resumed `spikex run` stops at the tstop_ms it is given (issue 52): shorter or longer
than the stopped run's, never earlier than the checkpoint's own time (refused, exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SMALL_NETWORK, run_cli, run_config, write_config


@pytest.fixture(scope="module")
def stopped(tmp_path_factory):
    """A 300 ms run with checkpoints every 100 ms (kept: 200 and 300 ms)."""
    directory = tmp_path_factory.mktemp("long")
    config = write_config(directory, SMALL_NETWORK.replace("tstop_ms = 100.0", "tstop_ms = 300.0"))
    run_config(config, directory / "out", sets=("checkpoint.every_ms=100",))
    checkpoints = sorted((directory / "out" / "checkpoints").glob("ckpt-*"))
    assert len(checkpoints) == 2
    return checkpoints[0]  # 200 ms


def fresh(tmp_path: Path, tstop: float) -> dict:
    text = SMALL_NETWORK.replace("tstop_ms = 100.0", f"tstop_ms = {tstop}")
    return run_config(write_config(tmp_path, text), tmp_path / f"fresh-{tstop}")


@pytest.mark.slow
@pytest.mark.parametrize("tstop", [200.0, 250.0, 400.0])
def test_a_resume_runs_to_the_tstop_it_is_given(tmp_path, stopped, tstop):
    outdir = tmp_path / "resumed"
    done = run_cli(
        ["run", "--resume", str(stopped), "-o", str(outdir), "--set", f"simulation.tstop_ms={tstop}"]
    )
    assert done.returncode == 0, done.stderr
    resumed = json.loads((outdir / "summary.json").read_text())
    whole = fresh(tmp_path, tstop)
    assert resumed["simulated_ms"] == tstop
    assert resumed["spikes_total"] == whole["spikes_total"]
    assert resumed["spikes_sha256"] == whole["spikes_sha256"]


def test_a_resume_before_the_checkpoint_time_is_refused(tmp_path, stopped):
    outdir = tmp_path / "resumed"
    done = run_cli(
        ["run", "--resume", str(stopped), "-o", str(outdir), "--set", "simulation.tstop_ms=150"]
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert "simulation.tstop_ms" in lines[0] and "150" in lines[0] and "200 ms" in lines[0]
    assert not outdir.exists()
