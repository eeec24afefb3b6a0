"""ac_generator and noise_generator against NEST 3.10 (bench/nest/current_devices_network.py,
NEST side bench/nest/nest_current_devices.py).

ac_generator: iaf_psc_exp neurons driven by ac_generators for 10^4 steps have NEST's
membrane potential bit for bit at every step, and NEST's spikes. spikex turns NEST's
rotation-matrix recurrence; a closed-form sine differs from NEST's current by a few ulps at
most steps (shown here on NEST's own recorded current), which moves V_m by ~1e-12 mV.

noise_generator: the random numbers differ (NEST's generator, spikex's counter-based
streams), so the comparison is statistical, but the steps at which every target's current
changes are NEST's exactly. Each target's current is read back from its membrane
(iaf_psc_exp far below threshold: I_k = (U_k − P22·U_{k−1}) / P20, U = V_m − E_L, exact to
~1e-10 pA). Both simulators: amplitudes of NEST's mean and standard deviation, no
correlation between successive intervals nor between targets, the membrane's mean and
variance, and a sine-modulated variance with NEST's phase, each within a few standard
errors."""

from __future__ import annotations

import json
import math
import sys

import numpy as np
import pytest
from conftest import REPO, require_nest

sys.path.insert(0, str(REPO / "bench" / "nest"))
import current_devices_network as cdn
import run_exact

import spikex as sx

pytestmark = pytest.mark.slow  # NEST in a subprocess

_REASON = run_exact.nest_unavailable_reason()
SCRIPT = REPO / "bench" / "nest" / "nest_current_devices.py"
DT = cdn.DT
# iaf_psc_exp's defaults (both simulators): the membrane's propagators of one step.
TAU_M, C_M, E_L = 10.0, 250.0, -70.0
P22 = math.exp(-DT / TAU_M)
P20 = TAU_M / C_M * (1.0 - P22)


# --- ac_generator ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def nest_ac():
    require_nest(_REASON)
    done = run_exact.run_nest_script(SCRIPT, args=["ac"])
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def spikex_ac():
    net = sx.Network(dt_ms=DT, seed=1)
    neurons = [
        net.create("iaf_psc_exp", 1, params=p, name=f"n{k}") for k, p in enumerate(cdn.AC_NEURONS)
    ]
    generators = [net.create("ac_generator", 1, params=p) for p in cdn.AC]
    for generator, target, weight, delay in cdn.ac_connections():
        net.connect(generators[generator][0], neurons[target][0], weight=weight, delay_ms=delay)
    cells = sx.Population(neurons[0].first_gid, len(cdn.AC_NEURONS), "iaf_psc_exp")
    net.record_state(cells, "V_m")
    net.record_spikes(cells)
    return net.simulate(cdn.AC_T_SIM), cells.first_gid


def test_ac_membrane_potential_is_nests_bit_for_bit(nest_ac, spikex_ac):
    result, _ = spikex_ac
    mine = result.states[0]["values"]
    times, cells, values = (np.asarray(nest_ac["V_m"][k]) for k in ("times", "cells", "values"))
    for k in range(len(cdn.AC_NEURONS)):
        steps = np.rint(times[cells == k] / DT).astype(int) - 1  # NEST's (n + 1)·dt is step n
        assert steps.size == round(cdn.AC_T_SIM / DT) - 1
        np.testing.assert_array_equal(mine[steps, k], values[cells == k], err_msg=f"neuron {k}")
        assert np.ptp(mine[:, k]) > 5.0  # the sines move V


def test_ac_spikes_are_nests(nest_ac, spikex_ac):
    result, first = spikex_ac
    mine = sorted(zip((result.spikes[0] - first).tolist(), result.spike_steps.tolist()))
    stamps = (np.rint(np.asarray(nest_ac["spikes"]["times"]) / DT) - 1).astype(int).tolist()
    theirs = sorted(zip(nest_ac["spikes"]["cells"], stamps))
    assert len(theirs) >= 10, theirs
    assert mine == theirs


