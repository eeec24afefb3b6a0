"""``make bench-memory`` (bench/memory_limits.py): every table size of the hpcc campaigns is
measured on its own, the docs table has a pair of columns per size, each target is held
against the limit of its own table size, and files of the one-size format still read."""

from __future__ import annotations

import json
import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
import gups_hpcc
import memory_limits
from readme_numbers import readme_with_block


def _one_core(log2_table: int, ns: float) -> dict:
    return {"table_words": 2**log2_table, "table_mib": 2**log2_table * 8 >> 20, "huge_pages": True,
            "latency_ns": 100.0 + log2_table,
            "blocks": [{"k": k, "prefetch": kind, "ns_per_update": ns * (2.0 if k == 1 else 1.0) + (kind == "L1"),
                        "gups": 1.0 / ns} for kind in ("L1", "L2") for k in (1, 16, 128, 256, 512)]}  # fmt: skip


def _all_cores(log2_table: int, ns: float) -> dict:
    best = {"k": 128, "prefetch": "L2", "ns_per_update": ns, "gups": 2 / ns}
    return {"processes": 2, "log2_table": log2_table - 1, "blocks": [best], "best": best}


def _result() -> dict:
    return {
        "date_utc": "2026-11-27 05:10",
        "machine": {"cpus": 2, "load_average": [1.0, 1.0, 1.0], "load_average_start": [2.0, 1.0, 1.0]},
        "tables": [
            {"log2_table": 24, "one_core": _one_core(24, 7.0), "all_cores": _all_cores(24, 5.0)},
            {"log2_table": 26, "one_core": _one_core(26, 13.0), "all_cores": _all_cores(26, 10.0)},
        ],
        "gups": [{"ranks": p, "algorithm": "routed", "log2_table": t, "gups": 0.1 * p,
                  "ns_per_update_per_rank": 10.0, "errors": 0, "passed": True}
                 for t in (24, 26) for p in (1, 2)],
    }


def test_the_sizes_are_the_hpcc_campaigns():
    assert memory_limits.LOG2_TABLES == (24, 26)


def test_docs_table_has_a_column_pair_per_table_size(tmp_path, monkeypatch):
    hpcc = tmp_path / "gups_hpcc.json"
    target = {"target": "routed_vs_opt2", "ranks": 2, "threshold": 1.5}
    hpcc.write_text(json.dumps({"campaigns": [
        {"targets": [{**target, "log2_table": 24, "reference": 0.2}]},
        {"targets": [{**target, "log2_table": 26, "reference": 0.1}]},
    ]}))  # fmt: skip
    monkeypatch.setattr(memory_limits, "HPCC", hpcc)
    block = memory_limits.docs_block(_result())
    lines = block.splitlines()
    assert "| | 2^24 words: ns | GUPS | 2^26 words: ns | GUPS |" in lines
    assert "| DRAM latency (pointer chase over the table) | 124 | – | 126 | – |" in lines
    assert any(line.startswith("| random XOR updates on all 2 cores at once") and "| 5.0 (128, into L2) | 0.400 |"
               in line and "| 10.0 (128, into L2) | 0.200 |" in line for line in lines)  # fmt: skip
    assert "| `spikex gups` routed, P = 2 | 10.0 | 0.200 | 10.0 | 0.200 |" in lines
    # each size's target against the ceiling of its own size: 1.5 x 0.2 of 0.4, 1.5 x 0.1 of 0.2
    assert "is 0.300 GUPS, 75% of it" in block and "2^23 words each" in block
    assert "is 0.150 GUPS, 75% of it" in block and "2^25 words each" in block
    assert "routed reaches 0.200 GUPS, 50% of it" in block  # 2^24's ceiling 0.4
    assert "routed reaches 0.200 GUPS, 100% of it" in block  # 2^26's ceiling 0.2


def test_targets_use_the_limit_of_their_table_size(tmp_path):
    path = tmp_path / "memory_limits.json"
    path.write_text(json.dumps(_result()))
    limit = gups_hpcc.memory_limit(24, path)
    assert limit["table_words"] == 2**24 and limit["ns_per_update"] == 7.0 and limit["in_flight"] == 16
    assert gups_hpcc.memory_limit(26, path)["ns_per_update"] == 13.0
    assert gups_hpcc.memory_limit(22, path) is None  # not measured: no limit, no verdict
    # a file of the one-size format (before 2026-11-27 04:40 UTC) gives its size only
    old = _result()
    old["memory"] = old.pop("tables")[1]["one_core"]
    path.write_text(json.dumps(old))
    assert gups_hpcc.memory_limit(24, path) is None
    assert gups_hpcc.memory_limit(26, path)["ns_per_update"] == 13.0
    assert [t["log2_table"] for t in memory_limits.tables_of(old)] == [26]


def test_docs_block_is_generated_from_the_result_file():
    text = memory_limits.DOCS.read_text(encoding="utf-8")
    result = json.loads(memory_limits.OUTPUT.read_text(encoding="utf-8"))
    assert text == readme_with_block(text, memory_limits.docs_block(result), memory_limits.BLOCK), (
        "docs/user/gups.md's memory-limits block is stale: .venv/bin/python bench/memory_limits.py --docs-only"
    )
