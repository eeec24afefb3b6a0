"""The Python API gives the same network and spikes as the configuration path, can
continue a simulation, and rebuilds a network from its own connection lists."""

from __future__ import annotations

import json

import numpy as np
import pytest
import spikex as sx
from conftest import run_config, run_spmd, write_config


@pytest.fixture(scope="module")
def config_run(tmp_path_factory):
    directory = tmp_path_factory.mktemp("api")
    config = write_config(directory)
    return config, run_config(config, directory / "out", 1)


def test_from_config_equals_spikex_run(config_run):
    config, summary = config_run
    result = sx.Network.from_config(config).simulate(100.0)
    assert result.summary["spikes_sha256"] == summary["spikes_sha256"]
    assert result.summary["connections"] == summary["connections"]


def test_network_rebuilt_from_its_connections_gives_the_same_spikes(config_run):
    config, summary = config_run
    original = sx.Network.from_config(config)
    conns = original.connections()
    assert conns["source"].size == summary["connections"]

    rebuilt = sx.Network(dt_ms=0.025, seed=7)
    cells = rebuilt.create("interval_fire", 400)
    rebuilt.connect(
        conns["source"], conns["target"], weight=conns["weight"], delay_ms=conns["delay_ms"]
    )
    rebuilt.record_spikes(cells)
    result = rebuilt.simulate(100.0)
    assert result.summary["spikes_sha256"] == summary["spikes_sha256"]


@pytest.mark.parametrize("weight", ("one", "each"))
@pytest.mark.parametrize("delay", ("one", "each"))
def test_connections_keep_their_weights_and_delays_while_waiting_for_the_build(weight, delay):
    # A set whose connections share a weight or delay waits with one value (the engine
    # keeps them compact until the build); each connection must get its own back.
    net = sx.Network(dt_ms=0.1, seed=3)
    net.create("iaf_psc_exp", 20)
    rng = np.random.default_rng(1)
    sources, targets = rng.integers(0, 20, 200), rng.integers(0, 20, 200)
    weights = np.full(200, -0.0) if weight == "one" else rng.uniform(-5.0, 5.0, 200)
    delays = np.full(200, 1.3) if delay == "one" else rng.choice([0.1, 0.25, 1.3, 7.0], 200)
    net.connect(sources, targets, weight=weights, delay_ms=delays)
    net.connect(0, 1, weight=2.5, delay_ms=0.4)  # a set of one connection
    got = net.connections()
    order = np.lexsort((got["delay_ms"], got["weight"], got["target"], got["source"]))
    given = np.lexsort(
        (
            np.append(delays, 0.4),
            np.append(weights, 2.5),
            np.append(targets, 1),
            np.append(sources, 0),
        )
    )
    np.testing.assert_array_equal(got["source"][order], np.append(sources, 0)[given])
    np.testing.assert_array_equal(got["target"][order], np.append(targets, 1)[given])
    np.testing.assert_array_equal(
        got["weight"][order].view(np.int64), np.append(weights, 2.5)[given].view(np.int64)
    )
    np.testing.assert_allclose(
        got["delay_ms"][order], np.floor(np.append(delays, 0.4)[given] / 0.1 + 0.5) * 0.1
    )  # halves up, as NEST
    with pytest.raises(ValueError, match="dry run of a built network"):
        net.dry_run_partition(2)


@pytest.mark.parametrize("first_ms", (50.0, 33.3))
def test_two_simulate_calls_equal_one(config_run, first_ms):
    config, summary = config_run
    net = sx.Network.from_config(config)
    net.simulate(first_ms)
    result = net.simulate(100.0 - first_ms)
    assert result.summary["spikes_sha256"] == summary["spikes_sha256"]
    assert result.summary["events_delivered"] == summary["events_delivered"]


def test_results_of_partial_runs_are_prefixes(config_run):
    config, _ = config_run
    net = sx.Network.from_config(config)
    early_gids, early_times = net.simulate(40.0).spikes
    gids, times = net.simulate(60.0).spikes
    assert early_times.max() < 40.0
    np.testing.assert_array_equal(gids[: early_gids.size], early_gids)
    np.testing.assert_array_equal(times[: early_times.size], early_times)