def test_nests_ac_current_is_its_recurrence_not_a_closed_form_sine(nest_ac):
    """Why spikex turns the recurrence: NEST's recorded I of step e (its multimeter's time
    (e + 1)·dt) differs from offset + amplitude·sin(ω(e + 1)h + φ) by rounding at most
    steps, and equals the recurrence replayed here in the same operations."""
    times, generator, values = (
        np.asarray(nest_ac["I"][k]) for k in ("times", "generators", "values")
    )
    p = cdn.AC[0]
    mine = times[generator == 0]
    theirs = values[generator == 0]
    omega = 2.0 * math.pi * p["frequency"] / 1000.0
    phi = p["phase"] * 2.0 * math.pi / 360.0
    y0, y1 = p["amplitude"] * math.cos(phi), p["amplitude"] * math.sin(phi)
    c, s = math.cos(omega * DT), math.sin(omega * DT)
    recurrence = {}
    for e in range(round(cdn.AC_T_SIM / DT)):
        y0, y1 = c * y0 + (-s) * y1, s * y0 + c * y1
        recurrence[e] = y1 + p["offset"]
    steps = np.rint(mine / DT).astype(int) - 1
    replayed = np.array([recurrence[e] for e in steps])
    np.testing.assert_array_equal(replayed, theirs)
    closed = p["offset"] + p["amplitude"] * np.sin(omega * (steps + 1) * DT + phi)
    assert np.count_nonzero(closed != theirs) > steps.size // 2
    np.testing.assert_allclose(closed, theirs, rtol=0, atol=1e-9)


# --- noise_generator -------------------------------------------------------------------
@pytest.fixture(scope="module")
def nest_noise(tmp_path_factory):
    require_nest(_REASON)
    path = tmp_path_factory.mktemp("nest_noise") / "noise.npz"
    done = run_exact.run_nest_script(SCRIPT, args=["noise", str(path)])
    assert done.returncode == 0, done.stdout + done.stderr
    data = np.load(path)
    assert data["dt_ms"].tolist() == [1.0, 0.3, 0.5]  # NEST's default dt at resolution 0.1: 1 ms
    return currents(data["V_m"])


@pytest.fixture(scope="module")
def spikex_noise():
    net = sx.Network(dt_ms=DT, seed=3)
    cells = net.create("iaf_psc_exp", cdn.NOISE_NEURONS, params=cdn.NOISE_NEURON)
    generators = [net.create("noise_generator", 1, params=p) for p in cdn.NOISE]
    for generator, target, weight, delay in cdn.noise_targets():
        net.connect(generators[generator][0], cells[target], weight=weight, delay_ms=delay)
    net.record_state(cells, "V_m")
    result = net.simulate(cdn.NOISE_T_SIM)
    v = result.states[0]["values"][:-1]  # the steps NEST's multimeter records
    assert not result.spike_steps.size
    return currents(v)


def currents(v: np.ndarray) -> dict:
    """V_m (rows: steps 0, 1, ...) and the current that acted in each step from 1 on."""
    u = v - E_L
    return {"V_m": v, "I": (u[1:] - P22 * u[:-1]) / P20}


def _groups():
    first = 0
    for generator, count, _, _ in cdn.NOISE_GROUPS:
        yield generator, slice(first, first + count)
        first += count


def _changes(current: np.ndarray) -> list[np.ndarray]:
    return [np.flatnonzero(np.abs(np.diff(current[:, k])) > 1e-6) for k in range(current.shape[1])]


def _interval_samples(current: np.ndarray, generator: int, cells: slice) -> np.ndarray:
    """One value per interval and target (rows: intervals), from the steps where the
    current changes: the amplitudes the generator drew."""
    column = current[:, cells]
    starts = _changes(column)[0] + 1
    spec = cdn.NOISE[generator]
    interval = round(spec.get("dt", 1.0) / DT)
    assert np.all(np.diff(starts) == interval)
    inside = starts[:-1]  # the last change may be the stop
    return column[inside, :]


def test_noise_changes_at_nests_steps(nest_noise, spikex_noise):
    mine, theirs = _changes(spikex_noise["I"]), _changes(nest_noise["I"])
    for k in range(cdn.NOISE_NEURONS):
        assert mine[k].size > 1000
        np.testing.assert_array_equal(mine[k], theirs[k], err_msg=f"target {k}")


