"""
Raster and rates of a balanced network
======================================

A small Brunel-style network of ``iaf_psc_exp`` cells (800 excitatory, 200 inhibitory)
driven by Poisson input: the first network of the getting-started page, at 1,000 cells and
300 ms. The raster shows every spike of 200 cells; the rates are
``Result.summary["populations"]``, the same numbers as ``summary.json``.
"""

import matplotlib.pyplot as plt
import numpy as np
import spikex as sx

net = sx.Network(dt_ms=0.1, seed=1, method="allgather")
params = {"V_m": sx.normal(-58.0, 10.0), "tau_syn_ex": 0.5, "tau_syn_in": 0.5}
exc = net.create("iaf_psc_exp", 800, params=params, name="E")
inh = net.create("iaf_psc_exp", 200, params=params, name="I")
noise = net.create("poisson_generator", 1, params={"rate": 8000.0})
everyone = sx.Population(exc.first_gid, 1000, "iaf_psc_exp")
delay = sx.normal_clipped(1.5, 0.75, low=0.1)
net.connect_rule(
    "fixed_indegree",
    exc,
    everyone,
    indegree=80,
    weight=sx.normal_clipped(88.0, 8.8, low=0.0),
    delay_ms=delay,
)
net.connect_rule("fixed_indegree", inh, everyone, indegree=20, weight=-352.0, delay_ms=0.8)
net.connect_rule("all_to_all", noise, everyone, weight=88.0, delay_ms=1.5)
net.record_spikes(everyone)
result = net.simulate(300.0)

gids, times = result.spikes
rates = {name: result.summary["populations"][name]["rate_hz"] for name in ("E", "I")}
print(f"{len(gids)} spikes; rates (Hz): {rates}")

fig, (raster, bars) = plt.subplots(
    1, 2, figsize=(9, 3.5), gridspec_kw={"width_ratios": [3, 1]}, layout="constrained"
)
shown = (gids - exc.first_gid) % 5 == 0  # every 5th cell: 160 E, 40 I
colour = np.where(gids[shown] < inh.first_gid, "tab:blue", "tab:red")
raster.scatter(times[shown], gids[shown] - exc.first_gid, s=1, c=colour)
raster.set(xlabel="time (ms)", ylabel="cell", title="every 5th cell (E blue, I red)")
bars.bar(list(rates), list(rates.values()), color=["tab:blue", "tab:red"])
bars.set(ylabel="rate (Hz)", title="population rates")
plt.show()
