"""The stall watchdog (spikex.launch.watchdog) against a scripted heartbeat: it fires
once a running simulation stops exchanging for the timeout, never between runs, and
stretches its timeout to 20 times the longest gap between exchanges seen so far."""

from __future__ import annotations

import threading
import time

from spikex.launch import watchdog
from spikex.launch.watchdog import StallWatchdog


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


def test_exchanges_keep_it_quiet():
    heartbeat = Heartbeat()

    def beat():
        heartbeat.count += 1

    assert watch(heartbeat, 0.5, 1.5, beat) == []


def test_no_clock_between_runs():
    heartbeat = Heartbeat()
    heartbeat.running = False
    assert watch(heartbeat, 0.3, 1.2) == []


def test_the_timeout_stretches_with_the_longest_gap(monkeypatch):
    monkeypatch.setattr(watchdog, "STALL_FACTOR", 4.0)
    heartbeat = Heartbeat()
    start = time.monotonic()
    beats = iter([0.8])  # one exchange after 0.8 s, then none: the timeout becomes ~3.2 s

    def beat():
        nonlocal start
        gap = next(beats, None) if time.monotonic() - start >= 0.8 else None
        if gap is not None:
            heartbeat.count += 1
            start = time.monotonic()

    stalls = watch(heartbeat, 1.0, 8, beat)
    assert len(stalls) == 1 and stalls[0] >= 2.5  # not 1.0: 4 x the gap seen
