"""The renewal spike sources (spike_source_gamma, spike_source_poisson_refractory,
spike_source_inh_gamma; docs/models/spike_source_trains.md) give the same spikes on 1 and
2 threads and on 2 ranks, for every cell distribution, across a parameter change between
runs; each target receives its source's one train (the network:
spike_source_trains_network.py, run under mpiexec)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import spikex as sx
from conftest import marked
from spike_source_trains_network import run

HERE = Path(__file__).resolve().parent


# interval_fire targets that fire at once on an input of weight > 1 and never by
# themselves within the test (tests/python/networks/test_devices.py).
SILENT = {"tau_ms": 1000.0, "invl_low_ms": 20000.0, "invl_high_ms": 20000.0}


def test_each_target_receives_its_sources_one_train():
    net = sx.Network(dt_ms=0.1, seed=2)
    sources = [
        net.create("spike_source_gamma", 1, params={"rate": 30.0, "gamma_shape": 2, "n_proc": 3}),
        net.create(
            "spike_source_poisson_refractory",
            1,
            params={"rate": 60.0, "dead_time": 2.0, "n_proc": 2},
        ),
        net.create(
            "spike_source_inh_gamma", 1, params={"rate_times": [0.0], "rate_values": [80.0]}
        ),
    ]
    receivers = []
    for source in sources:
        targets = net.create("interval_fire", 3, params=SILENT)
        receivers.append(targets)
        net.connect(
            np.repeat(source[0], 3), targets.gids, weight=2.0, delay_ms=np.array([0.1, 0.5, 1.0])
        )
        net.record_spikes(source)
        net.record_spikes(targets)
    result = net.simulate(1000.0)
    gids, steps = result.spikes[0], result.spike_steps
    for source, targets in zip(sources, receivers):
        own = np.sort(steps[gids == source[0]])
        assert own.size > 40
        for k, delay in enumerate((1, 5, 10)):
            received = np.sort(steps[gids == targets[k]])
            assert np.array_equal(received, own[own + delay < 10_000] + delay), source.model


@pytest.mark.parametrize(
    ("ranks", "threads", "distribution"),
    marked([(1, 1, "round_robin"), (1, 2, "consecutive"), (2, 1, "random_shuffle"), (2, 2, "round_robin")],
           mpi_if=lambda case: case[0] > 1, slow_if=lambda case: True),
)  # fmt: skip
def test_same_spikes_on_every_layout(ranks, threads, distribution):
    from spikex.launch.launcher import child_environment, mpiexec_command

    command = mpiexec_command(
        ranks,
        [sys.executable, str(HERE / "spike_source_trains_network.py"), str(threads), distribution],
    )
    env = child_environment(
        {**os.environ, "PYTHONPATH": str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    )
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("RESULT")]
    assert line.split()[1:] == run(1, "round_robin").split()
