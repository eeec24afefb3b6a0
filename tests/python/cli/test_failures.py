"""A rank that dies mid-run ends the whole job with exit status 3 and a message naming
it, within a time limit, and leaves no summary.json behind."""

from __future__ import annotations

import os
import re
import socket
import time
from pathlib import Path

import pytest
from conftest import SPIKEX, leftover_processes, run_cli, run_spmd


@pytest.mark.mpi
@pytest.mark.slow
def test_dead_rank_ends_the_job_with_status_3(small_config, tmp_path):
    outdir = tmp_path / "out"
    env = dict(os.environ, SPIKEX_TEST_KILL_RANK="1", SPIKEX_TEST_KILL_AT_MS="40")
    start = time.monotonic()
    done = run_cli(["run", str(small_config), "--np", "3", "-o", str(outdir)], timeout=120, env=env)
    assert time.monotonic() - start < 60
    assert done.returncode == 3, done.stderr
    assert (
        f"rank 1 on host {socket.gethostname()} failed: killed by signal 9 (SIGKILL)" in done.stderr
    )
    assert "Traceback" not in done.stderr
    assert not (outdir / "summary.json").exists()
    assert not (outdir / "spikes.h5").exists()
    assert leftover_processes(tmp_path) == []


@pytest.mark.mpi
@pytest.mark.slow  # about 2 s: the job has to end on every rank
def test_a_rank_failing_during_build_ends_the_job_naming_it(small_config, tmp_path):
    outdir = tmp_path / "out"
    env = dict(os.environ, SPIKEX_TEST_FAIL_BUILD_RANK="2")
    done = run_cli(["run", str(small_config), "--np", "3", "-o", str(outdir)], timeout=120, env=env)
    assert done.returncode == 3, done.stderr
    assert f"rank 2 on host {socket.gethostname()} failed: RuntimeError" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not outdir.exists() or not list(outdir.iterdir())
    assert leftover_processes(tmp_path) == []


@pytest.mark.slow
@pytest.mark.mpi
def test_a_frozen_rank_ends_the_job_through_the_others_watchdogs(small_config, tmp_path):
    """SIGSTOP: to the other ranks a frozen rank looks like a lost host or link; without
    the watchdog they would wait in the exchange for ever."""
    outdir = tmp_path / "out"
    env = dict(os.environ, SPIKEX_TEST_KILL_RANK="1", SPIKEX_TEST_KILL_AT_MS="40",
               SPIKEX_TEST_KILL_SIGNAL="SIGSTOP")  # fmt: skip
    start = time.monotonic()
    done = run_cli(["run", str(small_config), "--np", "3", "--set", "simulation.stall_timeout_s=2",
                    "--set", "simulation.tstop_ms=2000", "-o", str(outdir)], timeout=120, env=env)  # fmt: skip
    assert time.monotonic() - start < 30
    assert done.returncode == 3, done.stderr
    host = socket.gethostname()
    # rank 0 or 2 or both (the first one's exit ends the other), never the frozen rank 1
    assert re.search(
        rf"ranks? (0|2|0, 2) on host {host}: no spike exchange completed for ", done.stderr
    )
    assert "a rank, host or network link of the job was lost" in done.stderr
    assert not (outdir / "summary.json").exists()
    assert leftover_processes(tmp_path) == []


def test_one_rank_needs_no_mpi_launcher(small_config, tmp_path):
    """--np 1 runs without mpiexec: here it is not even on PATH."""
    env = dict(os.environ, PATH=str(Path(SPIKEX).parent))
    done = run_cli(["run", str(small_config), "--np", "1", "-o", str(tmp_path / "out")], env=env)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "summary.json").exists()


@pytest.mark.slow
@pytest.mark.mpi
def test_a_python_script_whose_rank_freezes_ends_instead_of_hanging(tmp_path):
    """An SPMD script (launch mode b) gets the same watchdog: the other rank reports and
    exits 3, and mpiexec ends the job."""
    script = f"""
        import os, signal
        import spikex as sx
        from spikex import _core
        net = sx.Network(seed=3, stall_timeout_s=2)
        cells = net.create("interval_fire", 400)
        net.connect_rule("random", cells, cells, indegree=50, weight=0.0)
        def freeze(simulated_ms, until_ms):
            if _core.comm_rank() == 1 and simulated_ms >= 100:
                os.kill(os.getpid(), signal.SIGSTOP)
        net.simulate(20000.0, progress=freeze)
        open("{tmp_path}/finished", "w").write("the run should not finish")
    """
    start = time.monotonic()
    done = run_spmd(script, 2, tmp_path, timeout=120)
    assert time.monotonic() - start < 60
    assert done.returncode != 0 and not (tmp_path / "finished").exists()
    assert (
        f"spikex: rank 0 on host {socket.gethostname()}: no spike exchange completed for"
        in done.stderr
    )
    assert leftover_processes(tmp_path) == []
