"""A network whose connections cannot fit is refused before they are drawn (exit status
2, one line giving the memory needed against the memory the ranks have), on every rank
alike; one that fits is not touched (every other test)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import marked, run_cli, write_config
from spikex.api import memory_check
from spikex.api.memory_check import (
    bytes_per_synapse,
    check_fits,
    expected_connections,
    ranks_on_this_host,
)

BIG = """
[simulation]
tstop_ms = 10.0

[network]
cells = 10000000
indegree = 10000
indegree_spread = 0
weight = 0.0
weight_spread = 0.1
"""


def rule(name, sources=100, targets=50, **options):
    return {
        "rule": name,
        "sources": [0, sources],
        "targets": [100, targets],
        "weight": 1.0,
        **options,
    }


@pytest.mark.parametrize(
    ("record", "connections"),
    [
        (rule("fixed_indegree", indegree=20), 20 * 50),
        (rule("random", indegree=20), 20 * 50),
        (rule("fixed_outdegree", outdegree=7), 7 * 100),
        (rule("fixed_total_number", total_number=1234), 1234),
        (rule("pairwise_bernoulli", probability=0.1), 0.1 * 100 * 50),
        (rule("all_to_all"), 100 * 50),
        (rule("one_to_one"), 50),
    ],
)
def test_connections_are_counted_from_the_rules(record, connections):
    assert expected_connections(record) == pytest.approx(connections)


def test_equal_weights_need_4_bytes_and_others_12():
    assert bytes_per_synapse(rule("all_to_all", synapse="static")) == 4
    assert bytes_per_synapse(rule("all_to_all", weight_spread=0.1)) == 12
    assert bytes_per_synapse(rule("all_to_all", weight={"distribution": "normal"})) == 12
    assert bytes_per_synapse(rule("all_to_all", synapse="stdp_synapse")) == 12
    # 2-byte targets on a rank of at most 65,536 cells (connection_table.hpp)
    assert bytes_per_synapse(rule("all_to_all", synapse="static"), rank_cells=65_536) == 2
    assert bytes_per_synapse(rule("all_to_all", synapse="stdp_synapse"), rank_cells=1000) == 10
    assert bytes_per_synapse(rule("all_to_all", synapse="static"), rank_cells=65_537) == 4


def test_ranks_on_a_host_come_from_the_launcher():
    assert ranks_on_this_host(8, {"OMPI_COMM_WORLD_LOCAL_SIZE": "4"}) == 4
    assert ranks_on_this_host(8, {"MPI_LOCALNRANKS": "2"}) == 2
    assert ranks_on_this_host(8, {}) == 1


class TwoRanks:
    """allgather_int64 of a two-rank job whose other rank has `other` (need, have, local)."""

    def __init__(self, other):
        self.other = np.array(other, dtype=np.int64)

    def allgather_int64(self, mine):
        return np.concatenate([mine, self.other])


def test_every_rank_refuses_when_one_rank_is_short(monkeypatch):
    monkeypatch.setattr(memory_check, "memory_bytes", lambda: (64 << 30, 32 << 30))
    rules = [rule("fixed_indegree", sources=1000, targets=1000, indegree=100)]  # 4e5 bytes in all
    check_fits(rules, 2, TwoRanks([200_000, 1 << 30, 1]))  # both fit
    with pytest.raises(ValueError, match=r"rank 1 has 1\.0 KiB available .* shared by 3 rank\(s\)"):
        check_fits(rules, 2, TwoRanks([200_000, 1024, 3]))


@pytest.mark.slow
@pytest.mark.parametrize("ranks", marked([1, 2], mpi_if=lambda ranks: ranks > 1))
def test_a_network_too_big_for_the_machine_is_refused_before_it_is_built(tmp_path, ranks):
    config = write_config(tmp_path, BIG)
    done = run_cli(
        ["run", str(config), "--np", str(ranks), "-o", str(tmp_path / "out")], timeout=120
    )
    assert done.returncode == 2, done.stderr
    line = done.stderr.strip()
    assert len(line.splitlines()) == 1 and "Traceback" not in line
    assert "the network does not fit: its 1e+07 cells and 1e+11 connections need at least 1.1 TiB" in line
    assert f"per rank on {ranks} rank(s)), but rank 0" in line and "available" in line
    assert not (tmp_path / "out").exists()


HUGE = """
[simulation]
tstop_ms = 10.0

[network]
cells = {cells}
indegree = 1000
weight = 0.0
weight_spread = 0.1
"""


def limited_memory(megabytes: int):
    """preexec_fn: the child may map at most `megabytes` of address space."""
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (megabytes << 20, megabytes << 20))

    return limit


@pytest.mark.parametrize("cells", [10**8, 4_294_967_294])
def test_a_huge_network_is_refused_from_its_description_alone(tmp_path, cells):
    """Issue 52: 10^8 cells were refused only after 4.7 minutes and 7 GB (an array of every
    gid for the spike recording). Within 2 GB of address space (a single array of 10^8
    gids would take 800 MB, and the build far more), the refusal names cells and
    connections."""
    import subprocess

    from conftest import SPIKEX
    from spikex.launch.launcher import child_environment

    config = write_config(tmp_path, HUGE.format(cells=cells))
    done = subprocess.run(
        [SPIKEX, "run", str(config), "-o", str(tmp_path / "out")], capture_output=True, text=True,
        timeout=120, env=child_environment(), preexec_fn=limited_memory(2048),
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    line = done.stderr.strip()
    assert len(line.splitlines()) == 1 and "Traceback" not in line, line
    assert f"its {cells:.3g} cells and {cells * 1000:.3g} connections need at least" in line
    assert not (tmp_path / "out").exists()


def test_too_many_cells_for_32_bit_gids_is_a_config_error(tmp_path):
    config = write_config(tmp_path, HUGE.format(cells=2**32))
    done = run_cli(["run", str(config), "-o", str(tmp_path / "out")])
    assert done.returncode == 2 and "network.cells" in done.stderr and "4294967294" in done.stderr, done.stderr


def test_cells_count_towards_the_memory_needed(monkeypatch):
    monkeypatch.setattr(memory_check, "memory_bytes", lambda: (64 << 30, 1 << 30))
    check_fits([], 1, None, cells={"iaf_psc_alpha": 1000})
    with pytest.raises(ValueError, match=r"its 1e\+09 cells and 0 connections"):
        check_fits([], 1, None, cells={"iaf_psc_alpha": 10**9})
    assert memory_check.bytes_per_cell("iaf_psc_alpha") > memory_check.GID_BYTES
