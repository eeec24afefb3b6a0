"""`spikex gups` (HPCC MPIRandomAccess): both algorithms apply every update exactly once on
1, 2, 3, 4 and 8 ranks (verification finds no wrong word), a corrupted run is caught,
results are printed and written as JSON, and bad arguments are one-line exit-2 errors.
The stream itself (starts(0) = 1, starts(n) = n steps, the period) is tested in C++
(tests/cpp/test_hpcc_stream.cpp)."""

from __future__ import annotations

import json
import os
import re

import pytest
from conftest import REPO, marked, run_cli, several_ranks

from spikex.launch.launcher import Launcher
from spikex.scaling import gups as gups_module

LOG2_TABLE = 12  # 4,096 words, 16,384 updates: quick, yet thousands of messages


def gups(tmp_path, *args: str, env: dict | None = None):
    output = tmp_path / "gups.json"
    done = run_cli(["gups", "--log2-table", str(LOG2_TABLE), "-o", str(output), *args], env=env)
    result = json.loads(output.read_text()) if output.exists() else None
    return done, result


@pytest.mark.parametrize("algorithm", ("baseline", "routed"))
@pytest.mark.parametrize(
    "ranks", marked((1, 2, 3, 4, 8), mpi_if=several_ranks, slow_if=lambda ranks: ranks > 2)
)
def test_verification_passes(tmp_path, ranks, algorithm):
    done, result = gups(tmp_path, "--np", str(ranks), "--algorithm", algorithm)
    assert done.returncode == 0, done.stderr
    assert result["passed"] is True and result["errors"] == 0
    assert result["ranks"] == ranks and result["algorithm"] == algorithm
    assert result["table_size"] == 2**LOG2_TABLE
    assert result["updates"] == 4 * 2**LOG2_TABLE
    assert result["gups"] > 0 and result["time_s"] > 0
    assert result["gups_per_rank"] == pytest.approx(result["gups"] / ranks)
    assert result["buffered_high_water"] <= result["budget"] == 1024
    # the printed report carries the same figures
    assert "PASSED" in done.stdout and "mean updates per message" in done.stdout
    # where the ranks' time went: every rank's timed algorithm split into phases (summed
    # over ranks, so at most ranks x time_s; test_time_split_covers_the_timed_part)
    split = result["time_split_s"]
    assert list(split) == ["other", "generate_inject", "local_apply", "receive", "wait", "finish"]
    assert all(seconds >= 0 for seconds in split.values())
    assert 0 < sum(split.values()) <= 1.01 * ranks * result["time_s"]
    assert split["generate_inject"] > 0 and split["local_apply"] > 0
    assert 0 < result["cpu_s"] <= 1.05 * ranks * result["time_s"] + 0.01
    assert set(result["context_switches"]) == {"voluntary", "involuntary"}
    assert "time of the ranks" in done.stdout and "generate and inject" in done.stdout
    if ranks == 1:
        assert result["messages_sent"] == 0 and result["local_updates"] == result["updates"]
        assert "none (nothing sent)" in done.stdout
        # nothing can arrive on one rank: no polls, no waits
        assert split["receive"] == 0 and split["wait"] == 0
        return
    assert split["receive"] > 0
    assert result["messages_sent"] > 0
    assert result["mean_updates_per_message"] == pytest.approx(
        result["updates_sent"] / result["messages_sent"]
    )
    if algorithm == "baseline":
        assert result["dims"] is None
        assert result["mean_hops"] == pytest.approx(1.0), "the baseline sends straight to the owner"
    else:
        # the budget less a block of 32 generated updates, shared by the send buckets (two
        # per partner) and a receive buffer per dimension, at most 4,032 bytes (504
        # updates) per message
        lanes = 2
        dims = result["dims"]
        buffers = lanes * sum(d - 1 for d in dims) + len(dims)
        assert result["lanes"] == lanes
        # every rank is on this machine: by default every message went through a mailbox,
        # also with more ranks than cores
        cores = len(os.sched_getaffinity(0))
        assert result["shared_memory_requested"] is None
        assert result["oversubscribed"] is (ranks > cores) and result["shared_memory"] is True
        assert result["shared_memory_messages"] == result["messages_sent"]
        assert "shared-memory mailboxes (every rank on one node)" in done.stdout
        assert result["bucket_capacity"] == min((1024 - 32) // buffers, 4032 // 8)
        if len(result["dims"]) > 1:
            assert result["forwarded"] > 0 and result["mean_hops"] > 1.0


@pytest.mark.mpi
@pytest.mark.parametrize("algorithm", ("baseline", "routed"))
@pytest.mark.slow  # an mpiexec launch each (make test-fast under 90 s)
def test_time_split_covers_the_timed_part(tmp_path, algorithm):
    # A run long enough for the barriers around the timed part not to matter: the phases of
    # the slowest rank alone nearly fill time_s, and the loops' own phases (all but set-up)
    # hold most of it.
    done, result = gups(tmp_path, "--np", "2", "--algorithm", algorithm, "--log2-table", "18")
    assert done.returncode == 0, done.stderr
    split, time_s = result["time_split_s"], result["time_s"]
    assert 0.8 * time_s <= sum(split.values()) <= 2.02 * time_s
    assert split["other"] < 0.05 * sum(split.values())
    assert split["receive"] > 0 and split["generate_inject"] > 0
    assert 0 < result["cpu_s"] <= 2.1 * time_s


@pytest.mark.mpi
@pytest.mark.slow
def test_routed_hypercube_and_ragged_grids(tmp_path):
    for ranks, dims in ((8, "hypercube"), (3, "2x2"), (5, "[2,2,2]")):
        done, result = gups(tmp_path, "--np", str(ranks), "--dims", dims, "--budget", "64")
        assert done.returncode == 0, done.stderr
        assert result["errors"] == 0, dims
        assert result["buffered_high_water"] <= 64
        assert result["forwarded"] > 0, dims


@pytest.mark.mpi
def test_message_bytes_caps_the_routed_messages(tmp_path):
    done, result = gups(tmp_path, "--np", "2", "--message-bytes", "800")
    assert done.returncode == 0, done.stderr
    assert result["errors"] == 0
    assert result["bucket_capacity"] == 100
    assert 90 < result["mean_updates_per_message"] <= 100


@pytest.mark.mpi
@pytest.mark.slow  # an mpiexec launch each (make test-fast under 90 s)
def test_lanes_split_the_budget_and_lose_nothing(tmp_path):
    done, result = gups(tmp_path, "--np", "2", "--lanes", "3")
    assert done.returncode == 0, done.stderr
    assert result["errors"] == 0 and result["lanes"] == 3
    assert result["bucket_capacity"] == (1024 - 32) // 4  # three send buckets, one receive buffer
    assert result["buffered_high_water"] <= 1024
    assert "x 3 lanes" in done.stdout


@pytest.mark.mpi
@pytest.mark.slow  # an mpiexec launch each (make test-fast under 90 s)
def test_shared_memory_asked_for_is_used_also_with_more_ranks_than_cores(tmp_path):
    ranks = len(os.sched_getaffinity(0)) + 1
    done, result = gups(tmp_path, "--np", str(ranks), "--shared-memory")
    assert done.returncode == 0, done.stderr
    assert result["errors"] == 0 and result["oversubscribed"] is True
    assert result["shared_memory_requested"] is True and result["shared_memory"] is True
    assert result["shared_memory_messages"] == result["messages_sent"] > 0


def test_ranks_yield_inside_mpi_only_when_they_share_the_cores(tmp_path):
    # OpenMPI's mpi_yield_when_idle for the ranks: on with more ranks than this machine's
    # cores (a rank polling in a blocking call holds a core another rank needs), off
    # with a core per rank (a yield on every empty poll only costs)
    cores = len(os.sched_getaffinity(0))
    assert gups_module.yield_when_idle(gups_module.plan_gups(cores + 1, log2_table=10)) == "1"
    assert gups_module.yield_when_idle(gups_module.plan_gups(cores, log2_table=10)) == "0"
    hosts = tmp_path / "hosts"
    hosts.write_text(f"localhost slots={cores + 1}\n")
    spread = Launcher(hostfile=hosts)  # a hostfile: the ranks may be on other hosts
    assert gups_module.yield_when_idle(gups_module.plan_gups(cores + 1, log2_table=10, launcher=spread)) == "0"


@pytest.mark.mpi
@pytest.mark.slow  # an mpiexec launch each (make test-fast under 90 s)
def test_no_shared_memory_sends_mpi_messages(tmp_path):
    done, result = gups(tmp_path, "--np", "2", "--no-shared-memory")
    assert done.returncode == 0, done.stderr
    assert result["errors"] == 0 and result["messages_sent"] > 0
    assert result["shared_memory_requested"] is False and result["shared_memory_messages"] == 0
    assert "MPI messages" in done.stdout


@pytest.mark.mpi
@pytest.mark.slow  # an mpiexec launch each (make test-fast under 90 s)
def test_an_mpi_without_shared_windows_falls_back_to_mpi_messages(tmp_path):
    # OpenMPI's osc ucx cannot allocate shared-memory windows: the mailboxes are then not
    # set up on any rank, and the run goes on with MPI messages
    done, result = gups(
        tmp_path, "--np", "2", env={**os.environ, "OMPI_MCA_osc": "ucx", "UCX_TLS": "tcp,self"}
    )
    assert done.returncode == 0, done.stderr
    assert result["errors"] == 0 and result["messages_sent"] > 0
    assert result["shared_memory_requested"] is None and result["shared_memory"] is True
    assert result["shared_memory_messages"] == 0
    assert "this MPI cannot share windows" in done.stdout


def profile_with_message_cost(tmp_path, name: str, overhead_s: float):
    """profiles/bgp.toml with send and receive overhead each ``overhead_s``."""
    text = (REPO / "profiles/bgp.toml").read_text()
    text = re.sub(r"(?m)^(send|receive)_overhead_s = .*$", rf"\1_overhead_s = {overhead_s}", text)
    path = tmp_path / f"{name}.toml"
    path.write_text(text.replace('name = "bgp"', f'name = "{name}"'))
    return path


@pytest.mark.slow
@pytest.mark.mpi
def test_profile_chooses_the_grid_the_time_model_predicts_fastest(tmp_path):
    # Messages nearly free: the direct grid (fewest hops). Messages dear: the 4 x 4 grid,
    # whose fuller buckets (70 updates against 32) need fewer of them per update. (On 4
    # ranks the direct grid always wins: a 2 x 2 bucket holds 165 updates, a direct one 141,
    # and the extra hop costs more messages than the fill saves.)
    for name, overhead, dims in (("cheap", 1e-9, [16]), ("dear", 1e-3, [4, 4])):
        done, result = gups(tmp_path, "--np", "16", "--profile", str(profile_with_message_cost(tmp_path, name, overhead)))
        assert done.returncode == 0, done.stderr
        assert result["errors"] == 0 and result["dims"] == dims, name
        choice = result["grid_choice"]
        assert choice["profile"] == name and choice["dims"] == dims
        assert [c["dims"] for c in choice["candidates"]] == [[16], [8, 2], [4, 4], [4, 2, 2], [2, 2, 2, 2]]
        fastest = min(choice["candidates"], key=lambda c: c["predicted_ns_per_update"])
        assert fastest["dims"] == dims
        assert f"fastest at profile {name}" in done.stdout
    # Any P: 12 ranks with dear messages take 4 x 3 (of 12, 6 x 2, 4 x 3, 3 x 2 x 2).
    done, result = gups(tmp_path, "--np", "12", "--profile", str(profile_with_message_cost(tmp_path, "dear", 1e-3)))
    assert done.returncode == 0, done.stderr
    assert result["errors"] == 0 and result["dims"] == [4, 3]
    assert [c["dims"] for c in result["grid_choice"]["candidates"]] == [[12], [6, 2], [4, 3], [3, 2, 2]]
    done, result = gups(tmp_path, "--np", "4", "--dims", "2x2")
    assert done.returncode == 0 and result["grid_choice"] is None


@pytest.mark.mpi
@pytest.mark.slow
def test_corrupted_updates_are_caught(tmp_path):
    # A few corrupted updates are counted but stay within HPCC's 1% tolerance...
    done, result = gups(tmp_path, "--np", "2", "--corrupt-updates", "3")
    assert done.returncode == 0, done.stderr
    assert result["errors"] == 3 and result["passed"] is True
    # ...many fail the run (exit status 1). The stream starts with 64 powers of two that
    # land on word 0 and cancel in pairs, so corrupt well past them.
    done, result = gups(
        tmp_path, "--np", "3", "--algorithm", "baseline", "--corrupt-updates", "500"
    )
    assert done.returncode == 1, done.stderr
    assert result["passed"] is False and result["errors"] * 100 > result["table_size"]
    assert "FAILED" in done.stdout


def test_no_verify(tmp_path):
    done, result = gups(tmp_path, "--no-verify", "--no-huge-pages")
    assert done.returncode == 0, done.stderr
    assert result["verified"] is False and result["passed"] is None
    assert result["huge_pages_requested"] is False and result["huge_pages"] is False


@pytest.mark.parametrize(
    "args,key",
    [
        (["--log2-table", "40"], "--log2-table = 40"),  # table too large for memory
        (["--np", "7", "--dims", "4x4"], '--dims = "4x4"'),  # grid shape not matching P
        (["--np", "6", "--dims", "hypercube"], '--dims = "hypercube"'),
        (["--np", "8", "--budget", "5"], "--budget = 5"),  # below one update per router
        (["--budget", "0"], "--budget = 0"),
        (["--message-bytes", "4"], "--message-bytes = 4"),  # below one update
        (["--algorithm", "baseline", "--message-bytes", "800"], "--message-bytes = 800"),
        (["--algorithm", "baseline", "--dims", "2x2"], '--dims = "2x2"'),
        (["--lanes", "0"], "--lanes = 0"),
        (["--lanes", "256"], "--lanes = 256"),
        (["--algorithm", "baseline", "--lanes", "2"], "--lanes = 2"),
        (["--algorithm", "baseline", "--no-shared-memory"], "--shared-memory = false"),
        (["--np", "8", "--log2-table", "2"], "--log2-table = 2"),
        (["--mem-fraction", "2"], "--mem-fraction = 2"),
        (["--algorithm", "fastest"], "--algorithm"),
        (["--np", "0"], "--np = 0"),
        (["--profile", "no-such.toml"], "--profile = no-such.toml"),
        (["--np", "4", "--dims", "4", "--profile", str(REPO / "profiles/bgp.toml")], '--dims = "4"'),
        (["--algorithm", "baseline", "--profile", str(REPO / "profiles/bgp.toml")], "--profile = "),
    ],
)
def test_bad_arguments_are_one_line_exit_2(tmp_path, args, key):
    output = tmp_path / "gups.json"
    done = run_cli(["gups", *args, "-o", str(output)])
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert key in lines[0]
    assert "Traceback" not in done.stderr
    assert not output.exists()


def test_help():
    done = run_cli(["gups", "--help"])
    assert done.returncode == 0
    for option in ("--np", "--algorithm", "--log2-table", "--mem-fraction", "--dims", "--budget",
                   "--message-bytes", "--huge-pages", "--profile"):  # fmt: skip
        assert option in done.stdout
    assert "--corrupt-updates" not in done.stdout, "test-only option stays hidden"
