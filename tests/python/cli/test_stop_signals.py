"""SIGTERM or SIGINT to `spikex run` (what a batch system, a container manager or a user
sends) stops every rank within 5 s: exit status 3 with one line naming the signal, no
summary.json, and no process of the job left behind (counted by their command lines,
which hold the run's unique output directory)."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest
from conftest import SPIKEX, write_config
from spikex.launch.launcher import child_environment

pytestmark = pytest.mark.mpi

# Long enough that the job is still running when the signal comes (minutes if left alone).
LONG_RUN = """
[simulation]
tstop_ms = 10000000.0
seed = 3

[network]
cells = 2000
indegree = 60
delay_ms = 1.0
"""


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


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_every_rank_and_leaves_nothing_behind(tmp_path: Path, signum):
    config = write_config(tmp_path, LONG_RUN)
    outdir = tmp_path / "out"
    marker = str(tmp_path)
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
        time.sleep(1.0)  # into the simulation
        sent = time.monotonic()
        spikex.send_signal(signum)
        _, stderr = spikex.communicate(timeout=30)
        stopped_after = time.monotonic() - sent
        leftovers = job_processes(marker)
        for _ in range(10):  # processes that are exiting right now get a moment
            if not leftovers:
                break
            time.sleep(0.2)
            leftovers = job_processes(marker)
        assert spikex.returncode == 3, stderr
        assert f"run stopped by {signum.name}; all ranks were stopped" in stderr
        assert "Traceback" not in stderr
        assert stopped_after < 5.0, f"took {stopped_after:.1f} s"
        assert leftovers == [], leftovers
        assert not (outdir / "summary.json").exists()
    finally:
        if spikex.poll() is None:
            spikex.kill()
        for row in job_processes(marker):
            subprocess.run(["kill", "-9", row.split()[0]], check=False)
