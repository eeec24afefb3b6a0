"""Every model, device, per-cell distribution, connection rule and plastic synapse type
together: the same connections, spikes, recorded state and final plastic weights for P in {1, 2, 3, 4}, T in {1, 2}, every exchange
method and every cell distribution (the tests fail if any draw depends on the layout)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import marked
from spikex.launch.launcher import child_environment, mpiexec_command
from spikex.methods import EXCHANGE_METHODS

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
DISTRIBUTIONS = ("round_robin", "consecutive", "random_shuffle")


def run_users_network(ranks: int, methods, threads, distributions, network="users") -> list[list[str]]:
    command = mpiexec_command(
        ranks,
        [sys.executable, str(HERE / "users_network.py"), ",".join(methods),
         ",".join(str(t) for t in threads), ",".join(distributions), network],
    )  # fmt: skip
    env = child_environment({**os.environ, "PYTHONPATH": str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", "")})
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, env=env, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    return [line.split()[1:] for line in done.stdout.splitlines() if line.startswith("RESULT")]


@pytest.fixture(scope="module")
def reference():
    (row,) = run_users_network(1, ["allgather"], [1], ["round_robin"])
    return row[3:]


def test_the_network_is_active_and_uses_its_inputs(reference):
    sha, total, initial, _, final, *pops = reference
    assert final != initial, "the plastic weights did not move"
    counts = dict(p.split("=") for p in pops)
    assert int(total) > 500
    active = ("exp", "delta", "alpha", "array", "trains", "cond", "traub", "hh", "gif", "sfa", "gamma", "ppd", "inh_gamma", "adex", "adex_exp")
    assert all(int(counts[name]) > 0 for name in active), counts


@pytest.mark.parametrize("ranks", marked([1, 2, 3, 4], mpi_if=lambda r: r > 1))
def test_same_network_spikes_and_state_everywhere(reference, ranks):
    # On 1 rank every method x thread count x distribution; on more ranks too, every
    # method on round_robin and every distribution with two methods (keeps the run short).
    rows = run_users_network(ranks, list(EXCHANGE_METHODS), [1, 2], ["round_robin"])
    rows += run_users_network(ranks, ["alltoall", "multisend"], [1, 2], DISTRIBUTIONS[1:])
    assert len(rows) == 2 * len(EXCHANGE_METHODS) + 8
    for method, threads, distribution, *values in rows:
        assert values == reference, f"{method} T={threads} {distribution} on {ranks} ranks differs"


@pytest.fixture(scope="module")
def microcircuit_reference():
    (row,) = run_users_network(1, ["allgather"], [1], ["round_robin"], "microcircuit")
    return row[3:]


@pytest.mark.parametrize("ranks", marked([1, 2, 3, 4], mpi_if=lambda r: r > 1))
def test_same_microcircuit_everywhere(microcircuit_reference, ranks):
    """The microcircuit at small scale (exchange every step, Poisson, thalamic input)."""
    sha, total, *_ = microcircuit_reference
    assert int(total) > 100
    rows = run_users_network(ranks, list(EXCHANGE_METHODS), [1 + ranks % 2], ["round_robin"], "microcircuit")
    rows += run_users_network(ranks, ["alltoall"], [2], DISTRIBUTIONS[1:], "microcircuit")
    for method, threads, distribution, *values in rows:
        assert values == microcircuit_reference, f"{method} T={threads} {distribution} on {ranks} ranks differs"
