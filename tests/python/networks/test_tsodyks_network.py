"""A network driven through tsodyks_synapse and tsodyks2_synapse alone
(users_network.tsodyks: Poisson trains and recurrent connections, depressing, facilitating
and inhibitory sets, several delays per source): the same spikes, events, state samples and
(unchanged) weights on 1 and 2 ranks x 1 and 2 threads with several exchange methods and
distributions, and through checkpoints saved on one layout and resumed on another (the
short-term state is in the checkpoint: without it the resumed factors would start afresh).
Runs tests/python/checkpoint/resume_script.py, the checkpoint tests' SPMD script."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import marked
from spikex.launch.launcher import child_environment, mpiexec_command

pytestmark = pytest.mark.slow

SCRIPT = Path(__file__).resolve().parents[1] / "checkpoint" / "resume_script.py"
TOTAL_MS = 200


def segment(ranks, threads, *steps, method="allgather", distribution="round_robin", network="tsodyks"):
    """The RESULT fields (spike hash and count, events, state hash, exact weights hash) of
    one run of the tsodyks network (or another of resume_script.py), or None when it ends
    with a save."""
    args = [
        sys.executable,
        str(SCRIPT),
        network,
        method,
        str(threads),
        distribution,
        str(TOTAL_MS),
        *steps,
    ]
    done = subprocess.run(
        mpiexec_command(ranks, args), capture_output=True, text=True, timeout=300, check=False,
        env=child_environment(threads=threads), stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line.split()[1:] for line in done.stdout.splitlines() if line.startswith("RESULT")]
    return rows[0] if rows else None


@pytest.fixture(scope="module")
def whole():
    return segment(1, 1)


def test_the_network_is_alive(whole):
    assert int(whole[1]) > 150


LAYOUTS = [
    (1, 2, "allgather", "round_robin"),
    (2, 1, "alltoall", "consecutive"),
    (2, 2, "multisend", "random_shuffle"),
    (2, 2, "allgather", "round_robin"),
]


@pytest.mark.parametrize(
    ("ranks", "threads", "method", "distribution"), marked(LAYOUTS, mpi_if=lambda c: c[0] > 1)
)
def test_same_on_every_layout(whole, ranks, threads, method, distribution):
    assert segment(ranks, threads, method=method, distribution=distribution) == whole


@pytest.mark.mpi
def test_resumed_on_other_layouts_gives_the_same_run(whole, tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    segment(2, 1, f"save:63.7:{first}")
    segment(
        1,
        2,
        f"resume:{first}",
        f"save:131.05:{second}",
        method="alltoall",
        distribution="consecutive",
    )
    resumed = segment(2, 2, f"resume:{second}", method="multisend", distribution="random_shuffle")
    assert resumed == whole
