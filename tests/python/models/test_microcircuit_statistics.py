"""bench/microcircuit_statistics.py on synthetic spike trains whose rate, CV of ISI and
synchrony are known: each test fails if its statistic is computed another way (silent
cells left out, intervals across cells, wrong bins or subsample, wrong comparison)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "bench"))
import microcircuit_statistics as ms  # noqa: E402


def run_of(cells, times, size, t_start=0.0, t_stop=1000.0, name="L23E") -> ms.SpikeRun:
    return ms.SpikeRun(
        {name: size}, {name: np.asarray(cells)}, {name: np.asarray(times, float)}, t_start, t_stop
    )


def poisson_trains(rng, n_cells, rate_hz, t_start, t_stop, dt=0.1):
    """Independent Poisson trains on the dt grid (one step holds at most one spike)."""
    steps = int(round((t_stop - t_start) / dt))
    cells, times = [], []
    for cell in range(n_cells):
        n = rng.poisson(rate_hz * (t_stop - t_start) / 1000.0)
        chosen = np.unique(rng.integers(1, steps + 1, size=n))
        cells.append(np.full(chosen.size, cell))
        times.append(t_start + chosen * dt)
    return np.concatenate(cells), np.round(np.concatenate(times), 10)


def test_rate_counts_silent_cells_and_uses_the_window_length():
    # 40 of 100 cells fire 10 spikes each in a 2 s window: 400 / (100 * 2 s) = 2 Hz
    cells = np.repeat(np.arange(40), 10)
    times = 500.0 + np.tile(np.arange(1, 11) * 150.0, 40)
    stats = ms.population_statistics(run_of(cells, times, 100, 500.0, 2500.0))["L23E"]
    assert stats["rate_hz"] == pytest.approx(2.0)
    assert stats["spikes"] == 400


def test_cv_of_regular_and_alternating_trains():
    regular = np.arange(1, 21) * 25.0
    cv, n = ms.cv_isi(np.zeros(20, int), regular)
    assert (cv, n) == (pytest.approx(0.0, abs=1e-12), 1)
    # intervals alternate 10 and 30 ms: std 10, mean 20 -> CV 0.5 (ddof = 0)
    alternating = 5.0 + np.r_[0.0, np.cumsum(np.tile([10.0, 30.0], 10))]  # 10 of each
    cv, n = ms.cv_isi(np.zeros(21, int), alternating)
    assert cv == pytest.approx(0.5)


def test_cv_never_takes_an_interval_across_two_cells_and_skips_cells_with_few_spikes():
    # cell 0 regular every 10 ms early, cell 1 regular every 10 ms late, interleaved in
    # the arrays: the gap between cell 0's last and cell 1's first spike is not an ISI
    t0 = np.arange(1, 11) * 10.0
    t1 = 600.0 + np.arange(1, 11) * 10.0
    cells = np.r_[np.zeros(10, int), np.ones(10, int), [2, 2]]
    times = np.r_[t0, t1, [5.0, 900.0]]  # cell 2: two spikes, one ISI -> left out
    shuffle = np.random.default_rng(1).permutation(cells.size)
    cv, n = ms.cv_isi(cells[shuffle], times[shuffle])
    assert n == 2
    assert cv == pytest.approx(0.0, abs=1e-12)


def test_cv_and_synchrony_of_poisson_trains():
    rng = np.random.default_rng(7)
    cells, times = poisson_trains(rng, 1000, 20.0, 0.0, 20000.0)
    cv, n = ms.cv_isi(cells, times)
    assert n == 1000
    assert cv == pytest.approx(1.0, abs=0.03)
    # independent trains: the population count per bin is Poisson, variance = mean
    assert ms.synchrony(cells, times, 0.0, 20000.0) == pytest.approx(1.0, abs=0.1)


def test_synchrony_of_fully_synchronous_cells_uses_3_ms_bins_and_the_first_1000_cells():
    # cells 0..999 all fire at 30, 60, ... ms (on a bin's right edge: right-closed bins),
    # so one bin in ten holds 1000 spikes: mean 100, variance 0.1*1000^2 - 100^2 = 90000
    beats = np.arange(1, 101) * 30.0  # 3000 ms
    cells = np.repeat(np.arange(1000), beats.size)
    times = np.tile(beats, 1000)
    # cells 1000..1999 fire independently and must be left out of the subsample
    extra_cells, extra_times = poisson_trains(np.random.default_rng(3), 1000, 50.0, 0.0, 3000.0)
    all_cells = np.r_[cells, extra_cells + 1000]
    all_times = np.r_[times, extra_times]
    assert ms.synchrony(all_cells, all_times, 0.0, 3000.0) == pytest.approx(900.0)
    # the window start shifts the bins: from 1.5 ms each beat still falls in one bin
    assert ms.synchrony(cells, times, 1.5, 3001.5) == pytest.approx(900.0)
    stats = ms.population_statistics(run_of(all_cells, all_times, 2000, 0.0, 3000.0))
    assert stats["L23E"]["synchrony"] == pytest.approx(900.0)


def test_split_by_population_numbers_populations_one_after_the_other_and_keeps_the_window():
    sizes = {"L23E": 3, "L23I": 2}
    gids = np.array([0, 2, 3, 4, 1, 4])
    times = np.array([10.0, 20.0, 30.0, 40.0, 5.0, 50.0])
    run = ms.split_by_population(gids, times, sizes, 5.0, 45.0)
    assert run.cells["L23E"].tolist() == [0, 2]  # the spike at 5.0 is outside (5, 45]
    assert run.cells["L23I"].tolist() == [0, 1]
    assert run.times_ms["L23I"].tolist() == [30.0, 40.0]
    with pytest.raises(ValueError, match="outside"):
        ms.split_by_population(np.array([5]), np.array([10.0]), sizes, 0.0, 45.0)


def _runs(rates, size=1000, seed=0):
    """One population, Poisson at the given rates (one run per rate)."""
    rng = np.random.default_rng(seed)
    out = []
    for rate in rates:
        cells, times = poisson_trains(rng, size, rate, 0.0, 1000.0)
        out.append(run_of(cells, times, size))
    return out


def test_mean_sem_and_welch():
    mean, sem, n = ms.mean_and_sem([1.0, 2.0, 3.0, float("nan")])
    assert (mean, n) == (2.0, 3)
    assert sem == pytest.approx(1.0 / math.sqrt(3))
    t, df = ms.welch(2.0, 0.3, 3, 1.0, 0.4, 3)
    assert t == pytest.approx(1.0 / 0.5)
    assert df == pytest.approx(0.25**2 / (0.3**4 / 2 + 0.4**4 / 2))


def test_comparison_agrees_within_error_and_detects_a_shift():
    a = _runs([5.0, 5.0, 5.0], seed=1)
    b = _runs([5.0, 5.0, 5.0], seed=2)
    same = ms.compare(a, b, ("nest", "spikex"))
    entry = same["populations"]["L23E"]["rate_hz"]
    assert entry["nest"]["n"] == 3 and entry["agrees"]
    assert same["all_agree"]
    shifted = ms.compare(a, _runs([6.0, 6.0, 6.0], seed=3), ("nest", "spikex"))
    assert not shifted["populations"]["L23E"]["rate_hz"]["agrees"]
    assert not shifted["all_agree"]
    assert "**no**" in ms.markdown(shifted)


def test_agreement_with_published_rates():
    published = ms.PUBLISHED_RATES_HZ[0]  # L23E
    close = ms.summarise(_runs([published * 1.05] * 3, seed=4))
    far = ms.summarise(_runs([published * 2.0] * 3, seed=5))
    assert ms.published_agreement(close)["L23E"]["agrees"]
    verdict = ms.published_agreement(far)["L23E"]
    assert not verdict["agrees"]
    assert verdict["relative_deviation"] == pytest.approx(1.0, abs=0.1)


def test_npz_round_trip(tmp_path):
    path = tmp_path / "run.npz"
    np.savez(
        path,
        populations=np.array(["L23E", "L23I"]),
        sizes=np.array([4, 2]),
        t_start_ms=100.0,
        t_stop_ms=1100.0,
        L23E_cells=np.array([0, 3], np.int32),
        L23E_times_ms=np.array([150.0, 900.0]),
        L23I_cells=np.array([1], np.int32),
        L23I_times_ms=np.array([300.0]),
    )
    run = ms.load_npz(path)
    stats = ms.population_statistics(run)
    assert stats["L23E"]["rate_hz"] == pytest.approx(0.5)
    assert stats["L23I"]["rate_hz"] == pytest.approx(0.5)


@pytest.mark.parametrize("layout", ["per_population", "one_population"])
def test_spikex_output_is_read_per_population_without_the_presimulation(tmp_path, layout):
    h5py = pytest.importorskip("h5py")
    summary = {
        "populations": {"L23E": {"cells": 3}, "L23I": {"cells": 2}, "noise": {"cells": 1}},
        "config": {"simulation": {"presim_ms": 100.0, "tstop_ms": 300.0}},
        "simulated_ms": 300.0,
        "dt_ms": 0.1,
    }
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    with h5py.File(tmp_path / "spikes.h5", "w") as f:
        if layout == "per_population":
            f["spikes/L23E/node_ids"] = np.array([2, 0], np.uint64)
            f["spikes/L23E/timestamps"] = np.array([150.0, 50.0])  # 50: presimulation
            f["spikes/L23I/node_ids"] = np.array([1], np.uint64)
            f["spikes/L23I/timestamps"] = np.array([300.0])
            f["spikes/noise/node_ids"] = np.array([], np.uint64)
            f["spikes/noise/timestamps"] = np.array([], float)
        else:
            f["spikes/microcircuit/node_ids"] = np.array([0, 2, 4], np.uint64)
            f["spikes/microcircuit/timestamps"] = np.array([50.0, 150.0, 300.0])
    run = ms.load_run(tmp_path)
    assert (run.t_start_ms, run.t_stop_ms) == (100.0, 300.0)
    assert run.cells["L23E"].tolist() == [2] and run.times_ms["L23E"].tolist() == [150.0]
    assert run.cells["L23I"].tolist() == [1] and run.times_ms["L23I"].tolist() == [300.0]
