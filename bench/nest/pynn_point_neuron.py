"""One PyNN script for both backends (pyNN.nest with NEST's interpreter, spikex.pynn with
spikex's), after PyNN's examples/multi_synapse.py and monolith_vs_composed.py: a
PointNeuron(LIF) with three current responses and, when the backend has them, a
PointNeuron(AdExp) with four alpha conductances and one with beta conductances; spike trains
through each receptor, recorded v and every response's isyn/gsyn; prints JSON
(tests/python/nest_validation/test_pynn_point_neuron.py).

    python bench/nest/pynn_point_neuron.py nest|spikex [lif|adexp_alpha|adexp_beta ...]
"""

from __future__ import annotations

import json
import sys

import numpy as np

CELLS = {
    "lif": lambda sim: sim.PointNeuron(
        sim.LIF(tau_m=12.0, v_rest=-62.0, i_offset=0.95, tau_refrac=2.0),
        fast=sim.CurrExpPostSynapticResponse(tau_syn=0.7),
        slow=sim.CurrExpPostSynapticResponse(tau_syn=8.0),
        inhibitory=sim.CurrExpPostSynapticResponse(tau_syn=4.0),
    ),
    "adexp_alpha": lambda sim: sim.PointNeuron(
        sim.AdExp(tau_m=10.0, v_rest=-60.0),
        AMPA=sim.AlphaPSR(tau_syn=1.0, e_syn=0.0),
        NMDA=sim.AlphaPSR(tau_syn=20.0, e_syn=0.0),
        GABAA=sim.AlphaPSR(tau_syn=1.5, e_syn=-70.0),
        GABAB=sim.AlphaPSR(tau_syn=15.0, e_syn=-90.0),
    ),
    "adexp_beta": lambda sim: sim.PointNeuron(
        sim.AdExp(tau_m=10.0, v_rest=-60.0),
        exc=sim.CondBetaPostSynapticResponse(tau_rise=0.5, tau_decay=3.0, e_syn=0.0),
        inh=sim.CondBetaPostSynapticResponse(tau_rise=1.0, tau_decay=8.0, e_syn=-75.0),
    ),
}
WEIGHTS = {"fast": 0.6, "slow": 0.08, "inhibitory": -0.3, "AMPA": 0.02, "NMDA": 0.004, "GABAA": 0.05,
           "GABAB": 0.01, "exc": 0.03, "inh": 0.04}  # fmt: skip


def main(backend: str, kinds: list[str]) -> None:
    if backend == "nest":
        import pyNN.nest as sim
    else:
        import spikex.pynn as sim
    sim.setup(timestep=0.1, min_delay=0.1)
    rng = np.random.default_rng(3)
    out = {}
    populations = {}
    for kind in kinds:
        celltype = CELLS[kind](sim)
        cells = sim.Population(2, celltype, initial_values={"v": -60.0}, label=kind)
        cells.record(["spikes", "v", *[f"{r}.{v}" for r in celltype.receptor_types
                                         for v in celltype.post_synaptic_receptors[r].recordable]])  # fmt: skip
        for k, receptor in enumerate(celltype.receptor_types):
            # mid-step times: on the grid, pyNN.nest's t - min_delay can land a rounding error
            # above a grid point and move the spike one step (70.4 - 0.1 = 70.30000000000001)
            times = (np.sort(rng.choice(np.arange(10, 4000), size=120, replace=False)) + 0.5) * 0.1
            source = sim.Population(1, sim.SpikeSourceArray(spike_times=np.round(times, 2)))
            sim.Projection(source, cells, sim.AllToAllConnector(),
                           sim.StaticSynapse(weight=WEIGHTS[receptor], delay=0.5 + 0.3 * k),
                           receptor_type=receptor)  # fmt: skip
        populations[kind] = cells
    sim.run(400.0)
    for kind, cells in populations.items():
        segment = cells.get_data().segments[0]
        out[f"{kind}.spikes"] = [np.asarray(st.magnitude, dtype=float).tolist() for st in segment.spiketrains]
        for signal in segment.analogsignals:
            out[f"{kind}.{signal.name}"] = np.asarray(signal.magnitude, dtype=float).tolist()
    sim.end()
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:] or ["lif"])
