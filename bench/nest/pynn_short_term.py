"""One PyNN script for both backends (pyNN.nest with NEST's interpreter, spikex.pynn with
spikex's), after PyNN's examples/tsodyksmarkram.py: a spike train through static,
depressing and facilitating TsodyksMarkramSynapse projections onto IF_cond_exp cells of
three different tau_syn_I (so tau_psc differs per target, as pyNN.nest sets it); prints
JSON with the recorded gsyn_inh and v (tests/python/nest_validation/test_pynn_short_term.py).

    python bench/nest/pynn_short_term.py nest|spikex
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
    source = sim.Population(1, sim.SpikeSourceArray(spike_times=[10.0, 20.0, 25.0, 27.5, 40.0, 41.0, 60.0, 90.0]))
    synapses = {
        "static": sim.StaticSynapse(weight=0.01, delay=0.5),
        "depressing": sim.TsodyksMarkramSynapse(U=0.5, tau_rec=800.0, tau_facil=0.0, weight=0.01, delay=0.5),
        "facilitating": sim.TsodyksMarkramSynapse(U=0.04, tau_rec=100.0, tau_facil=1000.0, weight=0.01, delay=0.5),
    }
    out = {}
    populations = {}
    for label, synapse in synapses.items():
        cells = sim.Population(3, sim.IF_cond_exp(e_rev_I=-75.0, tau_syn_I=[1.2, 6.7, 4.3]), label=label)
        cells.record(["v", "gsyn_inh"])
        sim.Projection(source, cells, sim.AllToAllConnector(), synapse, receptor_type="inhibitory")
        populations[label] = cells
    sim.run(120.0)
    for label, cells in populations.items():
        segment = cells.get_data().segments[0]
        for signal in segment.analogsignals:
            out[f"{label}.{signal.name}"] = np.asarray(signal.magnitude, dtype=float).tolist()
    sim.end()
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
