"""docs/validation/hines_vs_neuron.md is the page bench/neuron/hines_vs_neuron.py writes
from bench/results/hines_vs_neuron.json (regenerate: ``--report-only``). NEURON itself is
not run here: the comparison is a benchmark (`make bench-neuron`)."""

from __future__ import annotations

import json
import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "bench" / "neuron"))
import hines_vs_neuron as bench


def test_page_is_generated_from_the_results():
    results = json.loads(bench.RESULTS.read_text())
    assert bench.PAGE.read_text() == bench.report(results), (
        "stale: python bench/neuron/hines_vs_neuron.py --report-only"
    )
    assert {run["simulator"] for run in results["runs"]} == {"spikex", "neuron"}
    assert all(run["load_1min_before"] is not None for run in results["runs"])
    assert all(entry["spike_counts_comparable"] for entry in results["comparisons"])
