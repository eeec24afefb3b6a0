"""The multisend family (Hines et al. 2011): multisend (1/2 sub-intervals x 1/2 phases),
persistent and rma give the same spikes as allgather on every rank count and
distribution, with the counters their algorithms imply.

Every variant of one rank count runs inside one SPMD job (one mpiexec start per rank
count, many networks): P = 1, 2, 3, 4, 8 for the two-phase, two-sub-interval multisend
with all three distributions; a representative subset of the others on each P.
"""

from __future__ import annotations

import json

import pytest
from conftest import marked, run_spmd, several_ranks

# Every test here runs simulations of a few seconds (or needs a module fixture that does).
pytestmark = pytest.mark.slow

TSTOP_MS = 100.0
# Non-zero weights (mean 0), so that inputs matter; 400 cells, 60 +- 5 inputs.
SMALL = {
    "simulation": {"tstop_ms": TSTOP_MS, "seed": 7},
    "network": {"cells": 400, "indegree": 60, "indegree_spread": 10, "weight_spread": 0.08},
}
# The paper's burst experiment (Figure 9): 4 groups of contiguous gids fire 5x faster in turn.
BURST = {
    "simulation": {"tstop_ms": TSTOP_MS, "seed": 3},
    "network": {
        "cells": 400,
        "indegree": 60,
        "indegree_spread": 10,
        "weight": 0.01,
        "weight_spread": 0.06,
        "burst": {"groups": 4, "factor": 5.0, "period_ms": 25.0},
    },
}
# Cells firing every 0.3-0.9 ms with a 2 ms delay: several spikes per cell per interval,
# so rma rings fill (deferrals) and persistent requests are restarted while in flight.
FAST = {
    "simulation": {"tstop_ms": 30.0, "seed": 5},
    "network": {
        "cells": 300,
        "indegree": 40,
        "indegree_spread": 10,
        "delay_ms": 2.0,
        "weight_spread": 0.04,
        "interval_fire": {"invl_low_ms": 0.3, "invl_high_ms": 0.9},
    },
}
NETWORKS = {"small": SMALL, "burst": BURST, "fast": FAST}
DISTRIBUTIONS = ("round_robin", "consecutive", "random_shuffle")

VARIANTS = {
    "multisend": ["exchange.method=multisend"],
    "multisend_k2": ["exchange.method=multisend", "exchange.subintervals=2"],
    "multisend_p2": ["exchange.method=multisend", "exchange.phases=2"],
    "multisend_k2_p2": [
        "exchange.method=multisend",
        "exchange.subintervals=2",
        "exchange.phases=2",
    ],
    "persistent": ["exchange.method=persistent"],
    "persistent_k2": ["exchange.method=persistent", "exchange.subintervals=2"],
    "rma": ["exchange.method=rma"],
    "rma_k2": ["exchange.method=rma", "exchange.subintervals=2"],
}


def _cases(ranks: int) -> list[tuple[str, str, list[str]]]:
    """(case name, network, overrides) run on `ranks` ranks."""
    cases = []

    def add(variant, network="small", distribution="round_robin", extra=()):
        name = f"{variant}/{network}/{distribution}" + "".join(f"/{e}" for e in extra)
        overrides = [*VARIANTS[variant], f"distribution.scheme={distribution}", *extra]
        cases.append((name, network, overrides))

    # The full P list: the paper's best variant, every distribution.
    for distribution in DISTRIBUTIONS:
        add("multisend_k2_p2", distribution=distribution)
    if ranks == 3:
        for variant in VARIANTS:
            for distribution in DISTRIBUTIONS:
                if (variant, distribution) != ("multisend_k2_p2", distribution):
                    add(variant, distribution=distribution)
        add("multisend", extra=("exchange.max_pending_sends=1",))
        add("rma", extra=("exchange.rma_slot_spikes=1",))
    if ranks == 4:
        for variant in VARIANTS:
            add(variant, network="burst", distribution="consecutive")
        add("rma", network="fast", extra=("exchange.rma_slot_spikes=1",))
        add("rma_k2", network="fast")
        add("persistent", network="fast", distribution="random_shuffle")
        add("multisend_p2", network="fast", extra=("exchange.measure_wait=false",))
    if ranks in (1, 2):
        for variant in ("multisend", "persistent", "rma", "rma_k2"):
            add(variant, distribution="random_shuffle")
    if ranks == 8:
        for variant in ("multisend", "multisend_p2", "persistent_k2", "rma"):
            add(variant, network="burst", distribution="random_shuffle")
    return cases


