"""Devices as populations: spike_source_array, poisson_generator (an independent train per
target, computed on the target's rank) and their timing; mixed-model networks."""

from __future__ import annotations

import numpy as np
import pytest

import spikex as sx

# interval_fire targets that never fire by themselves within the tests' time and fire at
# once on an input of weight > 1: each target spike marks a step with input.
SILENT = {"tau_ms": 1000.0, "invl_low_ms": 20000.0, "invl_high_ms": 20000.0}  # first spike after ~20 s


def _targets(net, n):
    return net.create("interval_fire", n, params=SILENT, name="targets")


def test_spike_source_array_emits_one_step_before_the_given_time_and_reaches_targets_like_nest():
    net = sx.Network(dt_ms=0.1, seed=1)
    source = net.create(
        "spike_source_array", 2, params={"spike_times": [[1.0, 2.5], [0.1]]}, name="src"
    )
    targets = _targets(net, 2)
    net.connect(source.gids, targets.gids, weight=2.0, delay_ms=np.array([0.3, 1.0]))
    net.record_spikes(source)
    net.record_spikes(targets)
    result = net.simulate(5.0)
    gids, steps = result.spikes[0], result.spike_steps
    by_cell = {int(g): sorted(int(s) for s in steps[gids == g]) for g in np.unique(gids)}
    # NEST stamps t; spikex reports the step before (t/dt - 1), as for every model.
    assert by_cell[source[0]] == [9, 24]
    assert by_cell[source[1]] == [0]
    # Emitted at step n, delivered at n + d: targets fire at the arrival step.
    assert by_cell[targets[0]] == [12, 27]
    assert by_cell[targets[1]] == [10]
    assert result.summary["populations"]["src"]["spikes"] == 3


@pytest.mark.parametrize("bad", [0.0, -1.0, 1e-12])
def test_spike_source_array_refuses_bad_times_naming_population_and_cell(bad):
    net = sx.Network(dt_ms=0.1)
    message = rf"population 'inputs' cell 1: spike_times contains {bad!r} ms: each time must be a finite number > 0"
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        net.create("spike_source_array", 2, params={"spike_times": [[1.0], [2.0, bad]]}, name="inputs")


def test_spike_source_array_emits_off_grid_times_at_the_end_of_their_step():
    """NEST's rule under pyNN.nest: the stamp is ceil(t/dt) (within 1e-6 step of a grid
    point counts as on it); times sharing a step are one spike, with a warning."""
    net = sx.Network(dt_ms=0.1)
    with pytest.warns(UserWarning, match="cell 1: spike times 0.51 and 0.55 ms fall in one step"):
        source = net.create("spike_source_array", 2, params={"spike_times": [[0.01, 0.96, 2.0000001], [0.51, 0.55]]})
    net.record_spikes(source)
    result = net.simulate(3.0)
    gids, steps = result.spikes[0], result.spike_steps
    assert steps[gids == source[0]].tolist() == [0, 9, 19]
    assert steps[gids == source[1]].tolist() == [5]  # stamp 6: the step (0.5, 0.6]


def test_poisson_generator_is_active_for_emission_steps_after_start_up_to_stop():
    """With ~100 events per step every step of the window delivers: NEST 3.10's window
    (start, stop] in emission steps, each arriving after the connection's delay."""
    net = sx.Network(dt_ms=0.1, seed=2)
    generator = net.create("poisson_generator", 1, params={"rate": 1e6, "start": 1.0, "stop": 2.0})
    targets = _targets(net, 3)
    net.connect_rule("all_to_all", generator, targets, weight=2.0, delay_ms=0.3)
    net.record_spikes(targets)
    result = net.simulate(5.0)
    for gid in targets:
        steps = result.spike_steps[result.spikes[0] == gid]
        assert steps.tolist() == list(range(10 + 1 + 3, 20 + 3 + 1))


def test_poisson_generator_gives_each_target_its_own_train_with_the_right_rate():
    dt, rate, t_ms, n = 0.1, 500.0, 2000.0, 200
    net = sx.Network(dt_ms=dt, seed=5)
    generator = net.create("poisson_generator", 1, params={"rate": rate})
    targets = _targets(net, n)
    net.connect_rule("all_to_all", generator, targets, weight=2.0, delay_ms=0.1)
    net.record_spikes(targets)
    result = net.simulate(t_ms)
    gids = result.spikes[0]
    counts = np.array([np.count_nonzero(gids == g) for g in targets])
    # A target fires in every step with at least one event: p = 1 - exp(-rate dt).
    steps = int(round(t_ms / dt)) - 2  # emission steps 1.. that arrive before the end
    p = 1.0 - np.exp(-rate * dt / 1000.0)
    mean, sd = steps * p, np.sqrt(steps * p * (1 - p))
    assert abs(counts.mean() - mean) < 5 * sd / np.sqrt(n)
    assert abs(counts.std() - sd) < 0.25 * sd
    trains = {tuple(result.spike_steps[gids == g]) for g in targets}
    assert len(trains) == n  # independent trains, not one shared train


