"""``bench/gups.py --hpcc``: the HPL order that makes hpcc 1.5.0 choose a table size and the
reader of its output, both against real hpccoutf.txt files (``data/``: Debian's hpcc on 2
ranks and the opt2 build on 3 and 4, stopped after SingleRandomAccess as the bench stops
it), the targets of issue 21, the one-line argument errors, and the table in
docs/user/gups.md generated from bench/results/gups_hpcc.json."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
import gups
import gups_hpcc
import hpcc_reference as hpcc

DATA = Path(__file__).parent / "data"
OUTPUTS = sorted(DATA.glob("hpccoutf_*.txt"))


def test_hpl_order_for_a_table_on_any_ranks():
    # a 1 x P grid gives about N^2 words whatever P: N = 2^(K/2) ...
    assert [hpcc.hpl_order_for_table(24, p) for p in (1, 2, 4, 8)] == [4096] * 4
    assert [hpcc.hpl_order_for_table(26, p) for p in (1, 2, 4)] == [8192] * 3
    # ... one more where hpcc's size_t division of 8 N^2 by P rounds down ...
    assert hpcc.hpl_order_for_table(24, 3) == 4097
    # ... and the next integer above 2^(K/2) for odd K
    assert hpcc.hpl_order_for_table(25, 1) == 5793
    for log2_table in (16, 20, 24, 25, 26):
        for ranks in (1, 2, 3, 4, 5, 6, 7, 8):
            order = hpcc.hpl_order_for_table(log2_table, ranks)
            assert hpcc.hpcc_tables(order, ranks)[0] == log2_table
            assert hpcc.hpcc_tables(order - 1, ranks)[0] == log2_table - 1  # the smallest


@pytest.mark.parametrize("path", OUTPUTS, ids=lambda path: path.stem)
def test_table_sizes_of_real_runs_follow_the_rule(path):
    """hpcc's own output gives its N, grid and the tables it chose: the rule agrees (N =
    1024 on 3 ranks gives 2^19 words, not 2^20)."""
    text = path.read_text(encoding="utf-8")
    order = int(re.search(r"^N      :\s+(\d+)", text, re.MULTILINE).group(1))
    rows = int(re.search(r"^P      :\s+(\d+)", text, re.MULTILINE).group(1))
    columns = int(re.search(r"^Q      :\s+(\d+)", text, re.MULTILINE).group(1))
    parsed = hpcc.parse_hpccoutf(text)
    assert rows * columns == parsed["ranks"]
    mpi, single = hpcc.hpcc_tables(order, parsed["ranks"])
    assert (parsed["log2_table"], parsed["MPIRandomAccess_N"]) == (mpi, 2**mpi)
    assert parsed["RandomAccess_N"] == 2**single


def test_reads_the_standard_build():
    parsed = hpcc.parse_hpccoutf((DATA / "hpccoutf_standard_n1024_np2.txt").read_text())
    assert parsed == {
        "ranks": 2,
        "log2_table": 20,
        "MPIRandomAccess_N": 1048576,
        "MPIRandomAccess_time": 0.103877,
        "MPIRandomAccess_CheckTime": 0.096838,
        "MPIRandomAccess_Errors": 0,
        "MPIRandomAccess_ErrorsFraction": 0.0,
        "MPIRandomAccess_ExeUpdates": 4194304,
        "MPIRandomAccess_DefaultUpdates": 4194304,
        "MPIRandomAccess_GUPs": 0.0403777,
        "MPIRandomAccess_TimeBound": 60.0,
        "passed": True,
        "RandomAccess_N": 524288,
        "StarRandomAccess_GUPs": 1.380782,
        "SingleRandomAccess_GUPs": 1.413896,
    }


def test_reads_the_opt2_build():
    parsed = hpcc.parse_hpccoutf((DATA / "hpccoutf_opt2_n1024_np4.txt").read_text())
    assert parsed["ranks"] == 4 and parsed["log2_table"] == 20
    assert parsed["MPIRandomAccess_GUPs"] == 0.088284883
    assert parsed["MPIRandomAccess_Errors"] == 2780  # opt2 loses updates; <= 1 % passes
    assert parsed["MPIRandomAccess_ErrorsFraction"] == 2780 / 2**20
    assert parsed["MPIRandomAccess_TimeBound"] is None  # only the standard algorithm has one
    assert parsed["SingleRandomAccess_GUPs"] == 1.229449


def test_an_unfinished_output_is_refused():
    text = (DATA / "hpccoutf_opt2_n1024_np4.txt").read_text()
    with pytest.raises(ValueError, match="no complete SingleRandomAccess section"):
        hpcc.parse_hpccoutf(text[: text.index("End of SingleRandomAccess")])
    with pytest.raises(ValueError, match="MPIRandomAccess section has no GUP/s line"):
        hpcc.parse_hpccoutf(re.sub(r".*Updates    per second.*\n", "", text))


def _campaign(log2_table: int, ratios: dict[int, tuple[float, float]], errors: int = 0) -> dict:
    """A campaign whose routed / opt2 and baseline / standard are ``ratios[P]``."""
    runs = []
    for ranks, (routed, baseline) in ratios.items():
        runs += [
            {"code": "hpcc_standard", "ranks": ranks, "repeat": 0, "MPIRandomAccess_GUPs": 0.01,
             "MPIRandomAccess_Errors": 0, "MPIRandomAccess_ExeUpdates": 4, "SingleRandomAccess_GUPs": 0.1,
             "RandomAccess_N": 2**log2_table},
            {"code": "hpcc_opt2", "ranks": ranks, "repeat": 0, "MPIRandomAccess_GUPs": 0.1,
             "MPIRandomAccess_Errors": 5, "MPIRandomAccess_ExeUpdates": 4, "SingleRandomAccess_GUPs": 0.1,
             "RandomAccess_N": 2**log2_table},
            {"code": "spikex_routed", "ranks": ranks, "repeat": 0, "gups": 0.1 * routed, "errors": errors},
            {"code": "spikex_routed", "ranks": ranks, "repeat": 1, "gups": 0.05, "errors": 0},
            {"code": "spikex_routed_mpi", "ranks": ranks, "repeat": 0, "gups": 0.08 * routed, "errors": 0},
            {"code": "spikex_baseline", "ranks": ranks, "repeat": 0, "gups": 0.01 * baseline, "errors": 0},
        ]  # fmt: skip
    campaign = {"log2_table": log2_table, "runs": runs,
                "memory_limit": {"ns_per_update": 5.0}}  # fmt: skip
    campaign["best"] = gups_hpcc.best_table(runs)
    campaign["targets"] = gups_hpcc.target_cases(campaign)
    return campaign


def _met(campaigns: list[dict]) -> dict:
    return {t["target"]: t["met"] for t in gups_hpcc.overall_targets(campaigns)}


def test_targets():
    both = {1: (2.0, 3.0), 2: (1.6, 2.5), 4: (1.5, 2.0)}
    at24 = _campaign(24, both)
    row = at24["best"][0]
    assert row["routed_vs_opt2"] == pytest.approx(2.0)  # the best of the repeats counts
    assert row["baseline_vs_standard"] == pytest.approx(3.0)
    # 2^26 not measured: routed vs opt2 is not decided yet; the others are met
    assert _met([at24]) == {"routed_vs_opt2": None, "baseline_vs_standard": True,
                            "zero_errors": True, "memory_limit": False}  # fmt: skip
    targets = gups_hpcc.overall_targets([at24])
    assert targets[0]["missing"] == "2^26 words at P = 1, 2, 4"
    # P = 1, routed and baseline at 0.2 GUPS: 5 ns per update, the limit itself
    assert _met([_campaign(24, {**both, 1: (2.0, 20.0)}), _campaign(26, both)]) == {
        "routed_vs_opt2": True, "baseline_vs_standard": True, "zero_errors": True,
        "memory_limit": True,
    }  # fmt: skip
    # one required case below its threshold, or one wrong word, fails the target
    assert _met([at24, _campaign(26, {**both, 2: (1.4, 2.5)})])["routed_vs_opt2"] is False
    assert _met([_campaign(24, {**both, 4: (1.5, 1.9)})])["baseline_vs_standard"] is False
    assert _met([_campaign(24, both, errors=1)])["zero_errors"] is False
    # a wrong word counts at any table size, a ratio only where the issue asks for it
    assert _met([at24, _campaign(20, {1: (0.1, 0.1)}, errors=1)])["zero_errors"] is False
    assert _met([at24, _campaign(20, {1: (0.1, 0.1)})])["baseline_vs_standard"] is True


def test_time_split_of_the_best_routed_runs():
    campaign = _campaign(24, {2: (1.6, 2.5), 4: (1.5, 2.0)})
    split = {"other": 0.0, "generate_inject": 0.2, "local_apply": 0.1, "receive": 0.3,
             "wait": 1.2, "finish": 0.2}  # fmt: skip
    for run in campaign["runs"]:
        if run["code"] == "spikex_routed" and run["ranks"] == 4:
            run.update(time_s=0.5, time_split_s=split, cpu_s=1.0,
                       context_switches={"voluntary": 10, "involuntary": 90})  # fmt: skip
    rows = gups_hpcc.time_split_rows(campaign)
    # only the best of the runs that recorded a split (P = 4, mailboxes), as shares of P x time
    assert [(r["code"], r["ranks"]) for r in rows] == [("spikex_routed", 4)]
    assert rows[0]["shares"]["wait"] == pytest.approx(0.6)
    assert rows[0]["on_core"] == pytest.approx(0.5) and rows[0]["context_switches"] == 100
    block = "\n".join(gups_hpcc._time_split_lines(campaign))
    assert "| 4 | mailboxes | 0.15 | 0 % | 10 % | 5 % | 15 % | 60 % | 10 % | 50 % | 100 |" in block


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--hpcc", "--np-list", "1,two"], "--np-list = '1,two': must be rank counts"),
        (["--hpcc", "--np-list", "0,2"], "must be distinct rank counts >= 1"),
        (["--hpcc", "--log2-table", "40"], "--log2-table = 40: must be between 4 and 34"),
        (["--hpcc", "--repeat", "0"], "--repeat = 0: must be >= 1"),
        (["--docs-only"], "--docs-only and --check-docs go with --hpcc"),
    ],
)
def test_bad_arguments_are_one_line(capsys, argv, message):
    assert gups.main(argv) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and message in error and error.startswith("gups.py: ")


def test_docs_table_is_generated_from_the_results():
    results = json.loads((REPO / "bench" / "results" / "gups_hpcc.json").read_text())
    assert {c["log2_table"] for c in results["campaigns"]} >= {24}
    text = gups_hpcc.DOC.read_text(encoding="utf-8")
    assert text == gups_hpcc.doc_with_block(text, results), (
        "docs/user/gups.md's gups-hpcc block differs from bench/results/gups_hpcc.json: "
        "run `python bench/gups.py --hpcc --docs-only`"
    )
