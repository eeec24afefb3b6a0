"""The stall watchdog (spikex.runtime.watchdog) against a scripted heartbeat: it fires
once a running simulation stops exchanging for the timeout, never between runs, and
stretches its timeout to 20 times the longest gap between exchanges seen so far."""

from __future__ import annotations

import threading
import time

import pytest
from conftest import run_spmd
from spikex.runtime import watchdog
from spikex.runtime.watchdog import StallWatchdog


class Heartbeat:
    def __init__(self) -> None:
        self.count, self.running = 0, True

    def __call__(self) -> tuple[int, bool]:
        return self.count, self.running


def watch(heartbeat, timeout_s, seconds, beat=None):
    fired = threading.Event()
    stalls = []

    def on_stall(stalled_s):
        stalls.append(stalled_s)
        fired.set()

    with StallWatchdog(timeout_s, on_stall, heartbeat):
        end = time.monotonic() + seconds
        while time.monotonic() < end and not fired.is_set():
            if beat is not None:
                beat()
            time.sleep(0.05)
    return stalls


def test_a_running_simulation_that_stops_exchanging_is_reported_once():
    stalls = watch(Heartbeat(), 0.5, 5)
    assert len(stalls) == 1 and 0.5 <= stalls[0] < 1.5


@pytest.mark.slow
def test_exchanges_keep_it_quiet():
    heartbeat = Heartbeat()

    def beat():
        heartbeat.count += 1

    assert watch(heartbeat, 0.5, 1.5, beat) == []


@pytest.mark.slow
def test_no_clock_between_runs():
    heartbeat = Heartbeat()
    heartbeat.running = False
    assert watch(heartbeat, 0.3, 1.2) == []


def scripted_beats(heartbeat, after_s):
    """beat() for watch(): an exchange after each of `after_s` seconds in turn, then none."""
    waits = iter(after_s)
    wait = next(waits)
    last = time.monotonic()

    def beat():
        nonlocal wait, last
        if wait is not None and time.monotonic() - last >= wait:
            heartbeat.count += 1
            last = time.monotonic()
            wait = next(waits, None)

    return beat


@pytest.mark.slow
def test_the_timeout_stretches_with_the_longest_gap(monkeypatch):
    monkeypatch.setattr(watchdog, "STALL_FACTOR", 4.0)
    heartbeat = Heartbeat()
    # The run's first exchange after 0.2 s, the next 0.8 s later, then none: the timeout
    # becomes ~3.2 s.
    stalls = watch(heartbeat, 1.0, 8, scripted_beats(heartbeat, [0.2, 0.8]))
    assert len(stalls) == 1 and stalls[0] >= 2.5  # not 1.0: 4 x the gap seen


@pytest.mark.slow
def test_a_slow_start_does_not_stretch_the_timeout(monkeypatch):
    # From a run's start to its first exchange is the run's set-up as well (on a cluster,
    # MPI's first connections): a lost host must still end the job within the timeout.
    monkeypatch.setattr(watchdog, "STALL_FACTOR", 4.0)
    heartbeat = Heartbeat()
    # The first exchange after 0.8 s, within the timeout of 1 s, then none.
    stalls = watch(heartbeat, 1.0, 8, scripted_beats(heartbeat, [0.8]))
    assert len(stalls) == 1 and stalls[0] < 2.0  # not 4 x 0.8 = 3.2


# Rank 1 enters the collective 2 s after rank 0, as a lost host never would: rank 0's
# watchdog (timeout 0.5 s, the core's heartbeat) must see it as a stall exactly when the
# collective is one between the chunks of a run (in_run).
COLLECTIVE_SCRIPT = """
    import time
    import spikex as sx
    from spikex import _core
    from spikex.runtime.collective import int64_per_rank
    from spikex.runtime.watchdog import StallWatchdog

    sx.Network()  # MPI up
    rank = _core.comm_rank()
    for in_run in (False, True):
        stalls = []
        if rank == 1:
            time.sleep(2.0)
        with StallWatchdog(0.5, stalls.append):
            int64_per_rank([rank], in_run=in_run)
        if rank == 0:
            print(f"in_run={in_run} stalls={len(stalls)}", flush=True)
"""


@pytest.mark.slow
@pytest.mark.mpi
def test_a_rank_missing_from_a_collective_between_chunks_is_a_stall(tmp_path):
    # RunControl.agree and a streamed chunk's spikes gather between the chunks of a run: a
    # host lost there hung the job (the watchdog's clock stood still and the collective held
    # the GIL), where one lost inside an exchange ended it.
    done = run_spmd(COLLECTIVE_SCRIPT, 2, tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "in_run=False stalls=0" in done.stdout, done.stdout
    assert "in_run=True stalls=1" in done.stdout, done.stdout


CHILD = (
    "from spikex.runtime.watchdog import end_launcher_parent; "
    "print('ENDED', end_launcher_parent(), flush=True)"
)


@pytest.mark.slow  # 2-3 s each: a stall has to be waited out
@pytest.mark.parametrize("parent_name", ["mpiexec", "orted", "bash"])
def test_a_stalled_rank_ends_only_a_launcher_parent(tmp_path, parent_name):
    """Mode (b): the watchdog ends the process that started the rank when it is an MPI
    launcher (SIGTERM, SIGKILL 2 s later); any other parent (a shell, slurmstepd) is left."""
    import shutil
    import subprocess
    import sys

    shell = tmp_path / parent_name  # /proc/PID/comm is the executable's name
    shutil.copy("/bin/sh", shell)
    parent = subprocess.Popen(
        # The parent ignores SIGTERM, as mpiexec waiting for a lost daemon in effect does:
        # the SIGKILL that follows must end it.
        [str(shell), "-c", f'trap "" TERM; "{sys.executable}" -c "{CHILD}"; sleep 30'],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        line = parent.stdout.readline().split()
        parent.wait(timeout=10 if parent_name != "bash" else 3)
        ended = True
    except subprocess.TimeoutExpired:
        ended = False
    finally:
        parent.kill()
        parent.wait()
    if parent_name == "bash":
        assert line == ["ENDED", "None"] and not ended
    else:
        assert line == ["ENDED", parent_name] and ended
