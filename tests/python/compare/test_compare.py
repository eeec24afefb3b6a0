"""`spikex compare`: every (method, ranks, repeat) is run, recorded and checked.

The sweeps run a small network for 50 ms so that the file stays well under a minute.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import run_cli, write_config
from spikex.compare.comparison import COMPARE_FILE, parse_rank_list
from spikex.compare.method_variants import parse_method_variants
from spikex.compare.run_metrics import repeat_statistics
from spikex.compare.spike_agreement import hash_groups, network_groups
from spikex.compare.spike_perturbation import DROP_ONE_SPIKE_VARIABLE
from spikex.errors import ConfigError
from spikex.methods import EXCHANGE_METHODS

SHORT_NETWORK = """
[simulation]
tstop_ms = 50.0
seed = 7

[network]
cells = 300
indegree = 50
indegree_spread = 10
weight_spread = 0.08
"""
METHODS = ("allgather", "alltoall")
RANKS = (1, 2)


def compare(config: Path, outdir: Path, *args: str, env: dict | None = None):
    return run_cli(["compare", str(config), "-o", str(outdir), *args], env=env)


def one_line_error(done) -> str:
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    return lines[0]


@pytest.fixture(scope="module")
def config(tmp_path_factory) -> Path:
    return write_config(tmp_path_factory.mktemp("compare-config"), SHORT_NETWORK)


@pytest.fixture(scope="module")
def comparison(config, tmp_path_factory):
    outdir = tmp_path_factory.mktemp("compare") / "out"
    done = compare(config, outdir, "--methods", ",".join(METHODS), "--np", "1,2")
    assert done.returncode == 0, done.stdout + done.stderr
    return outdir, done, json.loads((outdir / COMPARE_FILE).read_text())


@pytest.mark.mpi
@pytest.mark.slow
def test_compare_json_has_every_combination(comparison):
    _, _, result = comparison
    combinations = {(item["method"], item["ranks"]) for item in result["combinations"]}
    assert combinations == {(method, ranks) for method in METHODS for ranks in RANKS}
    assert {(run["method"], run["ranks"], run["repeat"]) for run in result["runs"]} == {
        (method, ranks, 1) for method in METHODS for ranks in RANKS
    }
    assert result["methods"] == [
        {"label": method, "method": method, "overrides": []} for method in METHODS
    ]
    assert result["ranks"] == list(RANKS)


@pytest.mark.mpi
@pytest.mark.slow
def test_every_run_went_through_spikex_run_and_agrees(comparison):
    outdir, _, result = comparison
    assert result["spikes_agree"] is True
    (network,) = result["networks"]
    assert len(network["hash_groups"]) == 1 and len(network["runs"]) == len(result["runs"])
    for run in result["runs"]:
        summary = json.loads((outdir / run["outdir"] / "summary.json").read_text())
        assert (outdir / run["outdir"] / "spikes.h5").is_file()
        assert summary["method"] == run["exchange_method"]
        assert summary["ranks"] == run["ranks"]
        assert summary["spikes_sha256"] == run["spikes_sha256"] == result["spikes_sha256"]
        assert run["metrics"]["run_s"] == summary["time_s"]["simulate"]
        assert run["metrics"]["messages"] == summary["exchange"]["messages_sent"]


@pytest.mark.mpi
@pytest.mark.slow
def test_every_combination_has_the_reported_numbers(comparison):
    _, _, result = comparison
    for combination in result["combinations"]:
        metrics = combination["metrics"]
        for name in ("run_s", "comp_rank0_s", "comp_mean_s", "comp_max_s", "wait_s",
                     "exchange_s", "messages", "bytes", "peak_rss_mb", "structures_mb"):  # fmt: skip
            assert metrics[name]["count"] == 1, name
            assert metrics[name]["median"] is not None, name
        assert metrics["comp_rank0_s"]["median"] <= metrics["comp_max_s"]["median"]
        assert metrics["comp_mean_s"]["median"] <= metrics["comp_max_s"]["median"]


@pytest.mark.mpi
@pytest.mark.slow
def test_table_names_every_method_and_the_agreement(comparison):
    outdir, done, result = comparison
    for method in METHODS:
        assert method in done.stdout
    assert "comp r0 s" in done.stdout and "exchange s" in done.stdout
    assert result["spikes_sha256"][:12] in done.stdout
    assert str(outdir / COMPARE_FILE) in done.stdout


@pytest.mark.mpi
@pytest.mark.slow
def test_dropped_spike_exits_1_naming_the_mismatching_run(config, tmp_path):
    outdir = tmp_path / "perturbed"
    done = compare(
        config, outdir, "--methods", "allgather,alltoall", "--np", "2",
        env={**os.environ, DROP_ONE_SPIKE_VARIABLE: "alltoall@2"},
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "SPIKES DIFFER" in done.stderr
    mismatch = [line for line in done.stderr.splitlines() if "MISMATCH" in line]
    assert len(mismatch) == 1 and "alltoall np=2 r1" in mismatch[0]
    assert "allgather np=2 r1" in done.stderr and "allgather" not in mismatch[0]
    result = json.loads((outdir / COMPARE_FILE).read_text())
    assert result["spikes_agree"] is False and result["spikes_sha256"] is None
    totals = {run["method"]: run["spikes_total"] for run in result["runs"]}
    assert totals["alltoall"] == totals["allgather"] - 1


@pytest.mark.slow
def test_repeats_give_median_and_spread(config, tmp_path):
    outdir = tmp_path / "repeat"
    done = compare(config, outdir, "--methods", "allgather", "--np", "1", "--repeat", "2")
    assert done.returncode == 0, done.stderr
    result = json.loads((outdir / COMPARE_FILE).read_text())
    (combination,) = result["combinations"]
    assert combination["runs"] == ["allgather np=1 r1", "allgather np=1 r2"]
    values = [run["metrics"]["run_s"] for run in result["runs"]]
    statistic = combination["metrics"]["run_s"]
    assert statistic["count"] == 2
    assert statistic["spread"] == pytest.approx(max(values) - min(values))
    assert statistic["median"] == pytest.approx(sum(values) / 2)
    assert "±" in done.stdout


@pytest.mark.mpi
@pytest.mark.slow
def test_per_rank_scales_the_network_with_the_ranks(config, tmp_path):
    outdir = tmp_path / "weak"
    done = compare(
        config, outdir, "--methods", "allgather", "--np", "1,2",
        "--per-rank", "network.cells=150", "--set", "simulation.tstop_ms=10",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads((outdir / COMPARE_FILE).read_text())
    assert {item["ranks"]: item["cells"] for item in result["combinations"]} == {1: 150, 2: 300}
    assert result["per_rank"] == ["network.cells=150"]
    # Two networks (one per size), each checked on its own; different spikes are right.
    assert [network["label"] for network in result["networks"]] == [
        "network.cells=150",
        "network.cells=300",
    ]
    assert result["spikes_agree"] is True and result["spikes_sha256"] is None


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        (["--methods", "no_such_method"], "--methods"),
        (["--methods", "allgather,allgather"], "--methods"),
        (["--methods", "allgather:no_such_key=1"], "no_such_key"),
        (["--methods", "allgather", "--np", "0"], "--np"),
        (["--methods", "allgather", "--np", "1,x"], "--np"),
        (["--methods", "allgather", "--repeat", "0"], "--repeat"),
        (["--methods", "allgather", "--set", "exchange.method=alltoall"], "--set"),
        (["--methods", "allgather", "--per-rank", "network.delay_ms=2"], "--per-rank"),
        (["--methods", "allgather", "--set", "network.cells=-1"], "network.cells"),
    ],
)
def test_invalid_arguments_exit_2_with_one_line_and_run_nothing(config, tmp_path, arguments, named):
    outdir = tmp_path / "never"
    line = one_line_error(compare(config, outdir, *arguments))
    assert named in line
    assert not outdir.exists()


def test_output_directory_that_is_a_file_exits_2(config, tmp_path):
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("")
    line = one_line_error(compare(config, not_a_directory, "--methods", "allgather"))
    assert "--outdir" in line


def test_unknown_method_lists_the_registered_methods(config, tmp_path):
    line = one_line_error(compare(config, tmp_path / "never", "--methods", "carrier_pigeon"))
    for method in EXCHANGE_METHODS:
        assert method in line


def test_invalid_variant_option_names_the_variant(config, tmp_path):
    line = one_line_error(
        compare(config, tmp_path / "never", "--methods", "alltoall,allgather:allgather_slots=0")
    )
    assert "exchange.allgather_slots" in line and "allgather:allgather_slots=0" in line


def test_help_lists_the_registered_methods():
    done = run_cli(["compare", "--help"])
    assert done.returncode == 0
    for method in EXCHANGE_METHODS:
        assert method in done.stdout
    assert "--methods" in done.stdout and "--repeat" in done.stdout


# ---- in-process units -------------------------------------------------------------------


def test_method_variants_parse_options_into_overrides():
    plain, slots, sort = parse_method_variants(
        "allgather, allgather:allgather_slots=20,alltoall:connections.sort_by_source=false"
    )
    assert (plain.label, plain.method, plain.overrides) == ("allgather", "allgather", ())
    assert slots.label == "allgather:allgather_slots=20"
    assert slots.run_overrides() == ("exchange.method=allgather", "exchange.allgather_slots=20")
    assert sort.overrides == ("connections.sort_by_source=false",)
    assert sort.slug == "alltoall-connections.sort_by_sourcefalse"


def test_method_variants_reject_setting_the_method_as_an_option():
    with pytest.raises(ConfigError, match="--methods"):
        parse_method_variants("allgather:method=alltoall")


def test_rank_list_parsing():
    assert parse_rank_list("1,2, 8") == (1, 2, 8)
    with pytest.raises(ConfigError, match="--np"):
        parse_rank_list("2,2")


def test_repeat_statistics_skip_missing_values():
    assert repeat_statistics([3.0, None, 1.0, 2.0]) == {
        "median": 2.0, "min": 1.0, "max": 3.0, "spread": 2.0, "count": 3,
    }  # fmt: skip
    assert repeat_statistics([None])["median"] is None


def test_hash_groups_put_the_majority_first():
    runs = [
        {"name": "a np=1 r1", "spikes_sha256": "x", "spikes_total": 5},
        {"name": "b np=1 r1", "spikes_sha256": "y", "spikes_total": 4},
        {"name": "a np=2 r1", "spikes_sha256": "x", "spikes_total": 5},
    ]
    groups = hash_groups(runs)
    assert [group["runs"] for group in groups] == [["a np=1 r1", "a np=2 r1"], ["b np=1 r1"]]


def test_runs_must_agree_only_within_one_network():
    runs = [
        {"name": "a np=1 r1", "spikes_sha256": "x", "spikes_total": 5},
        {"name": "a np=2 r1", "spikes_sha256": "y", "spikes_total": 9},
        {"name": "b np=2 r1", "spikes_sha256": "z", "spikes_total": 9},
    ]
    small = {"simulation": {"seed": 1}, "network": {"cells": 10}, "exchange": {"method": "a"}}
    large = {"simulation": {"seed": 1}, "network": {"cells": 20}, "exchange": {"method": "a"}}
    other_method = {**large, "exchange": {"method": "b"}, "distribution": {"scheme": "x"}}
    first, second = network_groups(runs, [small, large, other_method])
    assert (first["label"], first["spikes_agree"]) == ("network.cells=10", True)
    assert (second["label"], second["runs"]) == ("network.cells=20", ["a np=2 r1", "b np=2 r1"])
    assert second["spikes_agree"] is False and second["spikes_sha256"] is None
