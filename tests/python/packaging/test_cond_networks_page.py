"""docs/validation/cond_networks_vs_nest.md is the page bench/nest/cond_networks_vs_nest.py
writes from bench/results/cond_networks_vs_nest.json and model_step_cost.json (regenerate:
``--report-only``; `make bench-cpp` does)."""

from __future__ import annotations

import json
import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "bench" / "nest"))
import cond_networks_vs_nest as bench


def test_page_is_generated_from_the_results():
    results = json.loads(bench.RESULTS.read_text())
    assert bench.PAGE.read_text() == bench.report(results), (
        "stale: python bench/nest/cond_networks_vs_nest.py --report-only"
    )
    for entry in results["networks"].values():
        assert set(entry["runs"]) == set(bench.SIMULATORS)
        assert all(
            run["load_1min_before"] is not None for runs in entry["runs"].values() for run in runs
        )
