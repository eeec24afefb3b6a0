"""
A PyNN script on spikex
=======================

An unchanged PyNN 0.13 script: only the import names the backend
(``import spikex.pynn as sim`` instead of ``import pyNN.nest as sim``). Poisson sources
drive ``IF_curr_exp`` cells; PyNN records spikes and membrane potentials into a Neo block.
The supported cell types, sources and synapses are listed in :doc:`/user/pynn`.
"""

import matplotlib.pyplot as plt
import spikex.pynn as sim

sim.setup(timestep=0.1, min_delay=0.1, seed=1)
noise = sim.Population(100, sim.SpikeSourcePoisson(rate=20.0), label="noise")
cells = sim.Population(50, sim.IF_curr_exp(i_offset=0.1), label="cells")
sim.Projection(
    noise, cells, sim.FixedProbabilityConnector(0.2), sim.StaticSynapse(weight=0.3, delay=1.0)
)
cells.record(["spikes", "v"])
sim.run(300.0)
segment = cells.get_data().segments[0]
sim.end()

fig, (raster, trace) = plt.subplots(2, 1, figsize=(8, 4.5), sharex=True, layout="constrained")
for i, train in enumerate(segment.spiketrains):
    raster.plot(train.magnitude, [i] * len(train), "|", color="k", ms=3)
raster.set(ylabel="cell", title="IF_curr_exp cells under Poisson input (spikex.pynn)")
v = segment.filter(name="v")[0]
trace.plot(v.times.magnitude, v.magnitude[:, :3], lw=0.8)
trace.set(xlabel="time (ms)", ylabel="v (mV)")
print(f"{sum(len(t) for t in segment.spiketrains)} spikes from {len(segment.spiketrains)} cells")
plt.show()
