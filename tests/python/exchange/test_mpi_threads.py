"""MPI and threads: the engine calls the exchange from whichever OpenMP thread runs a
step's `omp single` section, so MPI must provide MPI_THREAD_SERIALIZED
(docs/dev/architecture.md, Threads). Point-to-point methods with two threads per rank
under mpiexec give the reference spikes; a lower thread level is refused (exit status 3).
Also: exchange.max_pending_sends bounds persistent's in-flight requests.
"""

from __future__ import annotations

import os

import pytest
from conftest import run_cli, run_config, run_spmd, write_config

from spikex.methods import methods_with

# Several spikes per cell per interval: many sends in flight at once.
FAST = """
[simulation]
tstop_ms = 30.0
seed = 5

[network]
cells = 300
indegree = 40
indegree_spread = 10
delay_ms = 2.0
weight_spread = 0.04

[network.interval_fire]
invl_low_ms = 0.3
invl_high_ms = 0.9
"""


@pytest.fixture(scope="module")
def fast(tmp_path_factory):
    directory = tmp_path_factory.mktemp("fast")
    config = write_config(directory, FAST)
    return config, run_config(config, directory / "reference")


def test_mpi_provides_at_least_serialized(tmp_path):
    # Each rank writes its level to a file of its own: mpiexec forwards the ranks' stdout
    # in pieces that can interleave even within a line.
    done = run_spmd(
        """
        from pathlib import Path
        from spikex import _core
        Path(f"level{_core.comm_rank()}").write_text(_core.comm_thread_level())
        """,
        2,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    levels = [(tmp_path / f"level{rank}").read_text() for rank in range(2)]
    assert set(levels) <= {"MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"}


# every method that calls MPI point-to-point from the step loop
@pytest.mark.slow
@pytest.mark.parametrize(
    "method", methods_with("point_to_point") + methods_with("process_grid")
)
def test_point_to_point_with_two_threads_under_mpiexec(fast, tmp_path, method):
    config, reference = fast
    summary = run_config(
        config, tmp_path / method, ranks=2, sets=(f"exchange.method={method}", "simulation.threads=2")
    )
    assert (summary["ranks"], summary["threads"]) == (2, 2)
    assert summary["spikes_sha256"] == reference["spikes_sha256"]


@pytest.mark.slow
def test_a_lower_thread_level_is_refused_with_status_3(small_config, tmp_path):
    # Test hook of mpi_context: ask MPI for MPI_THREAD_FUNNELED only.
    environment = {**os.environ, "SPIKEX_TEST_MPI_THREAD_LEVEL": "funneled"}
    done = run_cli(
        ["run", str(small_config), "--np", "2", "-o", str(tmp_path / "out"), "--set", "exchange.method=multisend"],
        env=environment,
    )
    assert done.returncode == 3, done.stdout + done.stderr
    assert not (tmp_path / "out" / "summary.json").exists()


@pytest.mark.slow
def test_persistent_honours_max_pending_sends(fast, tmp_path):
    config, reference = fast
    bounded = run_config(
        config,
        tmp_path / "bounded",
        ranks=2,
        sets=("exchange.method=persistent", "exchange.max_pending_sends=1"),
    )
    assert bounded["spikes_sha256"] == reference["spikes_sha256"]
    assert bounded["exchange"]["max_pending_sends"] == 1
    assert bounded["exchange"]["sends_blocked"] > 0  # the bound was reached and held
