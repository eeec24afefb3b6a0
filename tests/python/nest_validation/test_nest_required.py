"""A missing NEST skips the NEST validation tests outside CI and fails them under CI
(``CI=true``): the run cannot pass silently without the validation. NEST is made missing
by pointing ``SPIKEX_NEST_PYTHON`` (bench/nest/run_exact.py) at an interpreter that does
not exist."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from conftest import REPO

# Found wherever the test folders put it.
EXACT_MATCH = next(REPO.glob("tests/python/**/test_nest_exact_match.py"))


def _run_exact_match_tests(tmp_path, ci: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["SPIKEX_NEST_PYTHON"] = str(tmp_path / "no-nest" / "bin" / "python")
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rsf", "-p", "no:cacheprovider", str(EXACT_MATCH)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize("ci", ["true", "1"])
def test_missing_nest_fails_under_ci(tmp_path, ci):
    done = _run_exact_match_tests(tmp_path, ci)
    output = done.stdout + done.stderr
    # exit 1: tests failed (their set-up, where NEST is checked); not 0 (passed or skipped),
    # not 5 (none collected)
    assert done.returncode == 1, output
    assert re.search(r"\b3 (failed|errors)\b", output), output
    assert "passed" not in output and "skipped" not in output, output
    assert "NEST 3.10 not available" in output and "no-nest" in output, output
    assert "Under CI=true the NEST validation must run" in output, output


def test_missing_nest_skips_with_reason_outside_ci(tmp_path):
    done = _run_exact_match_tests(tmp_path, None)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "3 skipped" in output and "failed" not in output, output
    assert "NEST 3.10 not available" in output and "does not exist" in output, output
