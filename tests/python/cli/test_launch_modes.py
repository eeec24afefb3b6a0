"""Launch mode (b): `spikex run` started as the ranks of someone else's MPI job
(`mpiexec -n P spikex run ...`, `srun`) runs as that job's ranks, SPMD, and launches
nothing: the same spikes as `spikex run --np P`, `ranks = P` in summary.json, one answer
on stdout; a contradicting --np is refused (exit 2)."""

from __future__ import annotations

import json
import subprocess

import pytest
from conftest import SPIKEX, run_cli
from spikex.launch.launcher import child_environment, enclosing_job_size, mpiexec_command


@pytest.mark.parametrize(
    ("environment", "size"),
    [
        ({}, None),
        ({"OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_RANK": "1"}, 4),
        ({"PMI_RANK": "0", "PMI_SIZE": "8"}, 8),
        ({"PMIX_RANK": "2", "SLURM_STEP_ID": "0", "SLURM_STEP_NUM_TASKS": "16"}, 16),
        ({"SLURM_NTASKS": "16", "SLURM_JOB_ID": "7"}, None),  # a batch script, not a step
    ],
)
def test_the_enclosing_job_is_recognised_by_its_launchers_variables(environment, size):
    assert enclosing_job_size(environment) == size


def in_mpiexec(ranks: int, args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(mpiexec_command(ranks, [SPIKEX, *args]), capture_output=True, text=True, timeout=300,
                          env=child_environment(), stdin=subprocess.DEVNULL, check=False)  # fmt: skip


@pytest.mark.mpi
def test_ranks_of_an_mpiexec_job_run_as_that_job(small_config, tmp_path):
    launched = run_cli(["run", str(small_config), "--np", "2", "-o", str(tmp_path / "launched")])
    assert launched.returncode == 0, launched.stderr
    done = in_mpiexec(2, ["run", str(small_config), "-o", str(tmp_path / "in_job")])
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(tmp_path / "in_job")]  # rank 0 answers, once
    mine = json.loads((tmp_path / "in_job" / "summary.json").read_text())
    reference = json.loads((tmp_path / "launched" / "summary.json").read_text())
    assert mine["ranks"] == 2
    assert mine["spikes_sha256"] == reference["spikes_sha256"] and mine["spikes_total"] > 0
    assert not list(tmp_path.glob(".spikex-*"))  # no work directory left


@pytest.mark.mpi
def test_a_contradicting_np_inside_a_job_is_refused(small_config, tmp_path):
    done = in_mpiexec(2, ["run", str(small_config), "--np", "3", "-o", str(tmp_path / "out")])
    assert done.returncode == 2
    assert "--np = 3: this process is one of the 2 ranks of an MPI job" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out" / "summary.json").exists()
