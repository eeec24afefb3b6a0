"""The directed exchanges of NEST 5g (alltoall, alltoallv) over the two-tier connection
store: same spikes as allgather, multi-round sections, both tiers consistent, receive
buffers that do not grow with P, and clear errors for bad settings."""

from __future__ import annotations

import json

import pytest
from conftest import marked, run_cli, run_config, run_spmd, several_ranks, write_config

RANKS = (1, 2, 3, 4, 8)
SORT = {"sort": "connections.sort_by_source=true", "nosort": "connections.sort_by_source=false"}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    directory = tmp_path_factory.mktemp("reference")
    config = write_config(directory)
    return {
        "random": run_config(config, directory / "random", 1),
        "burst": run_config(config, directory / "burst", 1, ("network.burst.groups=4",)),
    }


CASES = (
    [("alltoall", sort, "round_robin", p) for sort in SORT for p in RANKS]
    + [("alltoall", sort, d, p) for sort in SORT for d in ("consecutive", "random_shuffle") for p in (3, 8)]
    + [("alltoallv", "sort", "round_robin", p) for p in RANKS]
    + [("alltoallv", "nosort", "random_shuffle", 3)]
)


@pytest.mark.slow
@pytest.mark.parametrize(
    "method,sort,distribution,ranks", marked(CASES, mpi_if=lambda case: case[3] > 1)
)
def test_same_spikes_as_allgather(reference, small_config, tmp_path, method, sort, distribution, ranks):
    sets = (f"exchange.method={method}", SORT[sort], f"distribution.scheme={distribution}")
    summary = run_config(small_config, tmp_path / "out", ranks, sets)
    assert summary["method"] == method
    assert summary["spikes_sha256"] == reference["random"]["spikes_sha256"]
    assert summary["events_delivered"] == reference["random"]["events_delivered"]
    assert summary["exchange"]["sorted_by_source"] is (sort == "sort")
    # A sender appends entries as its cells fire, in local order, and the receiver numbers
    # its locations from that sender in the same order: every block reaches the encoder
    # sorted, whatever the distribution and the layout (sender_numbering.hpp); so do the
    # Allgather blocks of the reference (a rank's own spikes in emission order).
    assert summary["exchange"]["encoder_sorts"] == 0
    assert reference["random"]["exchange"]["encoder_sorts"] == 0


@pytest.mark.mpi
@pytest.mark.slow
@pytest.mark.parametrize("method", ("alltoall", "alltoallv"))
def test_burst_network(reference, small_config, tmp_path, method):
    sets = (f"exchange.method={method}", "network.burst.groups=4")
    summary = run_config(small_config, tmp_path / "out", 4, sets)
    assert summary["spikes_sha256"] == reference["burst"]["spikes_sha256"]


@pytest.mark.mpi
@pytest.mark.slow
def test_tiny_sections_take_several_rounds(reference, small_config, tmp_path):
    sets = ("exchange.method=alltoall", "exchange.alltoall_min_entries=1", "exchange.alltoall_max_entries=2")
    summary = run_config(small_config, tmp_path / "out", 3, sets)
    assert summary["spikes_sha256"] == reference["random"]["spikes_sha256"]
    exchange = summary["exchange"]
    intervals = 100  # 100 ms / 1 ms min delay
    # a section of at most 2 entries cannot carry a 1-ms interval's spikes of 133 cells
    assert exchange["overflow_rounds"] > 2 * intervals * 3
    assert exchange["rounds"] == 3 * intervals + exchange["overflow_rounds"]


@pytest.mark.mpi
@pytest.mark.slow
def test_large_sections_need_one_round_per_interval(small_config, tmp_path):
    sets = ("exchange.method=alltoall", "exchange.alltoall_min_entries=100000")
    summary = run_config(small_config, tmp_path / "out", 2, sets)
    assert summary["exchange"]["overflow_rounds"] == 0
    assert summary["exchange"]["rounds"] == 2 * 100


@pytest.mark.mpi
@pytest.mark.slow
def test_small_init_buffer_takes_several_rounds(reference, small_config, tmp_path):
    # 16-byte records: 0.001 MB holds 65 records, i.e. 31 entries per rank pair on 2 ranks
    sets = ("exchange.method=alltoall", "exchange.max_init_buffer_mb=0.001")
    summary = run_config(small_config, tmp_path / "out", 2, sets)
    assert summary["spikes_sha256"] == reference["random"]["spikes_sha256"]
    assert summary["exchange"]["init_rounds"] > 2 * 3


WALK_BOTH_TIERS = """
    import json, numpy as np, spikex as sx
    from spikex import _core
    net = sx.Network.from_config({config!r}, {overrides!r})
    net.simulate(1.0)
    sources, ranks, locations = net._engine.target_entries()
    senders = np.full(sources.size, net.rank, dtype=np.int64)
    location_sources = net._engine.location_sources()
    # every rank gets every rank's presynaptic entries and location tables
    sizes = _core.allgather_int64(np.array([location_sources.size]))
    all_locations = _core.allgather_int64(location_sources)
    entries = np.stack([_core.allgather_int64(a) for a in (sources, ranks, locations, senders)])
    if net.rank == 0:
        print(json.dumps({{"sizes": sizes.tolist(), "locations": all_locations.tolist(),
                          "entries": entries.tolist()}}))
"""


