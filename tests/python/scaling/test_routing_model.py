"""spikex.scaling.routing_model: the per-update cost of direct and routed GUPS grids in the
time model's terms, the break-even message cost, and the table of docs/user/gups.md
generated from bench/results/routing_crossover.json (bench/routing_crossover.py)."""

from __future__ import annotations

import json
import sys

import pytest
from conftest import REPO

from spikex.scaling.routing_model import (
    balanced_dims,
    best_grid,
    break_even_message_seconds,
    bucket_capacity,
    crossover_table,
    first_winning_ranks,
    full_grids,
    grid_cost,
)
from spikex.scaling.time_model import Profile

sys.path.insert(0, str(REPO / "bench"))
import routing_crossover
import routing_measured


def machine(message_s: float) -> Profile:
    return Profile("test", "test", {"route_hop_s": 2e-9, "bandwidth_bytes_per_s": 1e9,
                                    "send_overhead_s": message_s / 2, "receive_overhead_s": message_s / 2})  # fmt: skip


def test_balanced_grids():
    assert balanced_dims(64, 2) == (8, 8)
    assert balanced_dims(32, 2) == (8, 4)
    assert balanced_dims(8, 3) == (2, 2, 2)
    assert balanced_dims(1024, 4) == (8, 8, 4, 4)
    with pytest.raises(ValueError, match="power of two"):
        balanced_dims(12, 2)


def test_full_grids_are_every_factorisation_of_p():
    assert full_grids(12) == [(6, 2), (4, 3), (3, 2, 2)]
    assert full_grids(16) == [(8, 2), (4, 4), (4, 2, 2), (2, 2, 2, 2)]
    assert full_grids(7) == [] and full_grids(2) == [] and full_grids(1) == []


def test_best_grid_takes_any_p():
    # dear messages: the fullest buckets per hop win (4 x 3 on 12 ranks); a prime P has
    # only its direct grid; cheap messages keep the direct grid (fewest hops)
    dear, cheap = machine(2e-3), machine(1e-9)
    assert best_grid(12, dear)["best"]["dims"] == [4, 3]
    assert [g["dims"] for g in best_grid(12, dear)["candidates"]] == [[12], [6, 2], [4, 3], [3, 2, 2]]
    assert [g["dims"] for g in best_grid(7, dear)["candidates"]] == [[7]]
    assert best_grid(12, cheap)["best"]["dims"] == [12]
    assert best_grid(16, dear)["best"]["dims"] == [4, 4]


def test_grid_cost_counts_hops_and_buckets_as_the_router_sizes_them():
    # (1024 - 32 generated at a time) / (2 lanes x sum_i (D_i - 1) + D): what spikex gups
    # reports as bucket_capacity (32, 70, 3 and 21 in runs on 16 and 128 ranks)
    direct = grid_cost((16,), machine(1e-6))
    assert direct["capacity"] == 32 and direct["hops"] == pytest.approx(15 / 16)
    routed = grid_cost((4, 4), machine(1e-6))
    assert routed["capacity"] == 70 and routed["hops"] == pytest.approx(1.5)
    assert bucket_capacity((128,)) == 3 and bucket_capacity((16, 8)) == 21
    assert bucket_capacity((4, 4), lanes=1) == 124
    # the 4,032-byte message cap binds when the budget is large: 504 updates, not 4064 / 3
    assert grid_cost((2,), machine(1e-6), budget=4096)["capacity"] == 504
    # a budget too small for two lanes per partner falls back to one, as the router does
    assert bucket_capacity((1024,)) == 1
    # past 1,024 ranks the direct grid cannot give each bucket one update
    assert grid_cost((2048,), machine(1e-6))["seconds"] is None


@pytest.mark.parametrize("ranks,dims", [(16, (4, 4)), (64, (8, 8)), (256, (16, 16))])
def test_at_the_break_even_message_cost_both_grids_cost_the_same(ranks, dims):
    probe = machine(1e-6)
    m = break_even_message_seconds(grid_cost((ranks,), probe), grid_cost(dims, probe), probe)
    assert m is not None and m > 0
    at = machine(m)
    assert grid_cost((ranks,), at)["seconds"] == pytest.approx(grid_cost(dims, at)["seconds"])
    above = machine(2 * m)
    assert grid_cost(dims, above)["seconds"] < grid_cost((ranks,), above)["seconds"]


def test_cheap_messages_keep_the_direct_grid_and_costly_ones_route_earlier():
    ranks = [2**k for k in range(1, 13)]
    cheap = first_winning_ranks(crossover_table(machine(1e-9), ranks))
    costly = first_winning_ranks(crossover_table(machine(1e-5), ranks))
    assert costly is not None and cheap is not None and costly < cheap
    # at 2,048 ranks and beyond routing is the only way within the budget
    assert cheap <= 2048


def test_the_docs_table_is_generated_from_the_results_file():
    result = json.loads((REPO / "bench/results/routing_crossover.json").read_text())
    assert routing_crossover.docs_block(result) in (REPO / "docs/user/gups.md").read_text()
    # and the results file is what the model gives now
    assert routing_crossover.compute() == result


def test_the_measured_table_is_generated_from_its_results_file():
    data = json.loads((REPO / "bench/results/routing_measured.json").read_text())
    assert routing_measured.docs_block(data) in (REPO / "docs/user/gups.md").read_text()
    # every run verified, on the grids the script names
    for setting in data["settings"]:
        assert setting["rows"], setting["name"]
        for row in setting["rows"]:
            assert row["grids"] == routing_measured.grids(row["ranks"])
            assert row["runs_per_grid"] == data["repeats"]