def test_devices_take_no_input():
    net = sx.Network(dt_ms=0.1)
    cells = _targets(net, 2)
    generator = net.create("poisson_generator", 1, params={"rate": 10.0})
    with pytest.raises(ValueError, match='"poisson_generator" takes no input'):
        net.connect(cells[0], generator[0], weight=1.0, delay_ms=1.0)
    source = net.create("spike_source_array", 1)
    with pytest.raises(ValueError, match="takes no input"):
        net.connect_rule("all_to_all", cells, source, weight=1.0)


def test_dc_generator_needs_a_model_with_an_input_current():
    net = sx.Network(dt_ms=0.1)
    cells = _targets(net, 2)
    dc = net.create("dc_generator", 1, params={"amplitude": 10.0})
    with pytest.raises(ValueError, match='"dc_generator" cannot drive "interval_fire"'):
        net.connect_rule("all_to_all", dc, cells, weight=1.0)


@pytest.mark.parametrize(
    "model, params, message",
    [
        ("poisson_generator", {"rate": -1.0}, "rate = -1: must be >= 0 Hz"),
        ("poisson_generator", {"start": 5.0, "stop": 1.0}, "stop = 1: must be >= start"),
        ("poisson_generator", {"amplitude": 1.0}, 'parameter "amplitude" is unknown'),
        ("dc_generator", {"rate": 1.0}, 'parameter "rate" is unknown'),
        ("poisson_generator", {"rate": 1e9}, "must be <= 5000000 Hz"),
    ],
)
def test_bad_device_parameters_name_the_parameter(model, params, message):
    net = sx.Network(dt_ms=0.1)
    generator = net.create(model, 1, params=params) if "unknown" not in message else None
    if generator is None:
        with pytest.raises(ValueError, match=message):
            net.create(model, 1, params=params)
        return
    cells = _targets(net, 1) if model == "poisson_generator" else None
    if cells is not None:
        net.connect(generator[0], cells[0], weight=2.0, delay_ms=0.1)
    with pytest.raises(ValueError, match=message):
        net.simulate(1.0)


@pytest.mark.parametrize(
    "value, message",
    [
        (sx.normal(10.0, -1.0), "normal std = -1: must be >= 0"),
        (sx.normal_clipped(0.0, 1.0, low=5.0, high=4.0), "normal_clipped low = 5: must be <= high = 4"),
        (sx.normal_clipped(0.0, 1.0, low=50.0, high=60.0), "has probability < 1e-06"),
        (sx.uniform(3.0, 1.0), "uniform low = 3: must be <= high = 1"),
        (sx.exponential(0.0), "exponential beta = 0: must be > 0"),
        (sx.lognormal(float("nan"), 1.0), "lognormal mean = nan: must be a finite number"),
        ([1.0, 2.0], "has 2 values for 3 cells"),
    ],
)
def test_impossible_distributions_and_arrays_are_refused_at_create(value, message):
    net = sx.Network(dt_ms=0.1)
    with pytest.raises(ValueError, match=message) as error:
        net.create("poisson_generator", 3, params={"rate": value})
    assert "rate" in str(error.value) and "\n" not in str(error.value)


def test_a_delay_distribution_must_stay_above_dt():
    net = sx.Network(dt_ms=0.1)
    cells = _targets(net, 3)
    with pytest.raises(ValueError, match=r"delay_ms = normal: its smallest possible value is -inf ms: must be >= 0.05 ms"):
        net.connect_rule("fixed_indegree", cells, cells, indegree=1, delay_ms=sx.normal(1.0, 0.5))
    net.connect_rule("fixed_indegree", cells, cells, indegree=1, delay_ms=sx.normal_clipped(1.0, 0.5, low=0.1))


def test_unknown_model_lists_the_registry():
    net = sx.Network(dt_ms=0.1)
    with pytest.raises(ValueError, match='model = "iaf_psc_foo": must be one of .*"poisson_generator"'):
        net.create("iaf_psc_foo", 3)


