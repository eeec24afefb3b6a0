"""
Membrane potential of conductance-based cells
=============================================

Three ``iaf_cond_exp`` cells (NEST's model, NEST's parameter names and units) driven by a
step current of three amplitudes and by Poisson input, their membrane potential recorded
with ``Network.record_state``. Inhibitory input to a conductance-based cell is a negative
weight, as in NEST.
"""

import matplotlib.pyplot as plt
import numpy as np
import spikex as sx

net = sx.Network(dt_ms=0.1, seed=3)
cells = net.create("iaf_cond_exp", 3, name="cells")
current = net.create(
    "step_current_generator",
    3,
    params={"amplitude_times": [50.0, 150.0], "amplitude_values": [600.0, 0.0]},
)
net.connect(current.gids, cells.gids, weight=np.array([0.8, 1.0, 1.2]), delay_ms=0.1)
drive = net.create("poisson_generator", 2, params={"rate": 2000.0})
net.connect([drive.first_gid] * 3, cells.gids, weight=2.0, delay_ms=1.0)  # excitatory, nS
net.connect([drive.first_gid + 1] * 3, cells.gids, weight=-2.0, delay_ms=1.0)  # inhibitory
net.record_spikes(cells)
trace = net.record_state(cells, "V_m")
result = net.simulate(250.0)

state = result.states[trace]
fig, ax = plt.subplots(figsize=(8, 3.5), layout="constrained")
for column, gid in enumerate(state["gids"]):  # values: one row per time, one column per cell
    ax.plot(
        state["times_ms"], state["values"][:, column], lw=0.8, label=f"cell {gid - cells.first_gid}"
    )
ax.axvspan(50.0, 150.0, color="0.9", zorder=0, label="step current on")
ax.set(xlabel="time (ms)", ylabel="V_m (mV)", title="iaf_cond_exp under a step current")
ax.legend(loc="upper right", fontsize="small")
print("spikes per cell:", np.bincount(result.spikes[0] - cells.first_gid, minlength=3))
plt.show()
