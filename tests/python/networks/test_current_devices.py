"""ac_generator and noise_generator (docs/models/ac_generator.md, noise_generator.md): the
current each target gets, read back from the membrane of an iaf_psc_exp far below
threshold (U = V_m − E_L: the current of update step k is (U_k − P22·U_{k−1}) / P20, exact
to ~1e-10 pA); their timing, the noise's statistics and keying, the checks of bad values,
and the same spikes on any threads, ranks and through checkpoints. Against NEST 3.10:
tests/python/nest_validation/test_nest_current_devices.py."""

from __future__ import annotations

import math
import re
import textwrap
from pathlib import Path

import numpy as np
import pytest
from conftest import run_spmd
from current_devices_users import build

import spikex as sx

DT = 0.1
TAU_M, C_M, E_L = 10.0, 250.0, -70.0  # iaf_psc_exp's defaults


def currents(values: np.ndarray, dt_ms: float = DT) -> np.ndarray:
    """Row k: the current of update step k (row 0: from V_m = E_L before step 0)."""
    p22 = math.exp(-dt_ms / TAU_M)
    u = np.vstack([np.zeros((1, values.shape[1])), values - E_L])
    return (u[1:] - p22 * u[:-1]) / (TAU_M / C_M * (1.0 - p22))


def driven(model: str, params: dict, n: int, t_ms: float, delay_ms: float = 0.1, weight: float = 1.0,
           dt_ms: float = DT, seed: int = 1, threads: int = 1) -> np.ndarray:  # fmt: skip
    """The currents of n iaf_psc_exp cells driven by one device (rows: steps)."""
    net = sx.Network(dt_ms=dt_ms, seed=seed, threads=threads)
    cells = net.create("iaf_psc_exp", n)
    device = net.create(model, 1, params=params)
    net.connect_rule("all_to_all", device, cells, weight=weight, delay_ms=delay_ms)
    net.record_state(cells, "V_m")
    result = net.simulate(t_ms)
    assert result.spike_steps.size == 0
    return currents(result.states[0]["values"], dt_ms)


def change_steps(current: np.ndarray) -> np.ndarray:
    """The steps at which a current takes a new value."""
    return np.flatnonzero(np.abs(np.diff(current)) > 1e-6) + 1


# --- ac_generator ------------------------------------------------------------------------
def test_ac_generator_gives_its_sine_times_the_weight_inside_its_window():
    """NEST: the level of emission step e is offset + amplitude·sin(ω(e + 1)h + φ) (its sine
    runs from t = 0 whatever start is); it acts in the update steps k with s0 <= k − d < s1
    (s0 = (origin + start)/h, s1 = (origin + stop)/h), like dc_generator."""
    p = {
        "amplitude": 100.0,
        "offset": 20.0,
        "phase": 30.0,
        "frequency": 40.0,
        "start": 2.0,
        "stop": 8.0,
        "origin": 1.0,
    }
    weight, d = 1.5, 3
    current = driven("ac_generator", p, 1, 15.0, delay_ms=d * DT, weight=weight)[:, 0]
    k = np.arange(current.size)
    active = (k - d >= 30) & (k - d < 90)
    e = k - d - 1  # the emission step of the current of update step k
    omega = 2.0 * math.pi * p["frequency"] / 1000.0
    expected = np.where(
        active,
        weight
        * (p["offset"] + p["amplitude"] * np.sin(omega * (e + 1) * DT + math.radians(p["phase"]))),
        0.0,
    )
    np.testing.assert_allclose(current, expected, rtol=0, atol=1e-8)
    assert np.count_nonzero(active) == 60


def test_ac_generator_defaults_give_nothing_and_a_sine_can_be_negative():
    assert np.all(np.abs(driven("ac_generator", {}, 1, 2.0)) < 1e-9)
    current = driven("ac_generator", {"amplitude": 50.0, "frequency": 100.0}, 1, 20.0, weight=-2.0)
    assert current.min() == pytest.approx(-100.0, abs=0.5) and current.max() == pytest.approx(
        100.0, abs=0.5
    )


# --- noise_generator ---------------------------------------------------------------------
def test_noise_generator_redraws_every_dt_from_its_first_step_and_holds_in_between():
    """Each target's current changes at the emission steps first + j·D only (D = dt/h;
    first = s0 − 1, NEST's first active step), arriving d + 1 steps later; nothing before
    the window, nothing after it."""
    p = {"mean": 30.0, "std": 80.0, "dt": 0.5, "start": 1.0, "stop": 31.0}
    d = 2
    current = driven("noise_generator", p, 5, 40.0, delay_ms=d * DT)
    first, last = 9, 308  # s0 - 1, s1 - 2
    starts = first + d + 1 + 5 * np.arange(60)
    for column in current.T:
        assert change_steps(column).tolist() == [*starts.tolist(), last + d + 2]
        assert np.all(column[: starts[0]] == 0.0) and np.all(np.abs(column[last + d + 2 :]) < 1e-9)