@pytest.mark.mpi
@pytest.mark.slow
def test_variable_delays_and_multapses_are_deterministic(tmp_path):
    """Per-connection delays (several delay groups per source) and repeated connections
    go through the engine's merge path; 1 and 3 ranks must agree."""
    script = """
        import json, numpy as np, spikex as sx
        net = sx.Network(dt_ms=0.1, seed=5)
        cells = net.create("interval_fire", 90, params={"invl_low_ms": 5.0, "invl_high_ms": 9.0})
        rng = np.random.default_rng(0)
        src = rng.integers(0, 90, 3000); tgt = rng.integers(0, 90, 3000)
        src = np.concatenate([src, src[:500]]); tgt = np.concatenate([tgt, tgt[:500]])
        delay = rng.choice([0.5, 1.0, 1.5], src.size)
        weight = rng.uniform(-0.05, 0.06, src.size)
        net.connect(src, tgt, weight=weight, delay_ms=delay)
        net.record_spikes(cells)
        result = net.simulate(120.0)
        if net.rank == 0:
            print(json.dumps(result.summary))
    """
    summaries = []
    for ranks in (1, 3):
        done = run_spmd(script, ranks, tmp_path)
        assert done.returncode == 0, done.stderr
        summaries.append(json.loads(done.stdout.strip().splitlines()[-1]))
    assert summaries[0]["spikes_total"] > 100
    assert summaries[0]["spikes_sha256"] == summaries[1]["spikes_sha256"]
    assert summaries[0]["events_delivered"] == summaries[1]["events_delivered"]


@pytest.mark.mpi
def test_api_under_mpiexec_gathers_spikes_on_every_rank(tmp_path, config_run):
    config, summary = config_run
    # each rank writes its own file: two ranks' stdout lines may interleave
    script = f"""
        import spikex as sx
        net = sx.Network.from_config({str(config)!r})
        result = net.simulate(100.0)
        with open(f"rank{{net.rank}}.txt", "w") as out:
            out.write(f"{{result.summary['ranks']}} {{result.spikes[0].size}} {{result.summary['spikes_sha256']}}")
    """
    done = run_spmd(script, 2, tmp_path)
    assert done.returncode == 0, done.stderr
    for rank in (0, 1):
        ranks, count, sha = (tmp_path / f"rank{rank}.txt").read_text().split()
        assert (int(ranks), int(count), sha) == (
            2,
            summary["spikes_total"],
            summary["spikes_sha256"],
        )


def test_bad_parameters_raise_value_error():
    net = sx.Network()
    with pytest.raises(ValueError, match="tau_ms"):
        net.create("interval_fire", 10, params={"tau_ms": -1.0})
    with pytest.raises(ValueError, match="no_such_model|model"):
        net.create("no_such_model", 10)
    cells = net.create("interval_fire", 10)
    with pytest.raises(ValueError, match="delay"):
        net.connect([0], [1], weight=0.1, delay_ms=0.001)
    with pytest.raises(ValueError):
        net.connect([0], [10], weight=0.1)  # gid 10 does not exist
    with pytest.raises(ValueError, match="method"):
        sx.Network(method="carrier_pigeon")
    assert cells.size == 10


@pytest.mark.parametrize(
    "n, value", [(1, True), (3, False), (2, [True, 3.0]), (2, np.array([1, 0], bool))]
)
def test_true_or_false_is_not_a_number(n, value):
    # NEST refuses a boolean for a double parameter; only flag parameters take them.
    net = sx.Network()
    with pytest.raises(ValueError, match=r"params\['tau_m'\].*True/False is not a number"):
        net.create("iaf_psc_exp", n, params={"tau_m": value})
    cells = net.create("iaf_psc_exp", 2)
    with pytest.raises(ValueError, match="weight.*True/False"):
        net.connect(cells, cells, weight=True)
    flags = net.create("glif_psc", 2, params={"after_spike_currents": [True, False]})
    assert flags.size == 2
