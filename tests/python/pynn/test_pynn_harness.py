"""The PyNN scenario harness (tests/pynn/) on tiny synthetic scenarios: collection, the
classification of each way a scenario can end, the expected list and the report. Nothing
is downloaded: a package of fake scenarios and a fake backend are written to tmp_path."""

from __future__ import annotations

import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import REPO

sys.path.insert(0, str(REPO / "tests" / "pynn"))
from pynn_child import classify
from pynn_collect import collect
from pynn_expected import check, read_expected, write_expected
from pynn_report import summary, write_markdown
from pynn_run import Outcome, run_scenario

# Written as PyNN's are: a package, a parametrize mark over `sim` on each scenario.
SCENARIOS = """
import os
import time
import pytest

on_every_simulator = pytest.mark.parametrize("sim", ["nest", "neuron"])

@on_every_simulator
def test_passes(sim):
    assert sim.ANSWER == 42
    assert os.environ["OMP_NUM_THREADS"] == "1"
    open("written_into_cwd.pkl", "w").close()  # a temporary directory, not the repo

@on_every_simulator
def test_not_implemented(sim):
    raise NotImplementedError("no gap junctions")

@on_every_simulator
def test_skips(sim):
    pytest.skip("scipy not available")

@on_every_simulator
def test_asserts(sim):
    assert sim.ANSWER == 0, "wrong answer"

@on_every_simulator
def test_hangs(sim):
    time.sleep(60)

@on_every_simulator
def test_crashes(sim):
    os._exit(3)

@on_every_simulator
def issue1(sim):  # marked, but pytest would not collect it
    pass

def test_helper(n):  # not marked: a helper, not a scenario
    pass
"""

# Long enough for a child that imports pytest on a loaded 2-core machine (1 s was not:
# every scenario timed out while other work shared the cores); only test_hangs waits it out.
SCENARIO_TIMEOUT_S = 10.0

EXPECTED = {
    "test_passes": ("pass", ""),
    "test_not_implemented": ("not-supported", "no gap junctions"),
    "test_skips": ("skipped", "scipy not available"),
    "test_asserts": ("fail", "AssertionError: wrong answer"),
    "test_hangs": ("fail", f"timeout (after {SCENARIO_TIMEOUT_S:g} s)"),
    "test_crashes": ("fail", "crashed (exit 3)"),
}


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory) -> Path:
    """The parent folder of a package `fake_scenarios` and of a backend `fake_backend`."""
    parent = tmp_path_factory.mktemp("synthetic")
    (parent / "fake_scenarios").mkdir()
    (parent / "fake_scenarios" / "__init__.py").write_text("")
    (parent / "fake_scenarios" / "test_fake.py").write_text(textwrap.dedent(SCENARIOS))
    helpers = parent / "fake_scenarios" / "helpers.py"  # not a test module: never imported
    helpers.write_text("raise ImportError('imported a helper module')\n")
    (parent / "fake_backend.py").write_text("ANSWER = 42\n")
    return parent


@pytest.fixture(scope="module")
def outcomes(synthetic) -> dict[str, Outcome]:
    """Every synthetic scenario run once through the harness (in parallel, like it does)."""
    scenarios = collect(synthetic, package="fake_scenarios")
    with ThreadPoolExecutor(max_workers=len(scenarios)) as pool:
        done = pool.map(
            lambda s: run_scenario(s, synthetic, "fake_backend", timeout=SCENARIO_TIMEOUT_S),
            scenarios,
        )
    return {outcome.id.split("::")[1]: outcome for outcome in done}


def test_collects_the_marked_test_functions_in_source_order(synthetic):
    scenarios = collect(synthetic, package="fake_scenarios")
    assert [s.id for s in scenarios] == [f"test_fake::{name}" for name in EXPECTED]


@pytest.mark.slow
@pytest.mark.parametrize("name", list(EXPECTED))
def test_classifies_each_way_a_scenario_ends(outcomes, name):
    outcome = outcomes[name]
    assert (outcome.result, outcome.reason) == EXPECTED[name], outcome.output


def test_a_missing_backend_fails_every_scenario_with_the_import_error(synthetic):
    scenario = collect(synthetic, package="fake_scenarios")[0]
    outcome = run_scenario(scenario, synthetic, "no_such_backend", timeout=30.0)
    assert outcome.result == "fail"
    assert outcome.reason == "ModuleNotFoundError: No module named 'no_such_backend'"


def test_pynn_errors_for_missing_models_are_not_supported_and_others_fail():
    errors = pytest.importorskip("pyNN.errors")
    assert classify(errors.InvalidModelError("no HH")) == ("not-supported", "no HH")
    assert classify(errors.NoModelAvailableError("no STDP")) == ("not-supported", "no STDP")
    result, reason = classify(errors.InvalidParameterValueError("tau_m < 0"))
    assert result == "fail" and reason == "pyNN.errors.InvalidParameterValueError: tau_m < 0"


def test_a_reason_is_one_line_of_at_most_200_characters():
    result, reason = classify(ValueError("\n" + "x" * 500 + "\nsecond line"))
    assert result == "fail" and len(reason) <= len("ValueError: ") + 200
    assert "second line" not in reason
    try:
        raise KeyError()  # no message: the reason says where it was raised
    except KeyError as error:
        assert classify(error)[1].startswith("KeyError (in pynn/test_pynn_harness.py:")


def test_check_names_regressions_and_newly_passing_but_fails_only_on_regressions(tmp_path):
    path = tmp_path / "expected_pass.txt"
    write_expected(["m::b", "m::a"], path)
    assert read_expected(path) == ["m::a", "m::b"]  # sorted; the header comment is skipped
    verdict = check({"m::a": "pass", "m::b": "fail", "m::c": "pass"}, read_expected(path))
    assert verdict.regressions == ["m::b"] and verdict.newly_passing == ["m::c"]
    assert not verdict.ok
    assert check({"m::a": "pass", "m::b": "pass", "m::c": "pass"}, read_expected(path)).ok
    assert check({"m::a": "pass"}, ["m::gone"]).regressions == ["m::gone"]  # not collected


@pytest.mark.slow  # the outcomes fixture waits out a hanging scenario
def test_report_counts_every_result_and_lists_every_scenario(tmp_path, outcomes):
    data = summary(
        list(outcomes.values()),
        pynn_version="0.13.0",
        backend="fake_backend",
        date="today",
        seconds=3.0,
        workers=2,
        timeout=SCENARIO_TIMEOUT_S,
    )
    assert data["counts"] == {"pass": 1, "fail": 3, "not-supported": 1, "skipped": 1}
    path = tmp_path / "pynn.md"
    write_markdown(data, path)
    text = path.read_text()
    assert "**1 pass, 3 fail, 1 not-supported, 1 skipped** (of 6)." in text
    assert "## Why fake_backend refuses 1 scenario" in text and "| 1 | no gap junctions |" in text
    assert "## Why 1 scenario skipped" in text and "| 1 | scipy not available |" in text
    assert all(f"`test_fake::{name}`" in text for name in EXPECTED)
