"""One PyNN script for both backends (pyNN.nest with NEST's interpreter, spikex.pynn with
spikex's): IF_cond_exp cells with excitatory and inhibitory conductance input, i_offset
and a StepCurrentSource; prints JSON with the spikes and the recorded v, gsyn_exc and
gsyn_inh (tests/python/nest_validation/test_pynn_cond_exp.py).

    python bench/nest/pynn_cond_exp.py nest|spikex
"""

from __future__ import annotations

import json
import sys

import numpy as np


def main(backend: str) -> None:
    if backend == "nest":
        import pyNN.nest as sim
    else:
        import spikex.pynn as sim
    sim.setup(timestep=0.1, min_delay=0.1)
    cells = sim.Population(3, sim.IF_cond_exp(i_offset=[0.0, 0.3, 0.0], tau_refrac=2.0))
    source = sim.Population(1, sim.SpikeSourceArray(spike_times=[5.0, 10.0, 10.5, 30.0, 31.0, 32.0, 33.0]))
    excitatory = sim.StaticSynapse(weight=0.05, delay=1.0)
    sim.Projection(source, cells, sim.AllToAllConnector(), excitatory, receptor_type="excitatory")
    inhibitory = sim.StaticSynapse(weight=0.02, delay=2.0)
    sim.Projection(source, cells[2:3], sim.AllToAllConnector(), inhibitory, receptor_type="inhibitory")
    step = sim.StepCurrentSource(times=[20.0, 40.0, 60.5, 80.03], amplitudes=[0.6, 1.2, 0.0, 0.9])
    step.inject_into(cells[0:1])
    cells.record(["v", "gsyn_exc", "gsyn_inh", "spikes"])
    sim.run(100.0)
    segment = cells.get_data().segments[0]
    out = {"spikes": [np.asarray(train.magnitude, dtype=float).tolist() for train in segment.spiketrains]}
    for name in ("v", "gsyn_exc", "gsyn_inh"):
        out[name] = np.asarray(segment.filter(name=name)[0], dtype=float).tolist()
    sim.end()
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
