"""docs/methods/multisend.md "Measured here": its tables are generated from
bench/results/methods.json (bench/methods.py), every cell from a run of the file, and every
run of a network gave the same spikes."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
import methods

RESULTS = REPO / "bench" / "results" / "methods.json"
DOC = REPO / "docs" / "methods" / "multisend.md"


def test_the_tables_are_generated_from_the_result_file():
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "methods.py"), "--check-docs"],
        cwd=REPO / "bench", capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_every_run_is_in_the_tables_and_the_spikes_agree():
    result = json.loads(RESULTS.read_text(encoding="utf-8"))
    block = methods.docs_block(result)
    assert block in DOC.read_text(encoding="utf-8")
    parameters = result["parameters"]
    assert len(result["runs"]) == len(parameters["networks"]) * len(parameters["variants"]) * len(
        parameters["ranks"]
    )
    for run in result["runs"]:
        assert methods._run_cell(run) in block, run
        if run["ranks"] > 1:
            assert methods._traffic_cell(run) in block, run
    assert all(result["spikes_sha256_agree"].values())
    for network in parameters["networks"]:
        assert len({r["spikes_sha256"] for r in result["runs"] if r["network"] == network}) == 1