def test_delays_from_a_distribution_are_rounded_to_steps_down_to_half_a_step():
    net = sx.Network(dt_ms=0.1, seed=2)
    cells = _targets(net, 30)
    net.connect_rule(
        "fixed_indegree", cells, cells, indegree=20, weight=0.01,
        delay_ms=sx.normal_clipped(0.1, 0.1, low=0.05, high=0.25), allow_autapses=False,
    )  # fmt: skip
    steps = np.rint(net.connections()["delay_ms"] / 0.1).astype(int)
    assert set(steps.tolist()) == {1, 2}  # [0.05, 0.15) -> 1 step, [0.15, 0.25] -> 2 steps
    with pytest.raises(ValueError, match=r"must be >= 0.05 ms \(dt/2, which rounds to one step"):
        net2 = sx.Network(dt_ms=0.1)
        c2 = _targets(net2, 3)
        net2.connect_rule("fixed_indegree", c2, c2, indegree=1, delay_ms=sx.uniform(0.04, 1.0))


def test_spike_source_poisson_sends_one_train_to_every_target_within_its_window():
    net = sx.Network(dt_ms=0.1, seed=4)
    trains = net.create("spike_source_poisson", 40, params={"rate": 80.0, "start": 100.0, "stop": 600.0}, name="trains")
    targets = _targets(net, 3)
    net.connect(np.repeat(trains[0], 3), targets.gids, weight=2.0, delay_ms=np.array([0.1, 0.5, 1.0]))
    net.record_spikes(trains)
    net.record_spikes(targets)
    result = net.simulate(800.0)
    gids, steps = result.spikes[0], result.spike_steps
    source = steps[gids < targets.first_gid]
    # 40 trains x 80 Hz x 0.5 s = 1600 expected (Poisson: sd 40); all inside [start, stop)
    assert abs(source.size - 1600) < 200
    assert source.min() >= 999 and (source.max() + 1) * 0.1 < 600.0 + 1e-9
    # every target receives the same spikes of cell 0, each after its own delay
    first = np.sort(steps[gids == trains[0]])
    for target, delay_steps in zip(targets.gids, (1, 5, 10)):
        assert np.array_equal(np.sort(steps[gids == target]), first + delay_steps)
    # the trains differ from cell to cell and with the seed
    assert not np.array_equal(first, np.sort(steps[gids == trains[1]]))


def test_spike_source_poisson_bad_parameters_name_the_key():
    net = sx.Network(dt_ms=0.1)
    net.create("spike_source_poisson", 2, params={"rate": -1.0})
    with pytest.raises(ValueError, match="rate = -1: must be >= 0 Hz"):
        net.simulate(1.0)


def _poisson_trains(first_rate, changes, threads=1):
    """The input steps of 4 targets, each driven one-to-one by its own poisson_generator
    (all of rate first_rate), over 50 ms, then `changes` ({device index: rate}), 50 ms more."""
    net = sx.Network(dt_ms=0.1, seed=4, threads=threads)
    generators = net.create("poisson_generator", 4, params={"rate": first_rate})
    targets = _targets(net, 4)
    net.connect_rule("one_to_one", generators, targets, weight=2.0, delay_ms=0.1)
    net.record_spikes(targets)
    net.simulate(50.0)
    for k, rate in changes.items():
        net.set(generators.first_gid + k, rate=rate)
    result = net.simulate(50.0)
    gids = result.spikes[0]
    return [result.spike_steps[gids == g] for g in targets]


@pytest.mark.parametrize("threads", [1, 2])
def test_a_poisson_generator_changed_between_runs_leaves_alike_devices_trains_alone(threads):
    """Alike devices (one per target, the same rate: PyNN's SpikeSourcePoisson) are drawn
    side by side; changing one between runs takes its train to the new rate from the next
    emission step on, the others' trains stay as they were: each train is what a device
    with that rate throughout would give in its own steps."""
    changed = _poisson_trains(800.0, {2: 3000.0}, threads)
    slow = _poisson_trains(800.0, {}, threads)
    fast = _poisson_trains(3000.0, {}, threads)
    assert all(len(t) > 40 for t in slow)
    for k in range(4):
        if k != 2:
            np.testing.assert_array_equal(changed[k], slow[k])
    # Emission step e (input at e + 2 with delay 1 and the target's output step) from the
    # change on follows the new rate.
    boundary = 500 + 2
    before, after = changed[2][changed[2] < boundary], changed[2][changed[2] >= boundary]
    np.testing.assert_array_equal(before, slow[2][slow[2] < boundary])
    np.testing.assert_array_equal(after, fast[2][fast[2] >= boundary])
    assert len(after) > 2 * len(slow[2][slow[2] >= boundary])
