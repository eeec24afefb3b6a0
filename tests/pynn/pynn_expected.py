"""The list of scenarios that passed before (``expected_pass.txt``) and the check against it.

A scenario in the list that does not pass now is a regression and fails ``make
test-pynn``; one that passes and is not in the list is only reported, until someone
rewrites the list (``harness.py --update-expected``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

EXPECTED = Path(__file__).resolve().parent / "expected_pass.txt"
HEADER = """\
# PyNN scenarios (module::function) that spikex.pynn passed: `make test-pynn` fails if one
# of them does not pass. Rewritten with the current passes by
# `python tests/pynn/harness.py --update-expected`.
"""


def read_expected(path: Path = EXPECTED) -> list[str]:
    if not path.is_file():
        return []
    lines = (line.strip() for line in path.read_text().splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def write_expected(passing: list[str], path: Path = EXPECTED) -> None:
    path.write_text(HEADER + "".join(f"{scenario}\n" for scenario in sorted(passing)))


@dataclass
class Check:
    regressions: list[str]  # expected to pass, and do not (or no longer exist)
    newly_passing: list[str]  # pass, not in the list

    @property
    def ok(self) -> bool:
        return not self.regressions


def check(results: dict[str, str], expected: list[str]) -> Check:
    """``results`` maps every scenario that ran to its result."""
    regressions = [scenario for scenario in expected if results.get(scenario) != "pass"]
    newly = [
        scenario
        for scenario, result in results.items()
        if result == "pass" and scenario not in expected
    ]
    return Check(regressions, newly)