SCRIPT = """
    import json, spikex as sx
    from spikex import _core
    networks = {networks!r}
    out = {{}}
    for name, network, overrides in {cases!r}:
        net = sx.Network.from_config(networks[network], overrides)
        summary = net.simulate(networks[network]["simulation"]["tstop_ms"]).summary
        out[name] = {{"sha256": summary["spikes_sha256"], "spikes": summary["spikes_total"],
                     "exchange": summary["exchange"]}}
        del net
    if _core.comm_rank() == 0:
        print(json.dumps(out))
"""

_RESULTS: dict[int, dict] = {}


def results_on(ranks: int, tmp_path_factory) -> dict:
    """All cases of one rank count, from one SPMD job (cached per module)."""
    if ranks not in _RESULTS:
        directory = tmp_path_factory.mktemp(f"np{ranks}")
        if ranks == 0:  # the reference: allgather on one rank
            cases = [(name, name, ["exchange.method=allgather"]) for name in NETWORKS]
        else:
            cases = _cases(ranks)
        done = run_spmd(SCRIPT.format(networks=NETWORKS, cases=cases), max(ranks, 1), directory)
        assert done.returncode == 0, done.stderr[-3000:]
        _RESULTS[ranks] = json.loads(done.stdout.strip().splitlines()[-1])
    return _RESULTS[ranks]


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict:
    return {name: case["sha256"] for name, case in results_on(0, tmp_path_factory).items()}


@pytest.mark.parametrize("ranks", marked((1, 2, 3, 4, 8), mpi_if=several_ranks))
def test_every_variant_gives_the_allgather_spikes(reference, tmp_path_factory, ranks):
    results = results_on(ranks, tmp_path_factory)
    assert set(results) == {name for name, _, _ in _cases(ranks)}
    for name, case in results.items():
        network = name.split("/")[1]
        assert case["spikes"] > 0, name
        assert case["sha256"] == reference[network], (
            f"{name} on {ranks} ranks differs from allgather"
        )


@pytest.mark.parametrize("ranks", marked((1, 2, 3, 4, 8), mpi_if=several_ranks))
def test_conservation_counts(tmp_path_factory, ranks):
    """Every message sent was received; a one-spike wire message each (4 tag bits and the
    offset, the item in the MPI tag: 2 bytes at 40-80 steps per interval; rma: 1-byte window
    entries); at least one Allreduce per end."""
    for name, case in results_on(ranks, tmp_path_factory).items():
        exchange = case["exchange"]
        assert exchange["spikes_sent"] == exchange["spikes_received"], name
        if name.startswith("rma"):  # 1-byte window entries at M <= 128 (rma.cpp)
            assert exchange["bytes_sent"] == exchange["messages_sent"], name
        else:
            assert exchange["bytes_sent"] == 2 * exchange["messages_sent"], name
        assert exchange["wire_bytes"] == exchange["bytes_sent"], name
        intervals = 100 if "fast" not in name else 15
        subintervals = exchange["subintervals"]
        # one MPI_Allreduce per rank and (sub-)interval end, at least
        assert exchange["rounds"] >= ranks * (intervals * subintervals - 1), name
        if ranks == 1:
            assert exchange["messages_sent"] == 0, f"{name}: one rank delivers everything locally"
        else:
            assert exchange["messages_sent"] > 0, name


