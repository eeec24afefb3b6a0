"""The renewal spike sources against NEST 3.10's generators (bench/nest/
spike_source_trains_stats.py runs both sides; cases in spike_source_trains_cases.py):
spike_source_gamma vs gamma_sup_generator, spike_source_poisson_refractory vs
ppd_sup_generator, each generator into its own parrot neuron; spike_source_inh_gamma at a
constant rate vs sinusoidal_gamma_generator and, at gamma_shape 1 with rate steps, vs
inhomogeneous_poisson_generator. The trains differ (different random numbers); their laws
are NEST's, so over long runs the counts, interval means and CVs agree within a few
standard errors, the interval distributions pass a two-sample Kolmogorov-Smirnov test,
and what is certain is equal: the minimum interval with a dead time, the window's first
and last steps, the step a rate change first acts in. Fixed seeds: the same outcome on
every run. Without NEST the test skips (fails under CI)."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from conftest import REPO, require_nest

sys.path.insert(0, str(REPO / "bench" / "nest"))
import run_exact
import spike_source_trains_stats as stats_module
from spike_source_trains_cases import CASES, DT

pytestmark = pytest.mark.slow

LONG = [name for name, case in CASES.items() if case[5] >= 5000.0]


@pytest.fixture(scope="module")
def nest_trains():
    require_nest(run_exact.nest_unavailable_reason())
    return stats_module.run_nest(seed=12345)


@pytest.fixture(scope="module")
def spikex_trains():
    return stats_module.run_spikex(seed=1)


def _both(nest_trains, spikex_trains, name):
    return stats_module.summary(spikex_trains[name]), stats_module.summary(nest_trains[name])


def _fano(steps, window: int, skip: int, end: int) -> float:
    counts = np.array([[np.count_nonzero((t >= w) & (t < w + window)) for w in range(skip, end - window + 1, window)]
                       for t in steps]).ravel()  # fmt: skip
    return float(counts.var(ddof=1) / counts.mean())


@pytest.mark.parametrize("name", LONG)
def test_spike_counts_agree(nest_trains, spikex_trains, name):
    a, b = _both(nest_trains, spikex_trains, name)
    # Count variance of a renewal train ~ N CV^2 (Poisson: N); 5 standard errors.
    spread = max(1.0, a["cv"] ** 2, b["cv"] ** 2)
    assert abs(a["spikes"] - b["spikes"]) < 5 * np.sqrt((a["spikes"] + b["spikes"]) * spread), (
        a["spikes"],
        b["spikes"],
    )


@pytest.mark.parametrize("name", LONG)
def test_interval_laws_agree(nest_trains, spikex_trains, name):
    a, b = _both(nest_trains, spikex_trains, name)
    n_a, n_b = a["intervals"].size, b["intervals"].size
    assert min(n_a, n_b) > 5000
    # CV: standard error ~ CV sqrt((1 + 2 CV^2) / 2n) (normal approximation, x 1.5).
    se = 1.5 * np.hypot(
        *(s["cv"] * np.sqrt((1 + 2 * s["cv"] ** 2) / (2 * n)) for s, n in ((a, n_a), (b, n_b)))
    )
    assert abs(a["cv"] - b["cv"]) < 5 * se, (a["cv"], b["cv"])
    se_mean = np.hypot(
        a["mean_isi_ms"] * a["cv"] / np.sqrt(n_a), b["mean_isi_ms"] * b["cv"] / np.sqrt(n_b)
    )
    assert abs(a["mean_isi_ms"] - b["mean_isi_ms"]) < 5 * se_mean, (
        a["mean_isi_ms"],
        b["mean_isi_ms"],
    )
    assert stats_module.ks_p(a["intervals"], b["intervals"]) > 1e-3


@pytest.mark.parametrize(
    ("name", "minimum"), [("ppd_dead5", 51), ("ppd_offgrid", 26), ("ppd_modulated", 21)]
)
def test_dead_time_gives_nests_minimum_interval(nest_trains, spikex_trains, name, minimum):
    """Dead time D = floor(dead_time / dt) steps: intervals of at least D + 1 steps, often
    exactly that (2.55 ms -> 26 steps in both)."""
    a, b = _both(nest_trains, spikex_trains, name)
    assert a["min_isi_steps"] == b["min_isi_steps"] == minimum


def test_gamma_intervals_take_at_least_gamma_shape_steps(nest_trains, spikex_trains):
    for name in ("gamma_order4", "gamma_fast"):
        shape = CASES[name][1]["gamma_shape"]
        a, b = _both(nest_trains, spikex_trains, name)
        assert a["min_isi_steps"] >= shape and b["min_isi_steps"] >= shape


@pytest.mark.parametrize("name", ["ppd_window", "gamma_window"])
def test_window_is_nests(nest_trains, spikex_trains, name):
    """start 10, stop 20, origin 5 ms at a spike probability of 1/2 per step: the first
    and last steps are certain in practice, 151 and 250 in both."""
    a, b = _both(nest_trains, spikex_trains, name)
    assert (a["first"], a["last"]) == (b["first"], b["last"]) == (151, 250)


def test_rate_steps_act_from_nests_step(nest_trains, spikex_trains):
    """rate_times 20, 25, 5000 ms with 3000, 40 and 0 Hz (gamma_shape 1 against
    inhomogeneous_poisson_generator): the first spike in step 199 (stamp 20 ms) in both,
    the same count at 40 Hz, none after 5000 ms."""
    a, b = _both(nest_trains, spikex_trains, "inh_poisson_steps")
    assert a["first"] == b["first"] == 199
    assert a["last"] < 49_999 and b["last"] < 49_999

    def count(steps, low, high):
        return sum(np.count_nonzero((t >= low) & (t < high)) for t in steps)

    at_40 = [
        count(s, 249, 49_999)
        for s in (spikex_trains["inh_poisson_steps"], nest_trains["inh_poisson_steps"])
    ]
    assert abs(at_40[0] - at_40[1]) < 5 * np.sqrt(sum(at_40)), at_40
    burst = [
        count(s, 199, 249)
        for s in (spikex_trains["inh_poisson_steps"], nest_trains["inh_poisson_steps"])
    ]
    assert abs(burst[0] - burst[1]) < 5 * np.sqrt(sum(burst)), (
        burst
    )  # steps with a spike, 0.3 events each


def test_modulation_follows_nests_phase(nest_trains, spikex_trains):
    """ppd_modulated (5 Hz, relative amplitude 0.8, dead time 2 ms): the spikes over the
    modulation's phase (10 bins of its 200 ms period) have the same distribution."""
    from scipy import stats

    period = round(1000.0 / CASES["ppd_modulated"][1]["frequency"] / DT)
    histograms = [
        np.bincount(np.concatenate(s) % period * 10 // period, minlength=10)
        for s in (spikex_trains["ppd_modulated"], nest_trains["ppd_modulated"])
    ]
    assert histograms[0].max() > 3 * histograms[0].min()  # the modulation shows
    assert stats.chi2_contingency(np.array(histograms)).pvalue > 1e-3


def test_superposition_counts_have_nests_fano_factor(nest_trains, spikex_trains):
    """5 independent gamma processes of order 3 per cell: counts in 1 s windows have the
    Fano factor of one component (~1/3) in both (copies would give 5 times that)."""
    fano = [_fano(s, 10_000, 10_000, 1_000_000) for s in (spikex_trains["gamma_superposed"],
                                                         nest_trains["gamma_superposed"])]  # fmt: skip
    assert abs(fano[0] - fano[1]) < 0.06 and 0.25 < fano[0] < 0.45, fano
