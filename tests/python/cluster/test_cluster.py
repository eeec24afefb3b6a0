"""spikex across hosts that share no memory: ranks on the emulated cluster's hosts
(network namespaces, real TCP; tests/python/cluster/conftest.py).

* The same spikes_sha256 on 1-4 hosts x 1-2 ranks per host for every exchange method,
  the ranks started by `mpiexec --hostfile` (launch mode b), and by `spikex run
  --launcher ... --hostfile` (mode c).
* `spikex gups` verified across hosts.
* Faults end the whole job with exit status 3, a message naming the rank and host, no
  outputs and no process left: a rank killed, a host's link taken down, a rank failing
  during the build.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import leftover_processes, run_stoppable
from emulated_cluster import cluster_fixture  # noqa: F401 - the fixture `cluster`
from spikex.launch.launcher import child_environment
from spikex.methods import EXCHANGE_METHODS

pytestmark = [pytest.mark.cluster, pytest.mark.mpi]

SPIKEX = str(Path(sys.executable).parent / "spikex")
# Long enough to see a fault mid-run (seconds of wall time), short for the rest.
NETWORK = """
[simulation]
tstop_ms = {tstop}
seed = 11

[network]
cells = 600
indegree = 80
indegree_spread = 10
weight = 0.0
weight_spread = 0.08
"""
LAYOUTS = [(hosts, per_host) for hosts in (1, 2, 3, 4) for per_host in (1, 2)]


def config(tmp_path: Path, tstop: float = 100.0) -> Path:
    path = tmp_path / f"net{int(tstop)}.toml"
    path.write_text(NETWORK.format(tstop=tstop))
    return path


def run(
    command: list[str], timeout: float = 300, env: dict | None = None
) -> subprocess.CompletedProcess:
    return run_stoppable(command, timeout=timeout, env=child_environment(env))


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> tuple[Path, str]:
    """The network and its spikes_sha256 on one rank of this machine."""
    directory = tmp_path_factory.mktemp("reference")
    network = config(directory)
    done = run([SPIKEX, "run", str(network), "-o", str(directory / "out")])
    assert done.returncode == 0, done.stderr
    summary = json.loads((directory / "out" / "summary.json").read_text())
    assert summary["spikes_total"] > 0
    return network, summary["spikes_sha256"]


@pytest.mark.parametrize(("hosts", "per_host"), LAYOUTS, ids=[f"{h}hosts-x{r}" for h, r in LAYOUTS])
def test_every_method_gives_the_same_spikes_on_every_layout(
    cluster, reference, tmp_path, hosts, per_host
):
    network, sha = reference
    ranks = hosts * per_host
    outdir = tmp_path / "compare"
    command = cluster.mpiexec(ranks, hosts, per_host, [SPIKEX, "compare", str(network),
                              "--methods", ",".join(EXCHANGE_METHODS), "-o", str(outdir)])  # fmt: skip
    done = run(command)
    assert done.returncode == 0, done.stdout + done.stderr
    comparison = json.loads((outdir / "compare.json").read_text())
    runs = comparison["runs"]
    assert sorted(r["method"] for r in runs) == sorted(EXCHANGE_METHODS)
    assert {r["ranks"] for r in runs} == {ranks}
    assert {r["spikes_sha256"] for r in runs} == {sha}, runs


def test_the_ranks_run_on_the_hosts_they_were_given(cluster, tmp_path):
    # each rank writes its host name to a file (mpiexec interleaves the ranks' stdout)
    script = (f"import os, socket; open('{tmp_path}/rank' + os.environ['OMPI_COMM_WORLD_RANK'], 'w')"
              ".write(socket.gethostname())")  # fmt: skip
    done = run(cluster.mpiexec(4, 2, 2, [sys.executable, "-c", script]))
    assert done.returncode == 0, done.stderr
    names = [(tmp_path / f"rank{rank}").read_text() for rank in range(4)]
    assert names == [cluster.names[0]] * 2 + [cluster.names[1]] * 2


def test_a_host_reaches_nothing_beyond_the_bridge(cluster):
    """Only the bridge's subnet is routed; `ip route get` sends nothing."""
    for name in cluster.names:
        routes = subprocess.run(["ip", "netns", "exec", name, "ip", "-4", "route"], capture_output=True,
                                text=True, check=True).stdout.splitlines()  # fmt: skip
        assert [route.split()[0] for route in routes] == ["10.231.0.0/24"], routes
        beyond = subprocess.run(["ip", "netns", "exec", name, "ip", "route", "get", "192.0.2.1"],
                                capture_output=True, text=True, check=False)  # fmt: skip
        assert beyond.returncode != 0 and "unreachable" in beyond.stderr