@pytest.mark.mpi
def test_messages_follow_the_target_ranks(tmp_path_factory):
    """One-phase multisend sends each spike once to every remote rank holding a target;
    two-phase sends the same total, part of it from relays (P = 8: groups of ~2)."""
    results = results_on(8, tmp_path_factory)
    direct = results["multisend/burst/random_shuffle"]["exchange"]
    relay = results["multisend_p2/burst/random_shuffle"]["exchange"]
    assert direct["phase_two_sent"] == 0
    assert relay["phase_two_sent"] > 0
    assert relay["relayed_spikes"] > 0
    assert relay["messages_sent"] == direct["messages_sent"]
    assert relay["phase_one_entries"] + relay["phase_two_entries"] == direct["phase_one_entries"]
    assert direct["max_target_ranks"] <= 8
    # persistent: one MPI_Start per message, requests recorded once per (cell, rank)
    persistent = results["persistent_k2/burst/random_shuffle"]["exchange"]
    assert persistent["persistent_starts"] == persistent["messages_sent"] == direct["messages_sent"]
    assert 0 < persistent["persistent_requests"] <= persistent["phase_one_entries"]


@pytest.mark.mpi
def test_variant_mechanics_are_exercised(tmp_path_factory):
    """The rarely taken paths ran (and gave the same spikes, checked above)."""
    three = results_on(3, tmp_path_factory)
    assert (
        three["multisend/small/round_robin/exchange.max_pending_sends=1"]["exchange"][
            "max_pending_sends"
        ]
        == 1
    )
    four = results_on(4, tmp_path_factory)
    fast_rma = four["rma/fast/round_robin/exchange.rma_slot_spikes=1"]["exchange"]
    assert fast_rma["ring_full_deferrals"] > 0, (
        "cells firing several times per interval fill 1-entry rings"
    )
    assert fast_rma["conservation_iterations"] > 0
    fast_persistent = four["persistent/fast/random_shuffle"]["exchange"]
    assert fast_persistent["persistent_starts"] == fast_persistent["messages_sent"] > 0
    assert four["multisend_k2/burst/consecutive"]["exchange"]["subintervals"] == 2
    rma = four["rma/burst/consecutive"]["exchange"]
    assert rma["slots_scanned"] > 0 and rma["rma_slot_spikes"] == 2


SLOW_SCRIPT = """
    import json, os
    os.environ["SPIKEX_TEST_SLOW_RANK"] = "2"
    os.environ["SPIKEX_TEST_SLOW_MS"] = "3"
    import spikex as sx
    from spikex import _core
    network = {network!r}
    out = {{}}
    for name, overrides in {cases!r}:
        net = sx.Network.from_config(network, overrides)
        net.record_timeline()
        result = net.simulate(network["simulation"]["tstop_ms"])
        out[name] = {{"sha256": result.spikes_sha256, "exchange": result.summary["exchange"],
                     "fewest_rounds": result.timeline["rounds"].min(axis=0).tolist(),
                     "due": result.timeline["due"][0].tolist()}}
        del net
    if _core.comm_rank() == 0:
        print(json.dumps(out))
"""


@pytest.mark.mpi
def test_a_slow_rank_changes_nothing(tmp_path):
    """Rank 2 sleeps 3 ms at the start of every sub-interval: its sends are late and the
    messages to it pile up; the conservation loop still settles every interval."""
    network = {**SMALL, "simulation": {"tstop_ms": 40.0, "seed": 7}}
    cases = [
        ("multisend_k2_p2", [*VARIANTS["multisend_k2_p2"], "distribution.scheme=consecutive"]),
        ("multisend_p2", [*VARIANTS["multisend_p2"], "exchange.measure_wait=false"]),
        ("persistent", VARIANTS["persistent"]),
        ("rma_k2", VARIANTS["rma_k2"]),
        ("allgather", ["exchange.method=allgather"]),
    ]
    done = run_spmd(SLOW_SCRIPT.format(network=network, cases=cases), 5, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    expected = out["allgather"]["sha256"]
    for name, case in out.items():
        assert case["sha256"] == expected, f"{name} with a slow rank differs"
        if name == "allgather":
            continue
        exchange = case["exchange"]
        assert exchange["spikes_sent"] == exchange["spikes_received"], name
        # every synchronisation with something due ran the loop (>= 1 Allreduce per rank)
        for fewest, due in zip(case["fewest_rounds"], case["due"], strict=True):
            if due > 0:
                assert fewest >= 1, name
