"""`spikex run --checkpoint-dir DIR` (CONTRACT.md): checkpoints go into DIR, a resume
from DIR gives the uninterrupted run's spikes."""

from __future__ import annotations

import json

import pytest
from conftest import run_cli, run_config, small_config  # noqa: F401 - fixture


@pytest.mark.slow  # a checkpointed run and its resume (make test-fast under 90 s)
def test_checkpoints_go_into_the_given_directory(tmp_path, small_config):
    whole = run_config(small_config, tmp_path / "whole")
    directory = tmp_path / "123"  # a name that also reads as a TOML number
    done = run_cli(
        ["run", str(small_config), "-o", str(tmp_path / "out"),
         "--checkpoint-every", "40", "--checkpoint-dir", str(directory)]
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (directory / "latest.json").exists()
    assert not (tmp_path / "out" / "checkpoints").exists()
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["config"]["checkpoint"]["dir"] == str(directory)
    first = sorted(directory.glob("ckpt-*"))[0]
    resumed = run_cli(["run", "--resume", str(first), "-o", str(tmp_path / "resumed")])
    assert resumed.returncode == 0, resumed.stderr
    again = json.loads((tmp_path / "resumed" / "summary.json").read_text())
    assert again["spikes_sha256"] == whole["spikes_sha256"]