def test_a_user_launcher_and_hostfile_run_across_hosts(cluster, reference, tmp_path):
    network, sha = reference
    done = run([SPIKEX, "run", str(network), "--np", "6", "--launcher", cluster.launcher(),
                "--hostfile", str(cluster.hostfile), "--set", "exchange.method=multisend",
                "-o", str(tmp_path / "out")])  # fmt: skip
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["ranks"] == 6 and summary["spikes_sha256"] == sha


@pytest.mark.parametrize("algorithm", ["routed", "baseline"])
def test_gups_verifies_across_hosts(cluster, tmp_path, algorithm):
    output = tmp_path / "gups.json"
    done = run(cluster.mpiexec(8, 4, 2, [SPIKEX, "gups", "--algorithm", algorithm, "--log2-table", "18",
                                         "-o", str(output)]))  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(output.read_text())
    assert result["ranks"] == 8 and result["passed"] is True and result["errors"] == 0
    assert done.stdout.count("PASSED") == 1
    if algorithm == "routed":
        # two ranks per host: messages between them take the host's shared-memory
        # mailboxes, the others MPI (over TCP between the hosts)
        assert 0 < result["shared_memory_messages"] < result["messages_sent"]
    else:
        assert result["shared_memory_messages"] == 0


# ---- faults ----------------------------------------------------------------------------


def launch_across_hosts(
    cluster, network: Path, outdir: Path, extra: tuple[str, ...] = ()
) -> list[str]:
    """`spikex run` (launch mode c) of 4 ranks, 2 on each of the first two hosts."""
    return [SPIKEX, "run", str(network), "--np", "4", "--launcher", cluster.launcher(),
            "--hostfile", str(cluster.hostfile), "--launcher-args", f"--host {cluster.hosts_option(2, 2)[1]}",
            *extra, "-o", str(outdir)]  # fmt: skip


def assert_nothing_left(tmp_path: Path, outdir: Path) -> None:
    """No output that looks complete, no work directory, no process of the job."""
    assert not (outdir / "summary.json").exists() and not (outdir / "spikes.h5").exists()
    deadline = time.monotonic() + 5
    while (left := leftover_processes(tmp_path)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert left == []
    assert not list(outdir.parent.glob(f".spikex-tmp-{outdir.name}-*"))


def test_a_killed_rank_ends_the_job_naming_rank_and_host(cluster, tmp_path):
    outdir = tmp_path / "out"
    env = {**os.environ, "SPIKEX_TEST_KILL_RANK": "2", "SPIKEX_TEST_KILL_AT_MS": "50"}
    start = time.monotonic()
    done = run(launch_across_hosts(cluster, config(tmp_path, 2000), outdir), timeout=120, env=env)
    assert done.returncode == 3, done.stderr
    assert time.monotonic() - start < 60
    # rank 2 is the first rank of the second host
    assert (
        f"rank 2 on host {cluster.addresses[1]} failed: killed by signal 9 (SIGKILL)" in done.stderr
    )
    assert_nothing_left(tmp_path, outdir)


def test_a_rank_failing_during_build_ends_the_job_naming_rank_and_host(cluster, tmp_path):
    outdir = tmp_path / "out"
    env = {**os.environ, "SPIKEX_TEST_FAIL_BUILD_RANK": "3"}
    done = run(launch_across_hosts(cluster, config(tmp_path), outdir), timeout=120, env=env)
    assert done.returncode == 3, done.stderr
    assert f"rank 3 on host {cluster.names[1]} failed: RuntimeError" in done.stderr
    assert_nothing_left(tmp_path, outdir)


def test_a_host_whose_link_goes_down_ends_the_job(cluster, tmp_path):
    outdir = tmp_path / "out"
    command = launch_across_hosts(cluster, config(tmp_path, 20000), outdir,
                                  extra=("--set", "simulation.stall_timeout_s=3"))  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               stdin=subprocess.DEVNULL, env=child_environment())  # fmt: skip
    started, stderr, ended_after = link_down_while_running(
        cluster, process, lambda: _wait_for_progress(outdir, process) is not None
    )
    assert started, "the run never started simulating"
    assert process.returncode == 3, stderr
    assert ended_after < 3 + 20  # the stall timeout, then a few seconds
    stalled = re.search(r"ranks? [\d, ]+ on host (sxh1|sxh2)(; ranks? [\d, ]+ on host (sxh1|sxh2))?: "
                        r"no spike exchange completed for [\d.]+ s: a rank, host or network link", stderr)  # fmt: skip
    assert stalled, stderr
    assert_nothing_left(tmp_path, outdir)


