"""The one mpiexec command line, the child environment, and pure helpers of the API."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import write_config
from spikex.api.network import _contiguous_runs, chunk_ends
from spikex.api.population import Population
from spikex.launch.launcher import (
    Launcher,
    child_environment,
    launcher_from_options,
    mpiexec_command,
)
from spikex.runtime.allocation import (
    hostfile_slots,
    local_cores,
    slurm_allocation_tasks,
    thread_limit_problem,
)


def test_one_rank_runs_without_launcher():
    program = [sys.executable, "script.py"]
    assert mpiexec_command(1, program) == program


def test_several_ranks_use_mpiexec_and_oversubscribe_only_beyond_the_cores():
    cores = local_cores()
    command = mpiexec_command(cores + 1, ["prog", "arg"])
    assert command[0].endswith("mpiexec")
    assert command[-4:] == ["-np", str(cores + 1), "prog", "arg"]
    assert "--oversubscribe" in command
    assert "--oversubscribe" not in mpiexec_command(cores, ["prog"])
    assert ("--allow-run-as-root" in command) == (os.geteuid() == 0)


def test_a_hostfile_and_passed_through_options_reach_the_launcher(tmp_path):
    hostfile = tmp_path / "hosts"
    hostfile.write_text("node1 slots=4\nnode2 slots=4  # comment\n")
    launcher = launcher_from_options(
        "mpirun --bind-to core", hostfile, ["--map-by ppr:2:node", "-x FOO"]
    )
    command = mpiexec_command(8, ["prog"], launcher=launcher)
    assert command[1:3] == ["--bind-to", "core"]
    assert command[command.index("--hostfile") + 1] == str(hostfile)
    assert command[-7:] == ["--map-by", "ppr:2:node", "-x", "FOO", "-np", "8", "prog"]
    assert "--oversubscribe" not in command  # the hostfile's slots decide
    assert launcher.problem(8) is None
    assert launcher.problem(9)[0] == "--np" and "has 8 slot(s)" in launcher.problem(9)[2]
    # a user launcher runs even one rank through the launcher
    assert mpiexec_command(1, ["prog"], launcher=launcher)[0].endswith("mpirun")


def test_the_launcher_comes_from_the_environment_unless_given_or_inside_a_job():
    environment = {"SPIKEX_LAUNCHER": "mpiexec --report-bindings"}
    assert launcher_from_options(environment=environment).words == ("mpiexec", "--report-bindings")
    assert launcher_from_options("mpirun", environment=environment).words == ("mpirun",)
    inside = {**environment, "OMPI_COMM_WORLD_SIZE": "2"}
    assert launcher_from_options(environment=inside).is_default


@pytest.mark.parametrize(
    ("launcher", "hostfile", "key", "message"),
    [
        ("no-such-launcher -x", None, "--launcher", "no-such-launcher is not on PATH"),
        (None, "/no/such/hostfile", "--hostfile", "cannot be read"),
        ("mpiexec", "EMPTY", "--hostfile", "names no host"),
    ],
)
def test_launcher_problems_are_found_before_anything_starts(
    tmp_path, launcher, hostfile, key, message
):
    if hostfile == "EMPTY":
        hostfile = tmp_path / "empty"
        hostfile.write_text("# nothing\n")
    problem = launcher_from_options(launcher, hostfile).problem(2)
    assert problem[0] == key and message in problem[2]


def test_srun_takes_no_hostfile_and_counts_the_allocation(tmp_path, monkeypatch):
    srun = tmp_path / "srun"
    srun.write_text("#!/bin/sh\nexit 0\n")
    srun.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    launcher = Launcher(("srun", "--mpi=pmix"))
    assert launcher.family().name == "slurm"
    assert mpiexec_command(4, ["prog"], launcher=launcher)[1:] == ["--mpi=pmix", "-n", "4", "prog"]
    with_hostfile = Launcher(("srun",), tmp_path / "hosts")
    assert with_hostfile.problem(2)[0] == "--hostfile"
    monkeypatch.setenv("SLURM_JOB_ID", "42")
    monkeypatch.setenv("SLURM_NTASKS", "4")
    assert launcher.problem(4) is None
    assert "allocation has 4 task(s)" in launcher.problem(5)[2]


def test_hostfile_slots_and_allocation(tmp_path):
    hostfile = tmp_path / "hosts"
    hostfile.write_text("a slots=2\nb:3\n\n# c slots=9\n")
    assert hostfile_slots(hostfile) == 5
    hostfile.write_text("a slots=2\nb\n")
    assert hostfile_slots(hostfile) is None  # b's slots: the launcher decides
    assert slurm_allocation_tasks({"SLURM_NTASKS": "8"}) is None  # not in a job
    assert slurm_allocation_tasks({"SLURM_JOB_ID": "1", "SLURM_NTASKS": "8"}) == 8


def test_zero_ranks_is_an_error():
    with pytest.raises(ValueError, match="ranks"):
        mpiexec_command(0, ["prog"])


def test_child_environment_drops_the_enclosing_job():
    blas = {"OPENBLAS_NUM_THREADS": "1"}  # ranks' cores are for their own threads
    inside = {"PATH": "/bin", "OMPI_COMM_WORLD_SIZE": "2", "PMIX_RANK": "1", "HOME": "/root"}
    assert child_environment(inside) == {"PATH": "/bin", "HOME": "/root", **blas}
    outside = {"PATH": "/bin", "OMPI_MCA_btl": "self,vader"}
    assert child_environment(outside) == {**outside, **blas}
    assert child_environment({"OPENBLAS_NUM_THREADS": "4"})["OPENBLAS_NUM_THREADS"] == "4"


def test_no_wait_policy_is_chosen_for_the_user():
    # A rank's threads are spikex's own (core/worker_team.hpp): nothing OMP_* is set for
    # a job, whatever its layout, and the user's own settings pass through.
    cores = len(os.sched_getaffinity(0))
    assert "OMP_WAIT_POLICY" not in child_environment({}, ranks=1, threads=cores)
    assert "OMP_WAIT_POLICY" not in child_environment({}, ranks=cores + 1, threads=2)
    assert child_environment({"OMP_WAIT_POLICY": "active"}, ranks=1)["OMP_WAIT_POLICY"] == "active"


def test_importing_spikex_sets_no_openmp_variable():
    # The process is shared with numpy and the user's other libraries: importing spikex
    # must leave every OMP_* variable as it found it (issue 60).
    script = (
        "import os\n"
        "before = {k: v for k, v in os.environ.items() if k.startswith('OMP_')}\n"
        "import spikex\n"
        "after = {k: v for k, v in os.environ.items() if k.startswith('OMP_')}\n"
        "print(before == after, sorted(after))"
    )
    clean = {k: v for k, v in os.environ.items() if not k.startswith("OMP_")}
    out = subprocess.run(
        [sys.executable, "-c", script], env=clean, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["True", "[]"]
    chosen = dict(clean, OMP_WAIT_POLICY="passive")
    out = subprocess.run(
        [sys.executable, "-c", script], env=chosen, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["True", "['OMP_WAIT_POLICY']"]



def test_a_thread_limit_below_the_threads_is_refused_before_the_run(tmp_path):
    assert thread_limit_problem(2, {}) is None
    assert thread_limit_problem(2, {"OMP_THREAD_LIMIT": "2"}) is None
    assert thread_limit_problem(2, {"OMP_THREAD_LIMIT": "many"}) is None  # OpenMP ignores it
    assert "OMP_THREAD_LIMIT=1" in thread_limit_problem(2, {"OMP_THREAD_LIMIT": "1"})
    config = write_config(tmp_path)
    outdir = tmp_path / "out"
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    done = subprocess.run(
        [sys.executable, "-m", "spikex", "run", str(config), "--threads", "2", "-o", str(outdir)],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().count("\n") == 0 and "simulation.threads = 2" in done.stderr
    assert "Traceback" not in done.stderr and not outdir.exists()


@pytest.mark.parametrize("sort_by_source", [True, False])
def test_the_core_refuses_a_smaller_thread_team(sort_by_source):
    # Past the Python check (the limit taken out of os.environ after OpenMP read it), the
    # core must not run 2 threads' cells on 1 thread: the sorted build (an OpenMP region)
    # checks its team. The creation-order layout has no threaded build, and the step loop's
    # threads are spikex's own (worker_team), which OMP_THREAD_LIMIT does not cap: that
    # run is whole.
    script = (
        "import os, spikex\n"
        "del os.environ['OMP_THREAD_LIMIT']\n"
        f"net = spikex.Network(dt_ms=0.1, method='alltoall', sort_by_source={sort_by_source}, threads=2)\n"
        "cells = net.create('interval_fire', 40)\n"
        "net.connect_rule('random', cells, cells, indegree=5, weight=0.01, delay_ms=1.0)\n"
        "try:\n"
        "    print('ran:', net.simulate(5.0).summary['threads'])\n"
        "except RuntimeError as error:\n"
        "    print('refused:', error)\n"
    )
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=False
    )
    expected = "refused: OpenMP started 1 threads, not 2" if sort_by_source else "ran: 2"
    assert expected in done.stdout, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("current", "target", "interval"),
    [(0, 8000, 40), (0, 1332, 40), (1332, 4000, 40), (0, 7, 40), (0, 100, 1), (5, 5, 40)],
)
def test_simulation_chunks_are_whole_intervals_and_end_on_the_target(current, target, interval):
    ends = chunk_ends(current, target, interval)
    if target == current:
        assert ends == []
        return
    assert ends[-1] == target
    assert all(end % interval == 0 for end in ends[:-1])
    assert ends == sorted(set(ends)) and ends[0] > current
    assert len(ends) <= 102


def test_contiguous_runs():
    assert _contiguous_runs(np.array([0, 1, 2, 5, 7, 8])) == [(0, 3), (5, 1), (7, 2)]


def test_population_indexing():
    population = Population(first_gid=100, size=10, model="interval_fire")
    assert population[0] == 100 and population[-1] == 109
    assert population[2:5] == Population(102, 3, "interval_fire")
    assert population.gids.tolist() == list(range(100, 110))
    assert 105 in population and 110 not in population
    with pytest.raises(IndexError):
        population[10]
    with pytest.raises(ValueError, match="contiguous"):
        population[::2]


def test_auto_threads_rule():
    from spikex.runtime.allocation import CELLS_PER_THREAD, SYNAPSES_PER_THREAD, auto_threads

    idle = {"cores": 8, "load": 1.0, "environment": {}}
    assert auto_threads(100, 1000, **idle) == 1
    assert auto_threads(2 * CELLS_PER_THREAD, 0, **idle) == 2
    assert auto_threads(0, 3 * SYNAPSES_PER_THREAD, **idle) == 3
    assert auto_threads(1e9, 1e12, **idle) == 8  # at most the cores
    assert auto_threads(1e9, 1e12, ranks_here=4, **idle) == 2  # shared by the host's ranks
    assert auto_threads(1e9, 1e12, cores=8, load=7.0, environment={}) == 2  # 6 cores busy
    assert auto_threads(1e9, 1e12, cores=8, load=1.0, environment={"OMP_NUM_THREADS": "3"}) == 3
    assert auto_threads(1e9, 1e12, cores=8, load=1.0, environment={"OMP_THREAD_LIMIT": "2"}) == 2


def test_threads_not_given_are_chosen_and_reported():
    import spikex as sx

    net = sx.Network(dt_ms=0.1)
    cells = net.create("iaf_psc_exp", 20)
    net.connect_rule("fixed_indegree", cells, cells, indegree=2, weight=1.0, delay_ms=1.0)
    result = net.simulate(2.0)
    assert net.threads == 1 and result.summary["threads"] == 1  # far too small for two
