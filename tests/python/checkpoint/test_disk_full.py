"""A disk that fills up during a run: the run ends with exit status 3 and a clear line, and
the last complete checkpoint stays intact and resumes to the spikes of a run that never
stopped. The disk is a 3 MB tmpfs (needs root to mount; skipped otherwise)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import marked, run_cli, run_config, write_config
from spikex.launch.launcher import child_environment, mpiexec_command

RUN = """
[simulation]
tstop_ms = 3000.0
seed = 5

[network]
cells = 2000
indegree = 40
indegree_spread = 10
weight = 0.002
"""


@pytest.fixture
def small_disk(tmp_path):
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mount)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    directory = tmp_path_factory.mktemp("whole")
    return run_config(write_config(directory, RUN), directory / "out")


@pytest.mark.slow
@pytest.mark.parametrize("ranks", marked([1, 2], mpi_if=lambda ranks: ranks > 1))
@pytest.mark.parametrize("full", ["outputs", "checkpoints"])
def test_a_full_disk_ends_the_run_and_the_last_checkpoint_resumes(
    tmp_path, small_disk, uninterrupted, ranks, full
):
    config = write_config(tmp_path, RUN)
    if full == "outputs":  # spikes and checkpoints on the small disk
        outdir, checkpoints = small_disk / "out", small_disk / "out" / "checkpoints"
        sets = []
    else:  # only the checkpoints
        outdir, checkpoints = tmp_path / "out", small_disk / "checkpoints"
        sets = ["--set", f"checkpoint.dir={checkpoints}", "--set", "checkpoint.keep=40"]  # they pile up
    done = run_cli(
        ["run", str(config), "--np", str(ranks), "-o", str(outdir), "--checkpoint-every", "100", *sets]
    )
    assert done.returncode == 3, done.stdout + done.stderr
    line = done.stderr.strip()
    assert len(line.splitlines()) == 1 and "Traceback" not in line, line
    assert "No space left on device" in line or "is full" in line, line
    if full == "checkpoints":
        assert "cannot write checkpoint" in line and "the last complete checkpoint stays resumable" in line
    assert not (outdir / "summary.json").exists() and not (outdir / "spikes.h5").exists()
    latest = json.loads((checkpoints / "latest.json").read_text())
    assert latest["step"] > 0
    assert not list(checkpoints.glob(".*.partial")), "a failed write must leave no partial checkpoint"

    # Resumed elsewhere (the small disk is still full), on the other number of ranks.
    resumed_dir = tmp_path / "resumed"
    done = run_cli(
        ["run", "--resume", str(checkpoints), "--np", str(3 - ranks), "-o", str(resumed_dir),
         "--set", f"checkpoint.dir={resumed_dir / 'checkpoints'}"]
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    resumed = json.loads((resumed_dir / "summary.json").read_text())
    assert resumed["spikes_sha256"] == uninterrupted["spikes_sha256"]
    assert resumed["spikes_total"] == uninterrupted["spikes_total"]


@pytest.mark.slow
@pytest.mark.mpi
def test_a_rank_that_fails_first_leaves_the_others_their_directory(tmp_path):
    """Rank 1 runs out of space while rank 0 is still writing: both report the full disk
    (not "No such file or directory" from a directory removed under rank 0's feet), and
    no partial checkpoint is left behind."""
    script = Path(__file__).with_name("write_failure_script.py")
    done = subprocess.run(
        mpiexec_command(2, [sys.executable, str(script), str(tmp_path / "checkpoints")]),
        capture_output=True, text=True, timeout=120, check=False, env=child_environment(threads=1),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    # mpiexec forwards the ranks' output in chunks and may join two ranks' lines into one
    # (seen in CI: "...deviceERROR 0 ..."): read the records, not the lines
    errors = re.findall(r"ERROR (\d+) (.*?No space left on device)", done.stdout)
    assert sorted(rank for rank, _ in errors) == ["0", "1"], done.stdout + done.stderr
    for _, message in errors:
        assert message.startswith("rank 1:"), message
    assert "WROTE" not in done.stdout
    assert list((tmp_path / "checkpoints").iterdir()) == []