@pytest.mark.parametrize("sort", SORT)
@pytest.mark.parametrize("ranks", marked((1, 3), mpi_if=several_ranks, slow_if=several_ranks))
def test_every_connection_reachable_from_exactly_one_target_entry(tmp_path, sort, ranks):
    config = write_config(tmp_path)
    overrides = ["exchange.method=alltoall", SORT[sort]]
    done = run_spmd(WALK_BOTH_TIERS.format(config=str(config), overrides=overrides), ranks, tmp_path)
    assert done.returncode == 0, done.stderr
    tables = json.loads(done.stdout.strip().splitlines()[-1])
    sources, target_ranks, indices, senders = tables["entries"]
    owner = dict(zip(sources, senders, strict=True))  # source gid -> its rank
    # postsynaptic tier: a rank numbers its locations per sending rank, by the source's
    # local index there (gid // P: round robin), then by location (sender_numbering.hpp):
    # (rank, sender, index) -> source gid
    post = {}
    offset = 0
    for rank, size in enumerate(tables["sizes"]):
        by_sender = {}
        for location in range(size):
            source = tables["locations"][offset + location]
            assert source in owner, f"location {location} of rank {rank}: source {source} has no target entry"
            by_sender.setdefault(owner[source], []).append((source // ranks, location, source))
        for sender, located in by_sender.items():
            for index, (_, _, source) in enumerate(sorted(located)):
                post[(rank, sender, index)] = source
        offset += size
    # presynaptic tier: each entry names a (rank, index) holding its source
    seen = {}
    for source, rank, index, sender in zip(sources, target_ranks, indices, senders, strict=True):
        key = (rank, sender, index)
        assert key in post, f"target entry {key} points at nothing"
        assert post[key] == source, f"target entry of gid {source} points at a run of gid {post[key]}"
        seen[key] = seen.get(key, 0) + 1
    assert set(seen) == set(post), "some connections are reachable from no target entry"
    assert set(seen.values()) == {1}, "some connections are reachable from several entries"
    if sort == "nosort":
        assert len(post) == 400 * 60 or 21000 < len(post) < 27000  # one location per connection
    else:
        assert len(post) <= 400 * ranks  # one location per (source, rank)


@pytest.mark.mpi
@pytest.mark.slow
def test_receive_buffers_do_not_grow_with_ranks(tmp_path):
    """Weak scaling, from counts: 200 cells per rank, 50 inputs each. Allgather's receive
    buffer grows with P; alltoall's (unsorted: one entry per connection) stays flat."""
    config = write_config(tmp_path, SMALL_WEAK)
    receive = {}
    for method, extra in (("allgather", ()), ("alltoall", ("connections.sort_by_source=false",))):
        for ranks in (2, 8):
            sets = (f"exchange.method={method}", f"network.cells={200 * ranks}", *extra)
            summary = run_config(config, tmp_path / f"{method}{ranks}", ranks, sets)
            receive[method, ranks] = summary["memory_bytes"]["receive_buffers"]["max"]
    assert receive["allgather", 8] > 3 * receive["allgather", 2]
    assert receive["alltoall", 8] < 1.5 * receive["alltoall", 2]


SMALL_WEAK = """
[simulation]
tstop_ms = 60.0
[network]
indegree = 50
indegree_spread = 0
weight_spread = 0.02
"""


@pytest.mark.mpi
@pytest.mark.slow
def test_released_sources_cannot_be_queried_but_simulate(tmp_path, reference):
    script = """
        import spikex as sx
        net = sx.Network.from_config({config!r}, ["connections.keep_sources=false",
                                                   "exchange.method=alltoall"])
        result = net.simulate(100.0)
        try:
            net.connections()
        except ValueError as error:
            if net.rank == 0:
                print("refused:", error, flush=True)
        if net.rank == 0:
            print(result.summary["spikes_sha256"], flush=True)
    """.format(config=str(write_config(tmp_path)))
    done = run_spmd(script, 2, tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any("refused:" in line and "keep_sources" in line for line in lines)
    assert reference["random"]["spikes_sha256"] in lines


@pytest.mark.parametrize(
    "setting,key",
    [
        (("exchange.alltoall_min_entries=8", "exchange.alltoall_max_entries=4"), "exchange.alltoall_max_entries"),
        (("exchange.alltoall_min_entries=0",), "exchange.alltoall_min_entries"),
        (("exchange.max_init_buffer_mb=0.00001",), "exchange.max_init_buffer_mb"),
        (("exchange.max_init_buffer_mb=-1",), "exchange.max_init_buffer_mb"),
        (("connections.keep_sources=false", "connections.sort_by_source=false"), "connections.keep_sources"),
    ],
)
def test_bad_values_exit_2_with_one_line(small_config, tmp_path, setting, key):
    args = ["run", str(small_config), "--np", "2", "-o", str(tmp_path / "out"), "--set", "exchange.method=alltoall"]
    for item in setting:
        args += ["--set", item]
    done = run_cli(args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and key in lines[0], done.stderr
    assert not (tmp_path / "out" / "summary.json").exists()


@pytest.mark.mpi
@pytest.mark.slow
@pytest.mark.parametrize("method", ("allgather", "alltoall", "alltoallv"))
def test_memory_is_accounted_per_structure(small_config, tmp_path, method):
    summary = run_config(small_config, tmp_path / "out", 2, (f"exchange.method={method}",))
    memory = summary["memory_bytes"]
    for structure in ("connections", "sources", "exchange_buffers", "receive_buffers", "lookup_tables"):
        assert memory[structure]["max"] >= memory[structure]["mean"] >= 0
    # 9 bytes per connection at least (a byte target + a weight), on the fullest rank
    assert memory["connections"]["max"] >= 9 * summary["connections"] / 2 * 0.9
    # allgather: the source lookup; alltoall(v): the numbering of each rank's source runs per
    # sending rank, 4 bytes a run (sender_numbering.hpp)
    assert memory["lookup_tables"]["max"] > 0
    if method != "allgather":
        assert memory["targets"]["max"] > 0
        assert memory["lookup_tables"]["max"] <= 4 * (summary["cells"] + 3)
