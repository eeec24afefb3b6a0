"""A rank that dies mid-run ends the whole job with exit status 3 and a message naming
it, within a time limit, and leaves no summary.json behind."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from conftest import SPIKEX, run_cli


@pytest.mark.mpi
@pytest.mark.slow
def test_dead_rank_ends_the_job_with_status_3(small_config, tmp_path):
    outdir = tmp_path / "out"
    env = dict(os.environ, SPIKEX_TEST_KILL_RANK="1", SPIKEX_TEST_KILL_AT_MS="40")
    start = time.monotonic()
    done = run_cli(["run", str(small_config), "--np", "3", "-o", str(outdir)], timeout=120, env=env)
    assert time.monotonic() - start < 60
    assert done.returncode == 3, done.stderr
    assert "rank" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (outdir / "summary.json").exists()
    assert not (outdir / "spikes.h5").exists()


def test_one_rank_needs_no_mpi_launcher(small_config, tmp_path):
    """--np 1 runs without mpiexec: here it is not even on PATH."""
    env = dict(os.environ, PATH=str(Path(SPIKEX).parent))
    done = run_cli(["run", str(small_config), "--np", "1", "-o", str(tmp_path / "out")], env=env)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "summary.json").exists()
