"""A PyNN script, unchanged for any number of ranks: run as
``mpiexec -n P python mpi_network_pynn.py THREADS``. Poisson sources, IF_curr_exp and
IF_curr_alpha cells; connectors drawn by PyNN from a parallel-safe NumpyRNG and by spikex
from a NativeRNG (FixedTotalNumber, FixedProbability with native random weights), an
inhibitory projection and an STDP projection; rank 0 prints one RESULT line with hashes of the
gathered spikes, membrane potentials and final weights
(tests/python/pynn/test_pynn_mpi.py compares them across P and T)."""

from __future__ import annotations

import hashlib
import sys

import numpy as np
import spikex.pynn as sim
from pyNN.random import NumpyRNG, RandomDistribution


def sha(rows) -> str:
    return hashlib.sha256(np.ascontiguousarray(rows, dtype=np.float64).tobytes()).hexdigest()[:16]


def main() -> None:
    threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    sim.setup(timestep=0.1, min_delay=0.1, max_delay=5.0, seed=5, threads=threads)
    rng = NumpyRNG(seed=42, parallel_safe=True)
    noise = sim.Population(60, sim.SpikeSourcePoisson(rate=30.0), label="noise")
    exc = sim.Population(40, sim.IF_curr_exp(tau_m=10.0, i_offset=RandomDistribution("uniform", (0.9, 1.6), rng=rng)),
                         label="exc")  # fmt: skip
    inh = sim.Population(10, sim.IF_curr_alpha(tau_m=10.0, i_offset=1.4), label="inh")
    exc.initialize(v=RandomDistribution("uniform", (-65.0, -55.0), rng=rng))
    delays = RandomDistribution("uniform", (0.5, 2.0), rng=rng)
    sim.Projection(
        noise,
        exc,
        sim.FixedProbabilityConnector(0.2, rng=rng),
        sim.StaticSynapse(weight=0.4, delay=delays),
    )
    sim.Projection(
        exc, inh, sim.FixedNumberPreConnector(5, rng=rng), sim.StaticSynapse(weight=0.3, delay=1.0)
    )
    native = sim.NativeRNG()
    sim.Projection(inh, exc, sim.FixedTotalNumberConnector(150, rng=native), sim.StaticSynapse(weight=-0.3, delay=0.7),
                   receptor_type="inhibitory")  # fmt: skip
    native_weights = RandomDistribution(
        "normal_clipped", mu=0.1, sigma=0.05, low=0.0, high=1.0, rng=native
    )
    sim.Projection(exc, exc, sim.FixedProbabilityConnector(0.1, allow_self_connections=False, rng=native),
                   sim.StaticSynapse(weight=native_weights, delay=RandomDistribution("uniform", (0.5, 1.5), rng=native)),
                   receptor_type="excitatory")  # fmt: skip
    stdp = sim.STDPMechanism(
        timing_dependence=sim.SpikePairRule(tau_plus=20.0, tau_minus=20.0, A_plus=0.02, A_minus=0.025),
        weight_dependence=sim.MultiplicativeWeightDependence(w_min=0.0, w_max=1.0), weight=0.5, delay=1.5,
    )  # fmt: skip
    plastic = sim.Projection(noise, inh, sim.FixedNumberPostConnector(3, rng=rng), stdp)
    exc.record(["spikes", "v"])
    inh.record("spikes")
    sim.run(300.0)
    exc_data, inh_data = exc.get_data(), inh.get_data()  # gathered on rank 0
    weights = plastic.get("weight", format="list")  # gathered on rank 0
    if sim.rank() == 0:
        spikes = [
            (k, float(train.annotations["source_index"]), float(t))
            for k, block in enumerate((exc_data, inh_data))
            for train in block.segments[0].spiketrains for t in train.magnitude
        ]  # fmt: skip
        spikes.sort()
        v = exc_data.segments[0].filter(name="v")[0]
        order = np.argsort(np.asarray(v.array_annotations["channel_index"]))
        print("RESULT", sim.num_processes(), threads, len(spikes), sha(spikes),
              sha(np.asarray(v.magnitude)[:, order]), len(weights),
              sum(w != 0.5 for _, _, w in weights), sha(sorted(map(tuple, weights))), flush=True)  # fmt: skip
    sim.end()


if __name__ == "__main__":
    main()
