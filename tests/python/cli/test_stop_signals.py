"""Stopping `spikex run` with a signal (what a batch system, a container manager or a user
sends).

One SIGTERM or SIGINT: the ranks finish their chunk, write a checkpoint and partial outputs
(summary.json with "partial": true) and the run exits with status 75; the checkpoint goes
on, on another layout, to the spikes of an uninterrupted run. A second signal stops every
rank at once: exit status 3 with one line naming the signal, no complete summary.json.
Either way
no process of the job is left behind (counted by their command lines, which hold the
run's unique output directory)."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest
from conftest import SPIKEX, run_cli, run_config, write_config
from spikex.launch.launcher import child_environment

pytestmark = pytest.mark.mpi

# About 8 s on 2 ranks: still running when the signal comes, short enough to finish.
RUN = """
[simulation]
tstop_ms = 20000.0
seed = 3

[network]
cells = 4000
indegree = 100
indegree_spread = 10
weight = 0.002
"""

STOPPED = 75


def job_processes(marker: str) -> list[str]:
    """Command lines of live processes that mention `marker` (the test's own directory)."""
    listing = subprocess.run(
        ["ps", "-ww", "-eo", "pid=,stat=,args="], capture_output=True, text=True, check=True
    )
    rows = []
    for line in listing.stdout.splitlines():
        pid, stat, args = line.strip().split(None, 2)
        if marker in args and not stat.startswith("Z") and "ps -eo" not in args:
            rows.append(f"{pid} {args}")
    return rows


def start_and_signal(config: Path, outdir: Path, marker: str, signals: list[int]):
    """Starts a 2-rank run, sends `signals` (0.05 s apart) once it is simulating; returns
    (status, stderr, seconds from the first signal to the end, leftover processes)."""
    spikex = subprocess.Popen(
        [SPIKEX, "run", str(config), "--np", "2", "-o", str(outdir)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
        env=child_environment(),
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while len([p for p in job_processes(marker) if "spikex.launch.worker" in p]) < 2:
            assert spikex.poll() is None, spikex.communicate()
            assert time.monotonic() < deadline, "the two ranks never started"
            time.sleep(0.2)
        time.sleep(2.0)  # into the simulation
        sent = time.monotonic()
        for signum in signals:
            spikex.send_signal(signum)
            time.sleep(0.05)
        _, stderr = spikex.communicate(timeout=60)
        stopped_after = time.monotonic() - sent
        leftovers = job_processes(marker)
        for _ in range(10):  # processes that are exiting right now get a moment
            if not leftovers:
                break
            time.sleep(0.2)
            leftovers = job_processes(marker)
        return spikex.returncode, stderr, stopped_after, leftovers
    finally:
        if spikex.poll() is None:
            spikex.kill()
        for row in job_processes(marker):
            subprocess.run(["kill", "-9", row.split()[0]], check=False)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    directory = tmp_path_factory.mktemp("whole")
    return run_config(write_config(directory, RUN), directory / "out", ranks=2)


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_with_a_checkpoint_that_resumes_to_the_same_spikes(
    tmp_path: Path, signum, uninterrupted
):
    config = write_config(tmp_path, RUN)
    outdir = tmp_path / "out"
    status, stderr, stopped_after, leftovers = start_and_signal(
        config, outdir, str(tmp_path), [signum]
    )
    assert status == STOPPED, stderr
    assert f"stopped by {signum.name} at" in stderr and "--resume" in stderr
    assert "Traceback" not in stderr
    assert stopped_after < 20.0, f"took {stopped_after:.1f} s"
    assert leftovers == [], leftovers
    partial = json.loads((outdir / "summary.json").read_text())
    assert partial["partial"] is True and partial["stopped_by"] == signum.name  # not the relay
    assert 0 < partial["simulated_ms"] < 20000.0
    assert 0 < partial["spikes_total"] < uninterrupted["spikes_total"]
    assert (outdir / "spikes.h5").exists() and (outdir / ".spikes.log").exists()
    checkpoint = Path(partial["checkpoint"])
    assert checkpoint.parent == outdir / "checkpoints"

    # Another layout, another method: the spikes of the run that never stopped.
    done = run_cli(
        ["run", "--resume", str(outdir / "checkpoints"), "--np", "3",
         "--set", "exchange.method=alltoall", "--set", "distribution.scheme=random_shuffle"]
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(outdir)
    resumed = json.loads((outdir / "summary.json").read_text())
    assert "partial" not in resumed
    assert resumed["spikes_sha256"] == uninterrupted["spikes_sha256"]
    assert resumed["spikes_total"] == uninterrupted["spikes_total"]
    assert resumed["events_delivered"] == uninterrupted["events_delivered"]
    assert resumed["resumed_from"] == str(checkpoint)
    assert resumed["segments"][0]["ranks"] == 2 and resumed["ranks"] == 3


@pytest.mark.slow
def test_a_second_signal_stops_every_rank_at_once(tmp_path: Path):
    outdir = tmp_path / "out"
    status, stderr, stopped_after, leftovers = start_and_signal(
        write_config(tmp_path, RUN), outdir, str(tmp_path), [signal.SIGTERM, signal.SIGTERM]
    )
    assert status == 3, stderr
    assert "run stopped by SIGTERM; all ranks were stopped" in stderr
    assert "Traceback" not in stderr
    assert stopped_after < 5.0, f"took {stopped_after:.1f} s"
    assert leftovers == [], leftovers
    # The clean stop may have written its partial outputs in the 0.05 s before the
    # second signal; nothing that looks complete is ever left.
    summary = outdir / "summary.json"
    assert not summary.exists() or json.loads(summary.read_text())["partial"] is True


@pytest.mark.slow
def test_stop_after_stops_with_a_checkpoint_at_the_deadline(tmp_path: Path, uninterrupted):
    config = write_config(tmp_path, RUN)
    outdir = tmp_path / "out"
    started = time.monotonic()
    done = run_cli(["run", str(config), "--np", "2", "-o", str(outdir), "--stop-after", "00:00:03"])
    took = time.monotonic() - started
    assert done.returncode == STOPPED, done.stderr
    assert "stopped by stop-after at" in done.stderr
    assert took < 20.0, f"took {took:.1f} s"
    partial = json.loads((outdir / "summary.json").read_text())
    assert partial["partial"] is True and partial["stopped_by"] == "stop-after"
    done = run_cli(["run", "--resume", str(outdir / "checkpoints"), "--threads", "2"])
    assert done.returncode == 0, done.stderr
    resumed = json.loads((outdir / "summary.json").read_text())
    assert resumed["spikes_sha256"] == uninterrupted["spikes_sha256"]


@pytest.mark.parametrize("text", ["1:2:3:4", "aa:00", "00:00:00", "-5"])
def test_stop_after_needs_a_duration(tmp_path: Path, text):
    done = run_cli(["run", str(write_config(tmp_path, RUN)), f"--stop-after={text}", "-o", str(tmp_path / "o")])
    assert done.returncode == 2, done.stderr
    assert "--stop-after" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "o").exists()
