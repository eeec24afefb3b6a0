"""
The Potjans–Diesmann microcircuit, scaled down
==============================================

The cortical microcircuit of Potjans & Diesmann 2014 (``network.model = "microcircuit"``,
:doc:`/models/microcircuit`) at 5 % of its neurons (3,858) and half its in-degrees, from
``examples/microcircuit.toml``: a raster of its eight populations and their rates after
the 100 ms presimulation (``summary["populations"]``). :doc:`/validation/microcircuit`
compares the full-scale model with NEST 3.10.
"""

from pathlib import Path

import matplotlib.pyplot as plt
import spikex as sx

EXAMPLES = Path.cwd().parent if Path.cwd().name == "gallery" else Path("examples")
net = sx.Network.from_config(
    EXAMPLES / "microcircuit.toml",
    overrides=[
        "network.n_scaling=0.05",
        "network.k_scaling=0.5",
        "simulation.presim_ms=100",
        "simulation.tstop_ms=400",
    ],
)
result = net.simulate(400.0)
layers = [p for p in result.populations if not p.name.startswith("poisson")]
rates = {p.name: result.summary["populations"][p.name]["rate_hz"] for p in layers}
print({name: round(rate, 2) for name, rate in rates.items()})

fig, (raster, bars) = plt.subplots(
    1, 2, figsize=(9, 4), gridspec_kw={"width_ratios": [3, 1]}, layout="constrained"
)
for p in layers:
    gids, times = result.population_spikes(p)
    colour = "tab:blue" if p.name.endswith("E") else "tab:red"
    keep = times >= 300.0
    raster.scatter(times[keep], -gids[keep], s=0.5, c=colour)
raster.set(xlabel="time (ms)", yticks=[], title="last 100 ms (E blue, I red; L2/3 at the top)")
bars.barh(
    list(rates)[::-1],
    list(rates.values())[::-1],
    color=["tab:blue" if n.endswith("E") else "tab:red" for n in list(rates)[::-1]],
)
bars.set(xlabel="rate (Hz)")
plt.show()
