"""docs/scaling.md section 5 (the time model on an emulated TCP cluster) is generated from
bench/results/cluster_time_model.json (bench/cluster_time_model.py), and the profiles it
predicts with are the ones fitted there."""

from __future__ import annotations

import json
import sys

import pytest
from conftest import REPO
from spikex.scaling.report import cluster_section, write_report
from spikex.scaling.time_model import load_profile

sys.path.insert(0, str(REPO / "bench"))
import cluster_time_model  # noqa: E402

RESULT = REPO / "bench" / "results" / "cluster_time_model.json"
pytestmark = pytest.mark.skipif(
    not RESULT.is_file(), reason="no bench/results/cluster_time_model.json"
)


def load_result() -> dict:
    return json.loads(RESULT.read_text(encoding="utf-8"))


def test_scaling_md_section_5_is_generated_from_the_json():
    text = (REPO / "docs" / "scaling.md").read_text(encoding="utf-8")
    section = "\n".join(cluster_section(load_result()))
    assert section in text, (
        "docs/scaling.md section 5 differs from bench/results/cluster_time_model.json: run "
        "`python bench/cluster_time_model.py --docs-only`"
    )


def test_the_whole_report_regenerates_unchanged(tmp_path):
    validation = json.loads(
        (REPO / "docs" / "scaling" / "validation.json").read_text(encoding="utf-8")
    )
    write_report(tmp_path / "scaling.md", validation, cluster=load_result())
    assert (tmp_path / "scaling.md").read_text(encoding="utf-8") == (
        REPO / "docs" / "scaling.md"
    ).read_text(encoding="utf-8")


def test_table_rows_follow_from_runs_and_dry_runs():
    result = load_result()
    assert {row["rate"] for row in result["table"]} == set(result["rates"])
    for row in result["table"]:
        runs = result["runs"][row["rate"]][str(row["ranks"])][row["method"]]
        assert len(runs) == result["repeats"]
        values = sorted(run["interval_mean_s"] for run in runs)
        assert row["measured_s"] == pytest.approx(values[len(values) // 2])
        for run in runs:  # the load was recorded around every measurement
            assert len(run["load_before"]) == 3 and len(run["load_after"]) == 3
        predicted = result["dryrun"][str(row["ranks"])]["methods"][row["method"]]["predicted_s"]
        assert row["predicted_s"] == predicted[f"netns-{row['rate']}"]
        assert row["ratio"] == pytest.approx(row["predicted_s"] / row["measured_s"])


@pytest.mark.parametrize("rate", ("1gbit", "100mbit"))
def test_fitted_profiles_load(rate):
    profile = load_profile(REPO / "profiles" / f"netns-{rate}.toml")
    assert profile.name == f"netns-{rate}"
    fitted = load_result()["fits"][rate]["micro_benchmark"]
    assert profile.latency_s == pytest.approx(fitted["latency_s"], rel=1e-3)
    assert profile.bandwidth_bytes_per_s == pytest.approx(fitted["bandwidth_bytes_per_s"], rel=1e-3)


def test_the_findings_are_of_this_run_or_say_whose_they_are():
    result = load_result()
    findings = result.get("findings", [])
    assert findings, "section 5 has no analysis: write `findings` into the results file"
    marker = cluster_time_model.EARLIER_FINDINGS.split("{", 1)[0]
    assert result["date"][:10] in findings[0] or findings[0].startswith(marker)


def test_a_new_run_keeps_the_earlier_findings_marked_once():
    earlier = {"date": "2026-11-24 07:49 UTC", "findings": ["analysis", "* a point"]}
    new = {"date": "2026-11-26 15:51 UTC"}
    assert cluster_time_model.keep_earlier_findings(earlier, new)
    assert new["findings"][0].startswith("*The analysis below is of the run of 2026-11-24 07:49 UTC")
    assert new["findings"][2:] == ["analysis", "* a point"]
    newer = {"date": "2026-11-27 10:00 UTC"}
    assert cluster_time_model.keep_earlier_findings(new, newer)
    assert newer["findings"] == new["findings"]  # still the run they analyse, marked once
    assert not cluster_time_model.keep_earlier_findings({"date": "x"}, {})
