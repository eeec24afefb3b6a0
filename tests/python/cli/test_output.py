"""Result files: the canonical spike hash, summary.json fields and the SONATA spike file."""

from __future__ import annotations

import hashlib
import json
import struct
import subprocess

import h5py
import numpy as np
import pytest
import spikex as sx
from conftest import SPIKEX, marked, run_cli, run_config, several_ranks, write_config
from spikex.io.output import (
    read_sonata_spikes,
    sonata_population,
    spikes_sha256,
    write_sonata_spikes,
    write_summary,
)
from spikex.launch.launcher import child_environment
from spikex.launch.run import previous_results_name, results_in

CONTRACT_FIELDS = {
    "spikex_version", "config", "method", "ranks", "threads", "cells", "connections",
    "spikes_total", "spikes_sha256", "events_delivered", "time_s", "peak_rss_mb", "exchange",
}  # fmt: skip


def test_sha256_is_of_sorted_little_endian_int64_rows():
    steps = np.array([5, 3, 3, 800], dtype=np.int64)
    gids = np.array([1, 9, 2, 0], dtype=np.int64)
    rows = [(3, 2), (3, 9), (5, 1), (800, 0)]
    expected = hashlib.sha256(b"".join(struct.pack("<qq", *row) for row in rows)).hexdigest()
    assert spikes_sha256(steps, gids) == expected
    permutation = np.array([3, 0, 2, 1])
    assert spikes_sha256(steps[permutation], gids[permutation]) == expected


def test_sha256_of_no_spikes_is_that_of_empty_input():
    empty = np.zeros(0, dtype=np.int64)
    assert spikes_sha256(empty, empty) == hashlib.sha256(b"").hexdigest()


def test_sonata_layout(tmp_path):
    path = tmp_path / "spikes.h5"
    write_sonata_spikes(path, "cells", np.array([4, 2]), np.array([0.5, 0.75]))
    with h5py.File(path, "r") as spikes:
        group = spikes["spikes/cells"]
        assert group.attrs["sorting"] == "by_time"
        assert group["node_ids"].dtype == np.uint64
        assert group["timestamps"].dtype == np.float64
    gids, times = read_sonata_spikes(path, "cells")
    assert gids.tolist() == [4, 2] and times.tolist() == [0.5, 0.75]
    assert [entry.name for entry in tmp_path.iterdir()] == ["spikes.h5"]
    assert sonata_population(path) == "cells"
    assert read_sonata_spikes(path)[0].tolist() == [4, 2]  # the only population


def test_several_populations_are_read_back_as_gids_in_time_order(tmp_path):
    path = tmp_path / "spikes.h5"
    pops = [sx.Population(0, 3, "iaf_psc_exp", "a"), sx.Population(3, 2, "iaf_psc_exp", "b")]
    write_sonata_spikes(path, pops, np.array([4, 1, 3]), np.array([0.5, 0.75, 0.75]))
    with h5py.File(path, "r") as spikes:
        assert spikes["spikes/b/node_ids"][:].tolist() == [1, 0]  # SONATA: index in the population
        assert spikes["spikes/b"].attrs["first_gid"] == 3
        assert spikes["spikes/a/node_ids"][:].tolist() == [1]
    with pytest.raises(ValueError, match=r"expected one spike population, found \['a', 'b'\]"):
        sonata_population(path)
    gids, times = read_sonata_spikes(path)
    assert gids.tolist() == [4, 1, 3] and times.tolist() == [0.5, 0.75, 0.75]
    assert read_sonata_spikes(path, "a")[0].tolist() == [1]


def test_spikes_file_has_one_population_per_created_population(tmp_path):
    config = write_config(tmp_path)
    sets = (
        "network.model=hpc_benchmark", "network.scale=0.02", "network.indegree_e=40",
        "network.indegree_i=10", "simulation.tstop_ms=20",
    )  # fmt: skip
    summary = run_config(config, tmp_path / "out", 1, sets)
    with h5py.File(tmp_path / "out" / "spikes.h5", "r") as spikes:
        assert sorted(spikes["spikes"]) == ["E", "I"]
        counts = {name: spikes[f"spikes/{name}/node_ids"].size for name in ("E", "I")}
    assert counts == {name: summary["populations"][name]["spikes"] for name in ("E", "I")}
    assert sum(counts.values()) == summary["spikes_total"]
    assert read_sonata_spikes(tmp_path / "out" / "spikes.h5")[0].size == summary["spikes_total"]


def test_summary_write_is_atomic_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "summary.json"
    write_summary(path, {"a": 1})
    write_summary(path, {"a": 2})
    assert json.loads(path.read_text()) == {"a": 2}
    assert [entry.name for entry in tmp_path.iterdir()] == ["summary.json"]


