"""The network of test_spike_source_trains.py: every renewal spike source with per-cell
parameters (numbers, arrays, distributions, lists of lists), superpositions and single
processes, feeding iaf_psc_exp cells. As a script (SPMD, under mpiexec):
``spike_source_trains_network.py THREADS DISTRIBUTION`` prints rank 0's RESULT line."""

from __future__ import annotations

import sys

import numpy as np
import spikex as sx


def build(
    threads: int = 1, distribution: str = "round_robin", seed: int = 5
) -> tuple[sx.Network, list]:
    net = sx.Network(dt_ms=0.1, seed=seed, threads=threads, distribution=distribution)
    gamma = net.create(
        "spike_source_gamma", 7,
        params={"rate": sx.uniform(20.0, 90.0), "gamma_shape": np.array([1, 2, 3, 4, 2, 3, 5]),
                "n_proc": np.array([1, 1, 1, 2, 3, 1, 6]), "start": 3.0, "stop": 280.0},
        name="gamma",
    )  # fmt: skip
    ppd = net.create(
        "spike_source_poisson_refractory", 6,
        params={"rate": sx.uniform(30.0, 120.0), "dead_time": sx.uniform(0.0, 5.0), "n_proc": np.array([1, 2, 1, 4, 1, 1]),
                "frequency": np.array([0.0, 0.0, 8.0, 0.0, 20.0, 3.0]), "relative_amplitude": 0.7},
        name="ppd",
    )  # fmt: skip
    inh = net.create(
        "spike_source_inh_gamma", 5,
        params={"gamma_shape": sx.uniform(0.5, 4.0), "origin": 2.0,
                "rate_times": [[0.0, 60.0, 200.0], [5.0], [0.0, 100.0], [30.0, 40.0], [0.0]],
                "rate_values": [[40.0, 200.0, 10.0], [80.0], [150.0, 0.0], [500.0, 60.0], [70.0]]},
        name="inh_gamma",
    )  # fmt: skip
    targets = net.create("iaf_psc_exp", 12, params={"I_e": 300.0}, name="targets")
    for k, source in enumerate((gamma, ppd, inh)):
        net.connect_rule("fixed_outdegree", source, targets, outdegree=3, weight=60.0 + 10 * k,
                         delay_ms=sx.uniform(0.1, 2.0))  # fmt: skip
    for pop in (gamma, ppd, inh, targets):
        net.record_spikes(pop)
    return net, [gamma, ppd, inh, targets]


def run(threads: int, distribution: str) -> str:
    """Spikes to 150 ms, a change of some sources' parameters, spikes to 300 ms: hash."""
    net, (gamma, ppd, inh, _) = build(threads, distribution)
    net.simulate_until(150.0)
    net.set(gamma[0:3], rate=140.0)
    net.set(ppd[3:5], dead_time=1.0)
    net.set(inh[1:2], rate_times=[[5.0, 160.0]], rate_values=[[80.0, 300.0]])
    result = net.simulate_until(300.0)
    return result.summary["spikes_sha256"] + " " + str(result.summary["spikes_total"])


if __name__ == "__main__":
    from spikex import _core

    outcome = run(int(sys.argv[1]), sys.argv[2])
    if _core.comm_rank() == 0:
        print("RESULT", outcome, flush=True)
