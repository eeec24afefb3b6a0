"""docs/performance.md is the page bench/performance_page.py makes from the result files
(numbers in docs come from result files), and its verdicts follow the goals."""

from __future__ import annotations

import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
import performance_page


def test_performance_page_is_current():
    assert performance_page.PAGE.read_text() == performance_page.page(), (
        "docs/performance.md is stale: python bench/performance_page.py"
    )


def test_every_issue_goal_has_a_section_with_rows_or_says_it_is_missing():
    text = performance_page.page()
    for title in (
        "Simulation time: hpc_benchmark",
        "Build time",
        "Peak memory",
        "Restores",
        "Hines",
        "SONATA",
    ):
        assert f"## {title}" in text
    assert "Not measured yet" in text or "| Hines 2011" in text


def test_verdicts():
    row = performance_page.Row("b", "l", spikex=3.0, peer=10.0, unit="s", goal=0.2)
    assert performance_page._verdict(row, on_spikex=False) == "**not met**"  # 0.3 > 0.2
    row.goal = 0.3
    assert performance_page._verdict(row, on_spikex=False) == "met"
    assert performance_page._verdict(row, on_spikex=True) == "**not met**"  # 3.0 > 0.3 itself
    assert (
        performance_page._verdict(performance_page.Row("b", "l", None, 1.0, "s", 0.2), False) == "—"
    )
