"""docs/user/checkpoint.md's cost tables are generated from bench/results/checkpoint.json
and checkpoint_restore.json (bench/checkpoint.py): --check-docs regenerates both blocks from
the JSON and fails when the page differs."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO


def test_blocks_are_generated_from_the_result_files():
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "checkpoint.py"), "--check-docs"],
        cwd=REPO / "bench",
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