def test_noise_generator_amplitudes_are_normal_independent_and_of_the_given_moments():
    mean, std, n = 30.0, 80.0, 100
    current = driven("noise_generator", {"mean": mean, "std": std, "dt": 0.3}, n, 300.0)
    x = current[2::3][:-1]  # the draws: every 3rd step from update step 2 on (intervals x targets)
    np.testing.assert_allclose(
        current[3::3][: x.shape[0]], x, rtol=0, atol=1e-8
    )  # held over the interval
    samples = x.size
    assert abs(x.mean() - mean) < 4 * std / math.sqrt(samples)
    assert abs(x.std() - std) < 4 * std / math.sqrt(2 * samples)
    within = np.mean(np.abs(x - mean) < std)  # a normal's 68.27 %
    assert abs(within - 0.6827) < 4 * math.sqrt(0.6827 * 0.3173 / samples)
    # no correlation between a target's successive amplitudes, nor between targets
    lag1 = np.mean([np.corrcoef(x[:-1, k], x[1:, k])[0, 1] for k in range(n)])
    assert abs(lag1) < 4 / math.sqrt(samples)
    pairs = np.corrcoef(x.T)[np.triu_indices(n, 1)]
    assert np.max(np.abs(pairs)) < 5.5 / math.sqrt(x.shape[0])
    assert abs(pairs.mean()) < 4 / math.sqrt(x.shape[0] * pairs.size)


def test_two_connections_to_one_target_are_two_independent_currents():
    """As NEST (one amplitude per connection): the variance adds up."""
    net = sx.Network(dt_ms=DT, seed=2)
    cells = net.create("iaf_psc_exp", 40)
    noise = net.create("noise_generator", 1, params={"std": 50.0, "dt": 0.1})
    net.connect_rule("all_to_all", noise, cells, weight=1.0, delay_ms=0.1)
    net.connect_rule("all_to_all", noise, cells, weight=1.0, delay_ms=0.1)
    net.record_state(cells, "V_m")
    x = currents(net.simulate(100.0).states[0]["values"])[2:]
    assert abs(x.var() / (2 * 50.0**2) - 1.0) < 4 * math.sqrt(2.0 / x.size)


@pytest.mark.parametrize("dt_ms, every", [(0.1, 10), (0.25, 4), (0.3, 10), (0.5, 2)])
def test_noise_generator_default_dt_is_nests(dt_ms, every):
    """NEST 3.10's default: 1 ms when it is a multiple of the resolution, else 10 steps."""
    current = driven(
        "noise_generator", {"std": 10.0}, 1, 10 * dt_ms * every, delay_ms=dt_ms, dt_ms=dt_ms
    )[:, 0]
    steps = change_steps(current)
    assert steps.size >= 8 and np.all(np.diff(steps) == every)


def test_noise_generator_depends_on_seed_target_and_input_only():
    """Keyed by (seed, target gid, input k, interval): the same currents on 1 or 2 threads
    and whatever device inputs the other targets have; another seed draws others."""
    p = {"mean": 5.0, "std": 40.0, "dt": 0.2}

    def run(threads=1, seed=1, extra=False):
        net = sx.Network(dt_ms=DT, seed=seed, threads=threads)
        cells = net.create("iaf_psc_exp", 6)
        noise = net.create("noise_generator", 1, params=p)
        if extra:  # an earlier input of cell 5: its noise becomes its input k = 1
            net.connect(
                net.create("noise_generator", 1, params=p)[0], cells[5], weight=1.0, delay_ms=0.1
            )
        net.connect_rule("all_to_all", noise, cells, weight=1.0, delay_ms=0.1)
        net.record_state(cells, "V_m")
        return net.simulate(20.0).states[0]["values"]

    one = run()
    np.testing.assert_array_equal(run(threads=2), one)
    others = run(extra=True)
    np.testing.assert_array_equal(others[:, :5], one[:, :5])
    assert not np.array_equal(others[:, 5], one[:, 5])
    assert not np.array_equal(run(seed=2)[:, 0], one[:, 0])


