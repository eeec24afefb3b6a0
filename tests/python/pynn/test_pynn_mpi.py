"""A PyNN script run unchanged under ``mpiexec -n P`` (P = 1..4, threads 1 or 2): the
spikes, membrane potentials and learned weights PyNN gathers on rank 0 are the same for
every P and T (tests/python/pynn/mpi_network_pynn.py: connectors drawn by PyNN from a
parallel-safe NumpyRNG and by spikex from a NativeRNG, STDP)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import marked
from spikex.launch.launcher import child_environment, mpiexec_command

pytest.importorskip("pyNN")
pytest.importorskip("mpi4py")

SCRIPT = Path(__file__).resolve().parent / "mpi_network_pynn.py"


def run(ranks: int, threads: int) -> list[str]:
    command = mpiexec_command(ranks, [sys.executable, str(SCRIPT), str(threads)])
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, env=child_environment(),
                          stdin=subprocess.DEVNULL, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("RESULT")]
    return line.split()[1:]


@pytest.fixture(scope="module")
def reference():
    ranks, threads, spikes, spikes_sha, v_sha, weights, learned, weights_sha = run(1, 1)
    assert (ranks, threads) == ("1", "1")
    assert int(spikes) > 200
    assert int(learned) > int(weights) // 2, "the STDP weights hardly moved"
    return [spikes, spikes_sha, v_sha, weights, learned, weights_sha]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("ranks", "threads"), marked([(2, 1), (3, 2), (4, 1)], mpi_if=lambda c: c[0] > 1)
)
def test_same_results_on_any_number_of_ranks(reference, ranks, threads):
    got_ranks, got_threads, *values = run(ranks, threads)
    assert (int(got_ranks), int(got_threads)) == (ranks, threads)  # really P ranks, not P copies
    assert values == reference
