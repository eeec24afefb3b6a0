"""
Checkpoint and resume with the same spikes
==========================================

A run stopped half-way and resumed from its checkpoint gives the same spikes as the run
that never stopped (:doc:`/user/checkpoint`). Here in Python: ``Network.save`` after
100 ms, ``Network.load`` of that checkpoint in a fresh network, 100 ms more; the
configuration-built network is the demo network at 1,000 cells. From the command line the
same is ``spikex run ... --checkpoint-every MS --checkpoint-dir DIR`` and
``spikex run --resume DIR``, on any ranks, threads and exchange method.
"""

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import spikex as sx

EXAMPLES = Path.cwd().parent if Path.cwd().name == "gallery" else Path("examples")
overrides = [
    "network.cells=1000",
    "network.indegree=100",
    "network.indegree_spread=10",
    "network.weight_spread=0.08",
    "simulation.tstop_ms=200",
]

whole = sx.Network.from_config(EXAMPLES / "hines2011_demo.toml", overrides=overrides)
uninterrupted = whole.simulate(200.0)

with tempfile.TemporaryDirectory() as directory:
    first = sx.Network.from_config(EXAMPLES / "hines2011_demo.toml", overrides=overrides)
    first.simulate(100.0)
    checkpoint = first.save(Path(directory) / "checkpoint")
    resumed_network = sx.Network.load(checkpoint)
    resumed = resumed_network.simulate(100.0)  # from 100 ms to 200 ms

same = uninterrupted.spikes_sha256 == resumed.spikes_sha256
print(
    f"uninterrupted {uninterrupted.spikes_sha256[:16]}..., resumed {resumed.spikes_sha256[:16]}..."
)
print("the same spikes:", same)

gids, times = resumed.spikes
fig, ax = plt.subplots(figsize=(8, 3.5), layout="constrained")
before = times < 100.0
ax.scatter(times[before], gids[before], s=1, c="tab:blue", label="before the checkpoint")
ax.scatter(times[~before], gids[~before], s=1, c="tab:orange", label="after resuming")
ax.axvline(100.0, color="k", lw=1)
ax.set(
    xlabel="time (ms)", ylabel="cell", title=f"resumed run; same spikes as uninterrupted: {same}"
)
ax.legend(loc="upper right", fontsize="small", markerscale=5)
assert same and np.array_equal(uninterrupted.spikes[0], gids)
plt.show()