@pytest.mark.parametrize("ranks", marked((1, 2), mpi_if=several_ranks, slow_if=several_ranks))
def test_run_writes_every_contract_field_and_a_matching_spike_file(tmp_path, ranks):
    config = write_config(tmp_path)
    summary = run_config(config, tmp_path / "out", ranks)
    assert set(summary) >= CONTRACT_FIELDS
    assert summary["ranks"] == ranks and summary["threads"] == 1
    assert summary["method"] == "allgather"
    assert summary["config"]["network"]["cells"] == summary["cells"] == 400
    assert {"build", "init", "simulate", "total", "compute", "wait", "exchange"} <= set(
        summary["time_s"]
    )
    assert set(summary["peak_rss_mb"]) >= {"max", "mean"}
    assert {"messages_sent", "bytes_sent", "rounds"} <= set(summary["exchange"])
    assert summary["connections"] > 0 and summary["events_delivered"] > 0

    gids, times = read_sonata_spikes(tmp_path / "out" / "spikes.h5", "interval_fire")
    assert gids.size == summary["spikes_total"] > 0
    assert np.all(np.diff(times) >= 0), "sorting = by_time"
    steps = np.rint(times / summary["config"]["simulation"]["dt_ms"]).astype(np.int64)
    assert spikes_sha256(steps, gids.astype(np.int64)) == summary["spikes_sha256"]


# ---- an output directory that holds a run's results (issue 20, part 7b) -------------------

RESULTS = ("spikes.h5", "summary.json")


def result_bytes(directory) -> dict:
    return {name: (directory / name).read_bytes() for name in RESULTS}


def run_here(directory, *args: str) -> subprocess.CompletedProcess:
    """`spikex run` on one rank in `directory` (where the default OUTDIR is)."""
    return subprocess.run([SPIKEX, "run", *args], capture_output=True, text=True, timeout=300,
                          cwd=directory, env=child_environment(), stdin=subprocess.DEVNULL,
                          check=False)  # fmt: skip


def tstop_ms(directory) -> float:
    return json.loads((directory / "summary.json").read_text())["config"]["simulation"]["tstop_ms"]


@pytest.mark.slow
def test_an_explicit_outdir_holding_results_is_refused_without_overwrite(tmp_path):
    config = write_config(tmp_path)
    outdir = tmp_path / "out"
    run_config(config, outdir, sets=("simulation.tstop_ms=50",))
    kept = result_bytes(outdir)
    done = run_cli(["run", str(config), "-o", str(outdir)])
    assert done.returncode == 2, done.stderr
    refusal = (
        f"spikex: error: output directory {outdir} already holds the results of a run "
        "(summary.json, spikes.h5); give --overwrite to replace them, or another -o"
    )
    assert done.stderr.strip().splitlines() == [refusal]
    assert result_bytes(outdir) == kept, "the first results are untouched"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["out", config.name]

    done = run_cli(["run", str(config), "-o", str(outdir), "--overwrite"])
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert tstop_ms(outdir) == 100.0, "replaced by the second run"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["out", config.name]


@pytest.mark.slow
def test_the_default_outdir_keeps_the_previous_results_beside_it(tmp_path):
    config = write_config(tmp_path)
    default = tmp_path / "spikex-out" / "small"
    first = run_here(tmp_path, str(config), "--set", "simulation.tstop_ms=50")
    assert first.returncode == 0 and first.stderr == "", first.stderr
    kept = result_bytes(default)
    second = run_here(tmp_path, str(config))
    assert second.returncode == 0, second.stderr
    assert second.stderr.strip().splitlines() == [
        "spikex run: kept the previous results of spikex-out/small in spikex-out/small.previous-1"
    ]
    assert result_bytes(tmp_path / "spikex-out" / "small.previous-1") == kept
    assert tstop_ms(default) == 100.0
    third = run_here(tmp_path, str(config), "--overwrite", "--set", "simulation.tstop_ms=50")
    assert third.returncode == 0 and third.stderr == "", third.stderr
    assert tstop_ms(default) == 50.0, "replaced, without a backup"
    assert sorted(path.name for path in (tmp_path / "spikex-out").iterdir()) == [
        "small",
        "small.previous-1",
    ]


def test_a_directory_with_other_files_only_is_used_as_it_is(tmp_path):
    config = write_config(tmp_path)
    outdir = tmp_path / "out"
    outdir.mkdir()
    (outdir / "notes.txt").write_text("mine\n")
    run_config(config, outdir)
    assert sorted(path.name for path in outdir.iterdir()) == ["notes.txt", *RESULTS]
    assert (outdir / "notes.txt").read_text() == "mine\n"


def test_the_previous_results_go_to_the_smallest_free_number(tmp_path):
    outdir = tmp_path / "x"
    (tmp_path / "x.previous-1").mkdir()
    (tmp_path / "x.previous-3").write_text("")
    assert previous_results_name(outdir) == tmp_path / "x.previous-2"
    outdir.mkdir()
    (outdir / "spikes.h5").write_text("")
    assert results_in(outdir) == ["spikes.h5"]


@pytest.mark.slow
def test_compare_reuses_its_own_run_directories(tmp_path):
    config = write_config(tmp_path)
    for _ in range(2):
        done = run_cli(["compare", str(config), "--methods", "allgather", "--np", "1",
                        "-o", str(tmp_path / "compare")])  # fmt: skip
        assert done.returncode == 0, done.stderr
    assert not list(tmp_path.rglob("*.previous-*"))