@pytest.mark.parametrize(
    "model, params, message",
    [
        (
            "noise_generator",
            {"dt": 0.25},
            "noise_generator parameter dt = 0.25: must be a multiple of the resolution 0.1 ms",
        ),
        ("noise_generator", {"dt": 0.0}, "noise_generator parameter dt = 0: must be > 0 ms"),
        ("noise_generator", {"std": -1.0}, "noise_generator parameter std = -1: must be >= 0 pA"),
        (
            "noise_generator",
            {"std": 1.0, "std_mod": 2.0},
            "noise_generator parameter std_mod = 2: must be <= std = 1 pA",
        ),
        (
            "noise_generator",
            {"start": 5.0, "stop": 1.0},
            "noise_generator parameter stop = 1: must be >= start = 5 ms",
        ),
        (
            "ac_generator",
            {"start": 5.0, "stop": 1.0},
            "ac_generator parameter stop = 1: must be >= start = 5 ms",
        ),
        (
            "ac_generator",
            {"frequency": float("nan")},
            "create(\"ac_generator\"): params['frequency'] = nan: must be a finite",
        ),
        (
            "ac_generator",
            {"std": 1.0},
            'create("ac_generator"): parameter "std" is unknown: allowed are amplitude,',
        ),
        (
            "noise_generator",
            {"amplitude": 1.0},
            'create("noise_generator"): parameter "amplitude" is unknown: allowed are',
        ),
    ],
)
def test_bad_values_are_refused_naming_model_key_value_and_range(model, params, message):
    net = sx.Network(dt_ms=DT)
    with pytest.raises(ValueError, match=re.escape(message)):
        net.create(model, 1, params=params)
        net.simulate(1.0)


@pytest.mark.parametrize("model", ["ac_generator", "noise_generator"])
def test_current_generators_need_a_model_with_an_input_current(model):
    net = sx.Network(dt_ms=DT)
    cells = net.create("interval_fire", 2)
    device = net.create(model, 1)
    with pytest.raises(ValueError, match=f'"{model}" cannot drive "interval_fire"'):
        net.connect_rule("all_to_all", device, cells, weight=1.0)


# --- determinism: threads, segments, checkpoints, ranks ---------------------------------
# Multi-rank scripts import the network from the test's folder.
SCRIPT_HEAD = f"""
import sys
sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})
from current_devices_users import build
"""


def test_same_spikes_on_threads_in_segments_and_through_a_checkpoint(tmp_path):
    whole = build().simulate(200.0)
    assert whole.summary["spikes_total"] > 100
    reference = whole.summary["spikes_sha256"]
    assert (
        build(threads=2, distribution="random_shuffle").simulate(200.0).summary["spikes_sha256"]
        == reference
    )
    net = build()
    for t in (37.3, 91.0, 200.0):  # the sine and the draws go on across simulate calls
        result = net.simulate_until(t)
    assert result.summary["spikes_sha256"] == reference
    net = build(threads=2)
    net.simulate_until(123.4)
    net.save(tmp_path / "checkpoint")
    resumed = build(method="alltoall")
    resumed.restore(tmp_path / "checkpoint")  # turns the sines 1234 steps first
    assert resumed.simulate_until(200.0).summary["spikes_sha256"] == reference


@pytest.mark.mpi
@pytest.mark.slow
def test_same_spikes_on_one_and_two_ranks_and_through_a_checkpoint_between_them(tmp_path):
    script = SCRIPT_HEAD + textwrap.dedent(
        f"""
        from spikex import _core
        ranks = _core.comm_size()
        for threads in (1, 2):
            result = build(threads=threads, method="multisend").simulate(200.0)
            if _core.comm_rank() == 0:
                print("RESULT", ranks, threads, result.summary["spikes_sha256"], flush=True)
        if ranks == 2:
            net = build(distribution="consecutive")
            net.simulate_until(77.7)
            net.save({str(tmp_path / "checkpoint")!r})
        """
    )
    two = run_spmd(script, 2, tmp_path)
    assert two.returncode == 0, two.stdout + two.stderr
    resume = SCRIPT_HEAD + textwrap.dedent(
        f"""
        from spikex import _core
        net = build(threads=2)
        net.restore({str(tmp_path / "checkpoint")!r})
        print("RESULT resumed", net.simulate_until(200.0).summary["spikes_sha256"], flush=True)
        """
    )
    one = run_spmd(script, 1, tmp_path)
    resumed = run_spmd(resume, 1, tmp_path)
    assert one.returncode == 0 and resumed.returncode == 0, one.stderr + resumed.stderr
    rows = [
        line.split()[1:]
        for done in (one, two, resumed)
        for line in done.stdout.splitlines()
        if line.startswith("RESULT")
    ]
    hashes = {row[-1] for row in rows}
    assert len(rows) == 5 and len(hashes) == 1, rows
