"""One PyNN script for both backends (pyNN.nest with NEST's interpreter, spikex.pynn with
spikex's), after PyNN's examples/multiquantal_synapses.py and stochastic_synapses.py: the
example's train through StaticSynapse, SimpleStochasticSynapse and MultiQuantalSynapse
projections (depressing with Projection.initialize(a=n, u=U), and n = 3 left at NEST's
initial a = 1) onto IF_curr_exp integrators (no leak, no threshold, tau_syn 0.1 ms: v
adds up the charge of what arrives, whole within 5 ms); prints JSON with, per projection and spike, the mean and variance over its
cells of the jump of v, in units of the static synapse's jump
(tests/python/nest_validation/test_pynn_stochastic.py).

    python bench/nest/pynn_stochastic.py nest|spikex
"""

from __future__ import annotations

import json
import sys

import numpy as np

CELLS = 1000
TIMES = np.hstack((np.arange(10.0, 100.0, 10.0), np.arange(250.0, 350.0, 10.0)))
DELAY = 0.5


def main(backend: str) -> None:
    if backend == "nest":
        import pyNN.nest as sim
    else:
        import spikex.pynn as sim
    sim.setup(timestep=0.1, min_delay=0.1)
    source = sim.Population(1, sim.SpikeSourceArray(spike_times=TIMES))
    depressing = {"U": 0.8, "tau_rec": 100.0, "tau_facil": 0.0}
    synapses = {
        "static": sim.StaticSynapse(weight=0.5, delay=DELAY),
        "stochastic": sim.SimpleStochasticSynapse(p=0.3, weight=0.5, delay=DELAY),
        "depressing": sim.MultiQuantalSynapse(n=5, weight=0.5, delay=DELAY, **depressing),
        "one_available": sim.MultiQuantalSynapse(n=3, weight=0.5, delay=DELAY, **depressing),
    }
    integrator = {
        "tau_m": 1e9,
        "tau_syn_E": 0.1,
        "v_rest": 0.0,
        "v_reset": -1.0,
        "v_thresh": 1e9,
        "tau_refrac": 0.1,
    }
    populations = {}
    for label, synapse in synapses.items():
        cells = sim.Population(
            CELLS, sim.IF_curr_exp(**integrator), initial_values={"v": 0.0}, label=label
        )
        cells.record("v", sampling_interval=1.0)
        projection = sim.Projection(
            source, cells, sim.AllToAllConnector(), synapse, receptor_type="excitatory"
        )
        if label == "depressing":
            projection.initialize(
                a=synapse.parameter_space["n"], u=synapse.parameter_space["U"]
            )  # the example's
        populations[label] = cells
    sim.run(400.0)
    out = {}
    jumps = {}
    for label, cells in populations.items():
        v = cells.get_data().segments[0].filter(name="v")[0]
        t, values = np.asarray(v.times.rescale("ms").magnitude), np.asarray(v.magnitude)
        # v 5 ms after each spike less v at the spike: its arrival alone (spikes 10 ms apart)
        before, after = np.searchsorted(t, TIMES - 0.05), np.searchsorted(t, TIMES + 4.95)
        jumps[label] = values[after] - values[before]
    unit = jumps["static"].mean()
    for label, jump in jumps.items():
        out[label] = {
            "mean": (jump.mean(axis=1) / unit).tolist(),
            "var": (jump.var(axis=1, ddof=1) / unit**2).tolist(),
        }
    sim.end()
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
