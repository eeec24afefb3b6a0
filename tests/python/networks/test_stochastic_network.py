"""A network driven through bernoulli_synapse and quantal_stp_synapse alone
(users_network.stochastic: Poisson trains and recurrent connections, depressing,
facilitating, single-site and inhibitory sets, multapses and several delays per source):
every delivery is a keyed draw, so the same spikes, events, state samples and (unchanged)
weights on 1, 2 and 3 ranks x 1 and 2 threads with several exchange methods and
distributions show that no draw depends on the layout; and checkpoints saved on one layout
and resumed on another give the same run (the available sites are in the checkpoint:
without them the resumed releases would differ). Runs tests/python/checkpoint/
resume_script.py, the checkpoint tests' SPMD script."""

from __future__ import annotations

import pytest
from conftest import marked
from test_tsodyks_network import segment as network_segment

pytestmark = pytest.mark.slow


def segment(ranks: int, threads: int, *steps: str, method="allgather", distribution="round_robin"):
    return network_segment(
        ranks, threads, *steps, method=method, distribution=distribution, network="stochastic"
    )


@pytest.fixture(scope="module")
def whole():
    return segment(1, 1)


def test_the_network_is_alive(whole):
    assert int(whole[1]) > 150


LAYOUTS = [
    (1, 2, "allgather", "round_robin"),
    (2, 1, "alltoall", "consecutive"),
    (2, 2, "multisend", "random_shuffle"),
    (3, 1, "allgather", "random_shuffle"),
    (3, 2, "alltoall", "round_robin"),
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
        3,
        2,
        f"resume:{first}",
        f"save:131.05:{second}",
        method="alltoall",
        distribution="consecutive",
    )
    resumed = segment(1, 2, f"resume:{second}", method="multisend", distribution="random_shuffle")
    assert resumed == whole
