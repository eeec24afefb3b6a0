"""
NEST's hpc_benchmark, small
===========================

NEST's hpc_benchmark (``network.model = "hpc_benchmark"``: ``iaf_psc_alpha`` cells, 80 %
excitatory, Poisson drive; :doc:`/models/hpc_benchmark`) at scale 0.05 (450 excitatory and
112 inhibitory cells) with 360 + 90 inputs per cell instead of NEST's 9,000 + 2,250, from
``examples/hpc_benchmark_laptop.toml``: a raster and the population rate in 5 ms bins.
"""

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import spikex as sx

EXAMPLES = Path.cwd().parent if Path.cwd().name == "gallery" else Path("examples")
net = sx.Network.from_config(
    EXAMPLES / "hpc_benchmark_laptop.toml",
    overrides=[
        "network.scale=0.05",
        "network.indegree_e=360",
        "network.indegree_i=90",
        "simulation.tstop_ms=300",
    ],
)
result = net.simulate(300.0)
rates = {name: round(p["rate_hz"], 1) for name, p in result.summary["populations"].items()}
print("rates (Hz):", rates)

gids, times = result.spikes
fig, (raster, rate) = plt.subplots(2, 1, figsize=(8, 4.5), sharex=True, layout="constrained")
raster.scatter(times, gids, s=0.5, c="k")
raster.set(ylabel="cell", title="hpc_benchmark at scale 0.05")
bins = np.arange(0.0, 300.0 + 5.0, 5.0)
counts, _ = np.histogram(times, bins)
rate.plot(bins[:-1], counts / result.summary["cells"] / 5e-3, drawstyle="steps-post")
rate.set(xlabel="time (ms)", ylabel="rate (Hz)")
plt.show()
