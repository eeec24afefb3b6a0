"""examples/papers/: every configuration validates and every experiment is a valid sweep.

Dry checks only (nothing is run): the configurations parse and validate through
``spikex.config``, and every sweep of the manifest plans through
``spikex.compare.comparison``, which checks its methods against the registry, its
overrides and its rank counts.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO
from spikex.compare.comparison import plan_comparison
from spikex.compare.method_variants import parse_method_variants
from spikex.compare.run_metrics import METRIC_NAMES
from spikex.config import resolved_config
from spikex.results.experiments import load_experiments
from spikex.results.machine import MachineDescription
from spikex.results.published import PUBLISHED
from spikex.results.report import write_report
from spikex.results.runner import SweepResult

PAPERS = REPO / "examples" / "papers"
MANIFEST = PAPERS / "experiments.toml"
CONFIGS = sorted(path for path in PAPERS.glob("*.toml") if path != MANIFEST)


def test_there_are_paper_configurations():
    assert len(CONFIGS) >= 6


@pytest.mark.parametrize("config", CONFIGS, ids=lambda path: path.name)
def test_paper_configuration_validates(config: Path):
    resolved = resolved_config(config)
    assert resolved["simulation"]["tstop_ms"] > 0
    text = config.read_text()
    assert "Original" in text and "Here" in text, f"{config.name} must document both sizes"


@pytest.mark.parametrize("quick", [False, True], ids=["configured", "quick"])
def test_every_sweep_of_the_manifest_plans(quick: bool, tmp_path: Path):
    experiments = load_experiments(MANIFEST, quick=quick)
    assert {experiment.config for experiment in experiments} == set(CONFIGS)
    for experiment in experiments:
        for sweep in experiment.sweeps:
            plan = plan_comparison(
                sweep.config, sweep.methods, sweep.ranks, repeat=sweep.repeat,
                overrides=sweep.overrides, per_rank=sweep.per_rank, outdir=tmp_path / sweep.key,
            )  # fmt: skip
            assert len(plan.runs) == len(sweep.methods) * len(sweep.ranks) * sweep.repeat
    assert not any(tmp_path.iterdir()), "planning must not write anything"


def test_every_experiment_has_published_numbers_and_named_methods():
    for experiment in load_experiments(MANIFEST):
        assert experiment.published in PUBLISHED, experiment.name
        assert experiment.original and experiment.discussion, experiment.name
        labels = {variant.label for variant in parse_method_variants(experiment.sweeps[0].methods)}
        assert set(experiment.paper_methods.values()) <= labels, experiment.name


def test_table3_is_the_product_of_its_axes():
    (table3,) = [e for e in load_experiments(MANIFEST) if e.name == "hines2011_table3"]
    assert len(table3.sweeps) == 3 * 2 * 2
    assert table3.sweeps[-1].variant == "random_shuffle-adjacent-burst"
    assert table3.sweeps[-1].overrides[-3:] == (
        "distribution.scheme=random_shuffle",
        "network.connectivity=adjacent",
        "network.burst.groups=8",
    )


def fake_comparison(sweep) -> dict:
    """A compare.json-shaped result for a sweep, every metric 1.0 (no run needed)."""
    labels = [variant.label for variant in parse_method_variants(sweep.methods)]
    metrics = {name: {"median": 1.0, "min": 1.0, "max": 1.0, "spread": 0.0, "count": 1}
               for name in METRIC_NAMES}  # fmt: skip
    runs = [
        {"name": f"{label} np={ranks} r1", "method": label, "ranks": ranks}
        for label in labels
        for ranks in sweep.ranks
    ]
    return {
        "created": "2000-01-01T00:00:00+00:00",
        "methods": [{"label": label} for label in labels],
        "ranks": list(sweep.ranks),
        "per_rank": list(sweep.per_rank),
        "spikes_agree": True,
        "spikes_sha256": "0" * 64,
        "networks": [
            {
                "label": "",
                "runs": [run["name"] for run in runs],
                "spikes_agree": True,
                "spikes_sha256": "0" * 64,
                "hash_groups": [{"spikes_sha256": "0" * 64, "spikes_total": 1, "runs": []}],
            }
        ],
        "runs": runs,
        "combinations": [
            {"method": label, "ranks": ranks, "cells": 100, "metrics": metrics}
            for label in labels
            for ranks in sweep.ranks
        ],
    }


def test_report_has_a_section_per_experiment_with_measured_and_published_tables(tmp_path):
    experiments = load_experiments(MANIFEST)
    results = {
        experiment.name: [
            SweepResult(sweep=sweep, outdir=tmp_path, comparison=fake_comparison(sweep))
            for sweep in experiment.sweeps
        ]
        for experiment in experiments
    }
    machine = MachineDescription("today", "cpu", 2, 8.0, "mpi", "0.0", "0", "commit x")
    report = tmp_path / "results.md"
    write_report(report, experiments, results, machine, quick=False)
    text = report.read_text()
    for number, experiment in enumerate(experiments, start=1):
        assert f"## {number}. {experiment.title} ({experiment.reference})" in text
        assert experiment.sweeps[0].command_line() in text
    assert text.count("### Measured here") == len(experiments)
    assert text.count("### What carries over to this machine") == len(experiments)
    assert "| 64K | 2M | 1k | 2.98 | 5.05 |" in text  # Hines Table 1, as published
    assert "| round_robin | Multisend |" in text  # Table 3 layout: distribution x method
