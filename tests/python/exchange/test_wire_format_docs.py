"""docs/methods/wire_format.md's measured tables are generated from their result files:
bench/results/wire_bytes.json (bench/wire_bytes.py), spike_codec.json
(bench/spike_codec.py) and codec_whole_runs.json (bench/codec_whole_runs.py). Each script's
--check-docs regenerates its block from the JSON and fails when the page differs."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import REPO

SCRIPTS = ("wire_bytes.py", "spike_codec.py", "codec_whole_runs.py")


@pytest.mark.parametrize("script", SCRIPTS)
def test_block_is_generated_from_the_result_file(script):
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / script), "--check-docs"],
        cwd=REPO / "bench",
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
