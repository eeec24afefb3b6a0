"""The same network gives the same spikes_sha256 on 1, 2, 3, 4 and 8 ranks, for every
cell distribution, with bursts and with adjacent connectivity (non-zero weights, so that
every input changes the outcome)."""

from __future__ import annotations

import pytest
from conftest import marked, run_config

# Every test here runs simulations of a few seconds (or needs a module fixture that does).
pytestmark = pytest.mark.slow

RANKS = (1, 2, 3, 4, 8)
DISTRIBUTIONS = ("round_robin", "consecutive", "random_shuffle")
NETWORKS = {
    "random": (),
    "burst": ("network.burst.groups=4",),
    "adjacent": ("network.connectivity=adjacent",),
}


@pytest.fixture(scope="module")
def reference(tmp_path_factory, request):
    """spikes_sha256 of each network on one rank, round-robin."""
    from conftest import write_config

    directory = tmp_path_factory.mktemp("reference")
    config = write_config(directory)
    return {
        name: run_config(config, directory / name, 1, sets)
        for name, sets in NETWORKS.items()
    }


# The random network on every (distribution, ranks); bursts and adjacency on every rank
# count with round-robin and on 3 and 8 ranks with the other distributions.
CASES = [("random", d, p) for d in DISTRIBUTIONS for p in RANKS] + [
    (network, d, p)
    for network in ("burst", "adjacent")
    for d in DISTRIBUTIONS
    for p in (RANKS if d == "round_robin" else (3, 8))
]


@pytest.mark.parametrize("network,distribution,ranks", marked(CASES, mpi_if=lambda case: case[2] > 1))
def test_same_spikes_on_any_rank_count_and_distribution(
    reference, small_config, tmp_path, network, distribution, ranks
):
    sets = (*NETWORKS[network], f"distribution.scheme={distribution}")
    summary = run_config(small_config, tmp_path / "out", ranks, sets)
    expected = reference[network]
    assert summary["ranks"] == ranks
    assert summary["spikes_total"] == expected["spikes_total"]
    assert summary["spikes_sha256"] == expected["spikes_sha256"]
    assert summary["events_delivered"] == expected["events_delivered"]


def test_inputs_matter(reference, small_config, tmp_path):
    """With weight 0 the spikes differ: the determinism tests above exercise inputs."""
    silent = run_config(small_config, tmp_path / "w0", 1, ("network.weight_spread=0.0",))
    assert silent["spikes_sha256"] != reference["random"]["spikes_sha256"]
    bursting = reference["burst"]["spikes_total"]
    assert bursting > reference["random"]["spikes_total"], "burst groups fire more often"
