"""A run checkpointed at t1 and resumed on another layout gives the spikes, counters, state
samples and final plastic weights (their exact bits) of the run that never stopped.

Layouts change in ranks, threads, exchange method, distribution and connection layout;
checkpoints fall mid-interval, on a boundary, before recording starts and at t = 0; one
run is resumed twice. The networks: every model, device, rule and plastic synapse type
(built by the API: ``net.restore``), the microcircuit with thalamic input, and NEST's
hpc_benchmark static and with STDP (configuration-built)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from spikex.launch.launcher import child_environment, mpiexec_command

pytestmark = pytest.mark.mpi

SCRIPT = Path(__file__).with_name("resume_script.py")


def segment(ranks: int, layout: tuple[str, int, str], network: str, total: float, *steps: str):
    """Run one segment of `network` on `ranks` x layout (method, threads, distribution);
    the RESULT fields when it runs to the end."""
    method, threads, distribution = layout
    args = [sys.executable, str(SCRIPT), network, method, str(threads), distribution, str(total), *steps]
    done = subprocess.run(
        mpiexec_command(ranks, args), capture_output=True, text=True, timeout=300, check=False,
        env=child_environment(threads=threads),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line.split()[1:] for line in done.stdout.splitlines() if line.startswith("RESULT")]
    return rows[0] if rows else None


@pytest.mark.slow
def test_users_network_resumed_twice_on_three_layouts(tmp_path):
    """Every model and device, all rules, stdp_synapse, a state recording: saved
    mid-interval on 2 ranks, resumed on 3 ranks x 2 threads with another method and
    distribution and saved again, resumed on 1 rank."""
    whole = segment(1, ("allgather", 1, "round_robin"), "users", 200)
    first, second = tmp_path / "first", tmp_path / "second"
    segment(2, ("allgather", 1, "round_robin"), "users", 200, f"save:57.3:{first}")
    segment(3, ("multisend", 2, "random_shuffle"), "users", 200, f"resume:{first}", f"save:131:{second}")
    resumed = segment(1, ("alltoall", 2, "consecutive"), "users", 200, f"resume:{second}")
    assert int(whole[1]) > 500, "the network must be alive"
    assert resumed == whole  # spikes, count, events, state samples, exact final weights


@pytest.mark.slow
@pytest.mark.parametrize("network", ["hpc_static", "hpc_stdp"])
def test_hpc_benchmark_resumes_on_another_layout(tmp_path, network):
    whole = segment(1, ("allgather", 1, "round_robin"), network, 150)
    segment(2, ("alltoall", 1, "round_robin"), network, 150, f"save:60.0:{tmp_path}")
    resumed = segment(3, ("routed", 2, "random_shuffle"), network, 150, f"resume:{tmp_path}")
    assert resumed == whole


@pytest.mark.slow
def test_microcircuit_resumes_with_unsorted_connections(tmp_path):
    """Thalamic input from t = 20 ms; saved at 12.5 ms on one rank, resumed on two ranks x
    two threads whose connection tables keep creation order."""
    whole = segment(1, ("allgather", 1, "round_robin"), "microcircuit", 100)
    segment(1, ("allgather", 1, "round_robin"), "microcircuit", 100, f"save:12.5:{tmp_path}")
    resumed = segment(2, ("alltoallv", 2, "consecutive"), "microcircuit", 100, f"resume:{tmp_path}")
    assert resumed == whole


@pytest.mark.slow
def test_interval_fire_benchmark_resumes_on_another_layout(tmp_path):
    """The artificial-cell benchmark with bursts, weights of both signs, 1 -> 4 ranks."""
    whole = segment(1, ("allgather", 1, "round_robin"), "interval_fire", 300)
    segment(1, ("allgather", 2, "round_robin"), "interval_fire", 300, f"save:133.3:{tmp_path}")
    resumed = segment(4, ("persistent", 1, "random_shuffle"), "interval_fire", 300, f"resume:{tmp_path}")
    assert int(whole[1]) > 5000
    assert resumed == whole


@pytest.mark.slow
@pytest.mark.parametrize("t1", [0.0, 40.0])
def test_a_checkpoint_at_the_start_or_on_an_interval_boundary(tmp_path, t1):
    whole = segment(1, ("allgather", 1, "round_robin"), "hpc_stdp", 150)
    segment(1, ("allgather", 1, "round_robin"), "hpc_stdp", 150, f"save:{t1}:{tmp_path}")
    assert segment(2, ("multisend", 1, "round_robin"), "hpc_stdp", 150, f"resume:{tmp_path}") == whole
