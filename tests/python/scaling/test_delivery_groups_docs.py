"""docs/user/model.md's table of the time model on the microcircuit is generated from
bench/results/delivery_groups.json (bench/delivery_groups.py): --check-docs regenerates
the block from the JSON and fails when the page differs."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import REPO


def test_block_is_generated_from_the_result_file():
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "delivery_groups.py"), "--check-docs"],
        cwd=REPO / "bench",
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_result_file_counts_what_the_dry_run_counts():
    result = json.loads((REPO / "bench" / "results" / "delivery_groups.json").read_text())
    for case in result["cases"]:
        assert case["delivery_groups"] == case["dry_run_delivery_groups"]
        assert case["delivery_groups"] > 10 * case["spikes_matched"]  # many delay groups a spike
