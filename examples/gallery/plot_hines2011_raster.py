"""
The Hines 2011 benchmark: raster of artificial cells
====================================================

The artificial-cell network of Hines, Kumar & Schürmann 2011 (``examples/hines2011_demo.toml``,
what ``make demo`` runs), here at 2,048 cells with 100 inputs each and small random
weights, so that inputs move the cells' firing times: the raster of the first 256 cells
(the paper's Figure 3). ``Network.from_config`` builds the same network as ``spikex run``.
"""

from pathlib import Path

import matplotlib.pyplot as plt
import spikex as sx

EXAMPLES = Path.cwd().parent if Path.cwd().name == "gallery" else Path("examples")
net = sx.Network.from_config(
    EXAMPLES / "hines2011_demo.toml",
    overrides=[
        "network.cells=2048",
        "network.indegree=100",
        "network.indegree_spread=10",
        "network.weight_spread=0.08",
    ],
)
result = net.simulate(200.0)
gids, times = result.spikes
print(
    f"{len(gids)} spikes, {result.summary['connections']} connections, "
    f"spikes_sha256 {result.spikes_sha256[:16]}..."
)

fig, ax = plt.subplots(figsize=(8, 3.5), layout="constrained")
first = gids < 256
ax.scatter(times[first], gids[first], s=2, c="k")
ax.set(
    xlabel="time (ms)", ylabel="cell", title="interval_fire cells 0-255 (Hines et al. 2011, Fig. 3)"
)
plt.show()
