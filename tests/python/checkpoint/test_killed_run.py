"""A run whose rank is killed without warning (SIGKILL, as a node failure looks) goes on
from its last checkpoint, on another number of ranks, to the spikes of the run that never
stopped: the checkpoint and the spike log survive a crash."""

from __future__ import annotations

import json
import os

import pytest
from conftest import leftover_processes, run_cli, run_config, write_config

pytestmark = pytest.mark.mpi

RUN = """
[simulation]
tstop_ms = 4000.0
seed = 9

[network]
cells = 3000
indegree = 80
indegree_spread = 10
weight = 0.002
"""


@pytest.mark.slow
@pytest.mark.parametrize("killed_rank", [0, 1])
def test_a_killed_rank_resumes_from_its_last_checkpoint(tmp_path, killed_rank):
    config = write_config(tmp_path, RUN)
    whole = run_config(config, tmp_path / "whole")
    outdir = tmp_path / "out"
    done = run_cli(
        ["run", str(config), "--np", "2", "-o", str(outdir), "--checkpoint-every", "500"],
        env=dict(os.environ, SPIKEX_TEST_KILL_RANK=str(killed_rank), SPIKEX_TEST_KILL_AT_MS="2300"),
    )
    assert done.returncode == 3, done.stderr
    assert f"rank {killed_rank}" in done.stderr and "SIGKILL" in done.stderr
    assert leftover_processes(tmp_path) == []
    assert not (outdir / "summary.json").exists()
    latest = json.loads((outdir / "checkpoints" / "latest.json").read_text())
    assert 0 < latest["step"] <= 2300 / 0.025

    done = run_cli(["run", "--resume", str(outdir / "checkpoints"), "--np", "3"])
    assert done.returncode == 0, done.stderr
    resumed = json.loads((outdir / "summary.json").read_text())
    assert resumed["spikes_sha256"] == whole["spikes_sha256"]
    assert resumed["spikes_total"] == whole["spikes_total"]