@pytest.mark.parametrize("generator", range(len(cdn.NOISE)))
def test_noise_amplitudes_have_nests_statistics(nest_noise, spikex_noise, generator):
    _, cells = list(_groups())[generator]
    spec = cdn.NOISE[generator]
    both = {}
    for name, run in (("spikex", spikex_noise), ("nest", nest_noise)):
        x = _interval_samples(run["I"], generator, cells)
        n = x.size
        mean, std = x.mean(), x.std()
        # successive intervals of one target, and pairs of targets in one interval
        lag1 = np.mean([np.corrcoef(x[:-1, k], x[1:, k])[0, 1] for k in range(x.shape[1])])
        pairs = np.corrcoef(x.T)[np.triu_indices(x.shape[1], 1)]
        assert abs(lag1) < 4.0 / math.sqrt(n), (name, lag1)
        assert np.max(np.abs(pairs)) < 5.0 / math.sqrt(x.shape[0]), (name, pairs)
        assert abs(np.mean(pairs)) < 4.0 / math.sqrt(x.shape[0] * pairs.size), (
            name,
            np.mean(pairs),
        )
        if "std_mod" not in spec:
            assert abs(mean - spec["mean"]) < 4.0 * spec["std"] / math.sqrt(n), (name, mean)
            assert abs(std - spec["std"]) < 4.0 * spec["std"] / math.sqrt(2 * n), (name, std)
        both[name] = (mean, std, n)
    (m1, s1, n1), (m2, s2, n2) = both["spikex"], both["nest"]
    assert abs(m1 - m2) < 4.0 * math.hypot(s1 / math.sqrt(n1), s2 / math.sqrt(n2))
    assert abs(s1 - s2) < 4.0 * math.hypot(s1 / math.sqrt(2 * n1), s2 / math.sqrt(2 * n2))


def _batch_moments(v: np.ndarray, batch_steps: int = 1000) -> tuple[float, float, float, float]:
    """Mean and variance of V_m over batches of 100 ms of every target, and their standard
    errors from the spread of the batches (the membrane is correlated over ~tau_m)."""
    v = v[2000:]  # after the first 200 ms
    batches = v[: v.shape[0] // batch_steps * batch_steps].reshape(-1, batch_steps, v.shape[1])
    means, variances = batches.mean(axis=1).ravel(), batches.var(axis=1).ravel()
    n = means.size
    return (
        means.mean(),
        means.std() / math.sqrt(n),
        variances.mean(),
        variances.std() / math.sqrt(n),
    )


@pytest.mark.parametrize("generator", range(len(cdn.NOISE)))
def test_noise_drives_the_membrane_as_nests(nest_noise, spikex_noise, generator):
    _, cells = list(_groups())[generator]
    m1, e1, var1, f1 = _batch_moments(spikex_noise["V_m"][:, cells])
    m2, e2, var2, f2 = _batch_moments(nest_noise["V_m"][:, cells])
    assert abs(m1 - m2) < 4.0 * math.hypot(e1, e2), (m1, m2, e1, e2)
    assert abs(var1 - var2) < 4.0 * math.hypot(f1, f2), (var1, var2, f1, f2)
    assert var1 > 0.1


def test_modulated_variance_follows_nests_phase(nest_noise, spikex_noise):
    """std² + std_mod²·sin(ω(e − first + 1)h + φ): NEST turns its sine in active steps only,
    from the phase at the first active step. Variance per eighth of the period, both
    simulators, against each other and that law."""
    generator = 2
    _, cells = list(_groups())[generator]
    spec = cdn.NOISE[generator]
    interval = round(spec["dt"] / DT)
    period = round(1000.0 / spec["frequency"] / DT)  # steps
    omega_h = 2.0 * math.pi * spec["frequency"] / 1000.0 * DT
    measured = {}
    for name, run in (("spikex", spikex_noise), ("nest", nest_noise)):
        column = run["I"][:, cells]
        starts = _changes(column)[0] + 1
        x = column[starts[:-1], :]
        # row k of I acts in update step k + 1, which reads the current the target's buffer
        # holds at step k: that of emission step e = k - d
        delay = round(cdn.NOISE_GROUPS[generator][3][0] / DT)
        first = round(spec["start"] / DT) - 1
        e = starts[:-1] - delay
        assert e[0] == first and np.all((e - first) % interval == 0)
        phase = (e - first) % period
        bins = (phase * 8) // period
        measured[name] = [x[bins == b].var() for b in range(8)]
        law = [
            np.mean(
                spec["std"] ** 2
                + spec["std_mod"] ** 2
                * np.sin(omega_h * (e[bins == b] - first + 1) + math.radians(spec["phase"]))
            )
            for b in range(8)
        ]
        for b in range(8):
            n = np.count_nonzero(bins == b) * x.shape[1]
            assert abs(measured[name][b] - law[b]) < 5.0 * law[b] * math.sqrt(2.0 / n), (name, b)
    for b in range(8):
        n = x.size / 8
        tolerance = (
            5.0 * math.hypot(measured["spikex"][b], measured["nest"][b]) * math.sqrt(2.0 / n)
        )
        assert abs(measured["spikex"][b] - measured["nest"][b]) < tolerance, b
    assert max(measured["nest"]) > 2.0 * min(measured["nest"])  # the modulation shows