def link_down_while_running(cluster, process: subprocess.Popen, started) -> tuple[bool, str, float]:
    """Once `started()` says the job simulates, take host 2's link down until the job ends:
    (whether it started, its stderr, seconds from the link going down to the end)."""
    try:
        running = started()
        cluster.link(2, up=False)
        down_at = time.monotonic()
        _, stderr = process.communicate(timeout=120)
        return running, stderr, time.monotonic() - down_at
    finally:
        cluster.link(2, up=True)
        if process.poll() is None:
            process.kill()


def _wait_for_progress(outdir: Path, process: subprocess.Popen) -> Path | None:
    """The job's progress file once the simulation has started (None if it ended first)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        for path in outdir.parent.glob(f".spikex-tmp-{outdir.name}-*/progress"):
            return path
        time.sleep(0.2)
    return None


# ---- faults under a bare mpiexec (launch mode b): spikex owns the ranks, not the launcher


def assert_no_process_on_any_host(cluster, tmp_path: Path) -> None:
    """Nothing of the job left in the root namespace or inside any emulated host."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        inside = [pid for name in cluster.names for pid in cluster.pids(name)]
        if not inside and not leftover_processes(tmp_path):
            return
        time.sleep(0.2)
    assert leftover_processes(tmp_path) == []
    assert inside == [], f"processes left on the emulated hosts: {inside}"


def start_bare_mpiexec(cluster, network: Path, outdir: Path, env: dict | None = None):
    """`mpiexec --hostfile ... spikex run` (mode b): 4 ranks, 2 on each of the first two
    hosts, a 3 s stall timeout."""
    command = cluster.mpiexec_on_first_host(4, 2, 2, [SPIKEX, "run", str(network), "-o", str(outdir),
                                                      "--set", "simulation.stall_timeout_s=3"])  # fmt: skip
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL, env=child_environment(env))  # fmt: skip


def _wait_for_simulation(outdir: Path, process: subprocess.Popen) -> bool:
    """Whether the job's spike log appeared (the simulation started) before it ended."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if (outdir / ".spikes.log").exists():
            time.sleep(1.0)  # well into the run
            return True
        time.sleep(0.2)
    return False


def test_a_host_whose_link_goes_down_ends_a_bare_mpiexec_job(cluster, tmp_path):
    """Issue 52: rank 0 reported the stall, but mpiexec waited for ever for the lost host's
    daemon (MPI_Abort did not change that). A rank whose watchdog fires now ends the
    launcher process that started it, then aborts."""
    outdir = tmp_path / "out"
    process = start_bare_mpiexec(cluster, config(tmp_path, 20000), outdir)
    started, stderr, ended_after = link_down_while_running(
        cluster, process, lambda: _wait_for_simulation(outdir, process)
    )
    assert started, "the run never started simulating"
    assert process.returncode != 0, stderr
    assert ended_after < 3 + 20, f"mpiexec ended {ended_after:.1f} s after the link went down"
    # (mpiexec's own host keeps this machine's name: `ip netns exec` shares its UTS namespace)
    assert re.search(r"rank \d on host \S+: no spike exchange completed for [\d.]+ s", stderr), stderr
    assert not (outdir / "summary.json").exists()
    assert_no_process_on_any_host(cluster, tmp_path)


def test_a_killed_rank_ends_a_bare_mpiexec_job(cluster, tmp_path):
    outdir = tmp_path / "out"
    env = {**os.environ, "SPIKEX_TEST_KILL_RANK": "2", "SPIKEX_TEST_KILL_AT_MS": "50",
           "OMPI_MCA_mca_base_env_list": "SPIKEX_TEST_KILL_RANK;SPIKEX_TEST_KILL_AT_MS"}  # fmt: skip
    process = start_bare_mpiexec(cluster, config(tmp_path, 2000), outdir, env)
    try:
        _, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode != 0, stderr
    assert not (outdir / "summary.json").exists()
    assert_no_process_on_any_host(cluster, tmp_path)
