"""The Potjans & Diesmann (2014) microcircuit written in PyNN, for any PyNN backend:
``python microcircuit_pynn.py SIMULATOR [SCALE [SEED]]`` (bench/pynn/run.py runs it through
as_backend.py on pyNN.nest and spikex.pynn; nothing in it is specific to either).

Parameters and derived quantities are NEST 3.10's example's (bench/nest/microcircuit_params.py,
shared/spec/microcircuit.md) in its scaled mode: neurons and in-degrees scaled by SCALE
(default 0.1), weights / sqrt(SCALE) and the lost mean input added as DC; Poisson
background (one source per neuron at 8 Hz x its scaled external in-degree, one to one);
V0 "optimized". Written the way both backends draw natively (pyNN.nest draws only
FixedProbability and AllToAll in NEST, and no clipped distributions): connections by
FixedProbabilityConnector with the probability that gives the example's synapse number,
normal weights (sd 10 %) and uniform delays with the example's mean and sd (1.5 +- 0.75
ms from excitatory, 0.75 +- 0.375 ms from inhibitory cells) from a NativeRNG. Simulates
1.1 s; writes every population's spikes to Results/microcircuit_<simulator>.pkl and
prints the build and simulation times (PyNN's Timer).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from pyNN.random import NumpyRNG, RandomDistribution
from pyNN.utility import Timer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "nest"))
from microcircuit_params import (  # noqa: E402
    DELAY_REL_STD, NEURON, POPULATIONS, RESOLUTION_MS, V0, WEIGHT_REL_STD, derive,
)  # fmt: skip

SIM_MS = 1100.0


def main() -> None:
    simulator = sys.argv[1]
    scale = float(sys.argv[2]) if len(sys.argv) > 2 else 0.1
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    sim = __import__(f"pyNN.{simulator}", fromlist=["setup"])
    timer = Timer()
    timer.start()
    # rng_seed: the simulator's own draws (NativeRNG, Poisson sources), pyNN.nest's name
    sim.setup(timestep=RESOLUTION_MS, min_delay=RESOLUTION_MS, max_delay=10.0, rng_seed=seed)
    d = derive(n_scaling=scale, k_scaling=scale, poisson_input=True)
    native = sim.NativeRNG()
    v_rng = NumpyRNG(seed=54 + seed, parallel_safe=True)
    populations = []
    for k, name in enumerate(POPULATIONS):
        cells = sim.Population(int(d.num_neurons[k]), sim.IF_curr_exp(
            cm=NEURON["C_m"] / 1000.0, tau_m=NEURON["tau_m"], tau_refrac=NEURON["t_ref"],
            v_rest=NEURON["E_L"], v_reset=NEURON["V_reset"], v_thresh=NEURON["V_th"],
            tau_syn_E=NEURON["tau_syn"], tau_syn_I=NEURON["tau_syn"], i_offset=d.dc_amp_pa[k] / 1000.0,
        ), label=name)  # fmt: skip
        v0 = V0["optimized"]
        cells.initialize(
            v=RandomDistribution("normal", mu=v0["mean"][k], sigma=v0["std"][k], rng=v_rng)
        )
        cells.record("spikes")
        background = sim.Population(cells.size, sim.SpikeSourcePoisson(rate=float(d.poisson_rate_hz[k])),
                                    label=f"{name}_background")  # fmt: skip
        sim.Projection(background, cells, sim.OneToOneConnector(),
                       sim.StaticSynapse(weight=d.weight_ext_pa / 1000.0, delay=1.5), receptor_type="excitatory")  # fmt: skip
        populations.append(cells)
    n = d.num_neurons.astype(float)
    half_width = np.sqrt(3.0) * DELAY_REL_STD  # a uniform distribution's half width per sd
    for target in range(8):
        for source in range(8):
            synapses = d.num_synapses[target, source]
            if synapses == 0:
                continue
            # the probability with which Bernoulli draws give `synapses` on average
            p = 1.0 - (1.0 - 1.0 / (n[target] * n[source])) ** synapses
            w = d.weight_mean_pa[target, source] / 1000.0  # nA
            mean_delay = float(d.delay_mean_ms[target, source])
            sim.Projection(
                populations[source], populations[target],
                sim.FixedProbabilityConnector(float(p), rng=native),
                sim.StaticSynapse(
                    weight=RandomDistribution("normal", mu=w, sigma=abs(w) * WEIGHT_REL_STD, rng=native),
                    delay=RandomDistribution("uniform", low=mean_delay * (1 - half_width),
                                             high=mean_delay * (1 + half_width), rng=native),
                ),
                receptor_type="excitatory" if w > 0 else "inhibitory",
            )  # fmt: skip
    build = timer.diff()
    sim.run(SIM_MS)
    simulate = timer.diff()
    Path("Results").mkdir(exist_ok=True)
    everything = populations[0]
    for cells in populations[1:]:
        everything = everything + cells
    everything.write_data(f"Results/microcircuit_{simulator}.pkl")
    if sim.rank() == 0:
        print(f"Number of Neurons  : {int(d.num_neurons.sum())}")
        print(f"Build time         : {build:g} s")
        print(f"Simulation time    : {simulate:g} s")
    sim.end()


if __name__ == "__main__":
    main()
