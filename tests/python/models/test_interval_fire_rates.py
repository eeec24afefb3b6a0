"""With all weights 0 (the paper's benchmark) every cell fires on its own clock: every
first spike and every inter-spike interval lies in [20, 40] ms (one step of rounding
aside) and the mean rate is 1 / mean(interval) = 33.3 Hz."""

from __future__ import annotations

import numpy as np
import pytest
import spikex as sx

DT = 0.025


@pytest.fixture(scope="module")
def spikes():
    net = sx.Network(dt_ms=DT, seed=11)
    cells = net.create("interval_fire", 4096)
    net.connect_rule("random", cells, cells, indegree=100, indegree_spread=20, weight=0.0)
    net.record_spikes(cells)
    gids, times = net.simulate(300.0).spikes
    return gids, times


def per_cell(gids, times):
    order = np.lexsort((times, gids))
    return gids[order], times[order]


def test_first_spike_of_every_cell_in_interval(spikes):
    gids, times = per_cell(*spikes)
    first = np.ones(gids.size, dtype=bool)
    first[1:] = gids[1:] != gids[:-1]
    assert np.unique(gids).size == 4096, "every cell fires within 300 ms"
    assert times[first].min() >= 20.0
    assert times[first].max() <= 40.0 + DT


def test_every_interval_between_20_and_40_ms(spikes):
    gids, times = per_cell(*spikes)
    same = gids[1:] == gids[:-1]
    intervals = np.diff(times)[same]
    assert intervals.size > 30000
    assert intervals.min() >= 20.0 - DT
    assert intervals.max() <= 40.0 + DT


def test_mean_rate_is_33_hz(spikes):
    gids, times = per_cell(*spikes)
    same = gids[1:] == gids[:-1]
    rate_hz = 1000.0 / np.diff(times)[same].mean()
    assert rate_hz == pytest.approx(1000.0 / 30.0, rel=0.01)


def test_bursting_group_fires_faster():
    """Group g bursts during [g*period, (g+1)*period): intervals drawn then are 5x shorter."""
    net = sx.Network(dt_ms=DT, seed=3)
    cells = net.create("interval_fire", 800, params={"burst_groups": 4, "burst_factor": 5.0,
                                                     "burst_period_ms": 50.0})
    net.record_spikes(cells)
    gids, times = net.simulate(200.0).spikes
    group = gids * 4 // 800
    in_burst = (times >= 50.0) & (times < 100.0)
    rate_g1 = np.sum(in_burst & (group == 1)) / 200 / 0.05
    rate_g3 = np.sum(in_burst & (group == 3)) / 200 / 0.05
    assert rate_g1 > 3 * rate_g3
