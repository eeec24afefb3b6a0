"""Launch mode (b): `spikex run` started as the ranks of someone else's MPI job
(`mpiexec -n P spikex run ...`, `srun`) runs as that job's ranks, SPMD, and launches
nothing: the same spikes as `spikex run --np P`, `ranks = P` in summary.json, one answer
on stdout; a contradicting --np is refused (exit 2)."""

from __future__ import annotations

import json
import os
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


@pytest.mark.slow
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


@pytest.mark.slow
@pytest.mark.mpi
def test_a_contradicting_np_inside_a_job_is_refused(small_config, tmp_path):
    done = in_mpiexec(2, ["run", str(small_config), "--np", "3", "-o", str(tmp_path / "out")])
    assert done.returncode == 2
    assert "--np = 3: this process is one of the 2 ranks of an MPI job" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out" / "summary.json").exists()


@pytest.mark.slow
@pytest.mark.mpi
def test_compare_and_gups_inside_an_mpiexec_job_run_as_that_job(small_config, tmp_path):
    compared = in_mpiexec(2, ["compare", str(small_config), "--methods", "allgather,alltoall",
                              "-o", str(tmp_path / "compare")])  # fmt: skip
    assert compared.returncode == 0, compared.stderr
    comparison = json.loads((tmp_path / "compare" / "compare.json").read_text())
    assert [run["ranks"] for run in comparison["runs"]] == [2, 2]  # the job's ranks
    assert comparison["spikes_agree"] and compared.stdout.count("compare.json:") == 1
    gups = in_mpiexec(2, ["gups", "--log2-table", "14", "-o", str(tmp_path / "gups.json")])
    assert gups.returncode == 0, gups.stderr
    result = json.loads((tmp_path / "gups.json").read_text())
    assert result["ranks"] == 2 and result["passed"] is True
    assert gups.stdout.count("PASSED") == 1


# ---- launch mode (c): the user's launcher ----------------------------------------------


@pytest.mark.slow
@pytest.mark.mpi
def test_a_user_launcher_with_passed_through_options_gives_the_same_spikes(small_config, tmp_path):
    reference = run_cli(["run", str(small_config), "--np", "3", "-o", str(tmp_path / "a")])
    hostfile = tmp_path / "hosts"
    hostfile.write_text("localhost slots=3\n")
    chosen = run_cli(["run", str(small_config), "--np", "3", "--launcher", "mpirun --bind-to none",
                      "--hostfile", str(hostfile), "--launcher-args", "--display-map",
                      "-o", str(tmp_path / "c")])  # fmt: skip
    assert reference.returncode == 0 and chosen.returncode == 0, chosen.stderr
    mine = json.loads((tmp_path / "c" / "summary.json").read_text())
    assert mine["ranks"] == 3
    assert (
        mine["spikes_sha256"]
        == json.loads((tmp_path / "a" / "summary.json").read_text())["spikes_sha256"]
    )


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["--np", "2", "--hostfile", "/no/such/hosts"], {},
         '--hostfile = "/no/such/hosts": cannot be read: No such file or directory'),
        (["--np", "2", "--launcher", "srun-not-here --mpi=pmix"], {},
         '--launcher = "srun-not-here --mpi=pmix": srun-not-here is not on PATH'),
        (["--np", "2"], {"SPIKEX_LAUNCHER": "nolauncher"}, "SPIKEX_LAUNCHER"),
        (["--np", "3", "--hostfile", "HOSTS"], {}, "--np = 3: the hostfile"),
        (["--np", "8"], {"SLURM_JOB_ID": "1", "SLURM_NTASKS": "4"},
         "--np = 8: the Slurm allocation has 4 task(s)"),
    ],
)  # fmt: skip
def test_impossible_launches_are_refused_before_anything_starts(
    small_config, tmp_path, args, env, message
):
    hostfile = tmp_path / "hosts"
    hostfile.write_text("localhost slots=2\n")
    args = [str(hostfile) if arg == "HOSTS" else arg for arg in args]
    for command in (["run", str(small_config)], ["gups"]):
        outdir = tmp_path / "out"
        done = run_cli([*command, *args, "-o", str(outdir)], env={**os.environ, **env})
        assert done.returncode == 2, done.stderr
        assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1
        assert not outdir.exists()
