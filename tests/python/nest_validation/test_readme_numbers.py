"""The README's figures against NEST are generated from bench/results/vs_nest.json
(bench/readme_numbers.py), and bench/vs_nest.py keeps every campaign in that file."""

from __future__ import annotations

import json
import sys

import pytest
from conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
import readme_numbers

RESULTS = json.loads((REPO / "bench" / "results" / "vs_nest.json").read_text(encoding="utf-8"))


def test_readme_block_is_generated_from_vs_nest_json():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    expected = readme_numbers.readme_with_block(text, readme_numbers.vs_nest_block(RESULTS))
    assert text == expected, (
        "README.md's vs_nest block differs from bench/results/vs_nest.json: "
        "run `python bench/readme_numbers.py`"
    )


def test_readme_microcircuit_block_is_generated_from_its_json():
    import vs_nest_microcircuit

    result = json.loads((REPO / "bench" / "results" / "vs_nest_microcircuit.json").read_text())
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = vs_nest_microcircuit.readme_block(result)
    assert "simulate" in block and "memory per synapse" in block
    expected = readme_numbers.readme_with_block(text, block, "vs_nest_microcircuit")
    assert text == expected, (
        "README.md's vs_nest_microcircuit block differs from "
        "bench/results/vs_nest_microcircuit.json: run `python bench/vs_nest_microcircuit.py "
        "--report-only`"
    )


def test_readme_says_what_the_microcircuit_validation_shows():
    """Generated from the comparison's JSON: the count that agrees and each that does not
    (issue 52: the README said every statistic agreed while L6I synchrony did not)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = readme_numbers.microcircuit_block()
    assert text == readme_numbers.readme_with_block(text, block, "microcircuit_validation"), (
        "README.md's microcircuit_validation block differs from "
        "bench/results/nest_microcircuit/compare_spikex_full.json: run `python bench/readme_numbers.py`"
    )
    comparison = json.loads(readme_numbers.MICROCIRCUIT_JSON.read_text(encoding="utf-8"))
    entries = [e for pop in comparison["populations"].values() for e in pop.values()]
    agreeing = sum(e["agrees"] for e in entries)
    assert f"{agreeing} of the {len(entries)} statistics" in block
    for population, statistics in comparison["populations"].items():
        for statistic, entry in statistics.items():
            if not entry["agrees"]:
                assert f"{population} " in block.split("Not within it:")[1]
    assert "rates, CVs and synchrony agree with NEST" not in text


def test_vs_nest_json_keeps_its_campaigns():
    campaigns = readme_numbers.campaigns(RESULTS)
    assert len(campaigns) >= 3  # the three campaigns of 2026-11-23
    latest = {k: v for k, v in RESULTS.items() if k != "campaigns"}
    assert campaigns[-1] == latest


def _campaign(date: str, nest_s: float, spikex_s: float) -> dict:
    def row(simulator, seconds):
        return {
            "simulator": simulator,
            "run": f"{simulator}_run",
            "measured": {"date_utc": date},
            "s": seconds,
        }

    return {
        "scale": 1.0,
        "indegree": 11250,
        "presim_ms": 100.0,
        "tsim_ms": 1000.0,
        "stdp_tsim_ms": 100.0,
        "machine": {"cpu": "CPU", "cores": 2},
        "rows": [row("nest", nest_s), row("spikex", spikex_s)],
        "ratios": [
            {
                "plastic": plastic,
                "cores": cores,
                "simulate_ratio": spikex_s / nest_s,
                "memory_ratio": 0.5,
            }
            for plastic in (False, True)
            for cores in (1, 2)
        ],
        "failed": [],
    }


def test_campaigns_accumulate_and_the_block_spans_them():
    sys.path.insert(0, str(REPO / "bench" / "nest"))
    pytest.importorskip("numpy")
    import vs_nest

    first = _campaign("2026-01-01 10:00", 10.0, 1.0)
    second = _campaign("2026-01-02 10:00", 10.0, 2.0)
    old_format = dict(first)  # a file written before campaigns were kept
    kept = vs_nest.with_campaign(old_format, second)
    assert [c["rows"][0]["measured"]["date_utc"] for c in kept["campaigns"]] == [
        "2026-01-01 10:00",
        "2026-01-02 10:00",
    ]
    assert kept["rows"] == second["rows"]
    assert vs_nest.with_campaign(kept, second) == kept  # the same runs again: replaced, not added
    block = readme_numbers.vs_nest_block(kept)
    assert "2 campaigns" in block and "0.10–0.20 of NEST's time on one core" in block
    assert "over the first 100 ms after the 100 ms presim" in block
    assert "scaled to one biological second" in block


def test_missing_markers_are_an_error():
    with pytest.raises(ValueError, match="vs_nest:begin"):
        readme_numbers.readme_with_block("no markers here", "block")


def test_readme_small_networks_block_is_generated_from_its_json():
    """Issue 60: the README's figures against Brian2 come from bench/results/small_networks.json."""
    sys.path.insert(0, str(REPO / "bench" / "brian2"))
    import small_networks

    result = json.loads((REPO / "bench" / "results" / "small_networks.json").read_text(encoding="utf-8"))
    block = small_networks.readme_block(result)
    assert "Brunel 5,000 cells" in block and "VA CUBA" in block
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert text == readme_numbers.readme_with_block(text, block, "small_networks"), (
        "README.md's small_networks block differs from bench/results/small_networks.json: run "
        "`python bench/brian2/small_networks.py --page-only`"
    )
