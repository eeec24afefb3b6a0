"""NEST 3.10's side of the glif_psc / glif_cond protocol (bench/nest/glif_protocol.py; the
spikex side: tests/python/nest_validation/test_nest_glif.py). Writes JSON: per cell its
spike times and its recordables at every step.

    python glif.py OUT.json [glif_psc|glif_cond]
"""

from __future__ import annotations

import json
import sys

import nest

from glif_protocol import DC, DT, STEP, T_SIM, cases, connections, input_trains, variables

nest.set_verbosity("M_ERROR")
nest.ResetKernel()
nest.resolution = DT
model = sys.argv[2] if len(sys.argv) > 2 else "glif_psc"
cells = [nest.Create(model, params=case) for case in cases(model)]
trains = {
    name: nest.Create("spike_generator", params={"spike_times": times})
    for name, times in input_trains().items()
}
devices = {
    "dc": nest.Create("dc_generator", params=DC),
    "step": nest.Create("step_current_generator", params=STEP),
}
for source, target, weight, delay, port in connections(model):
    pre = trains.get(source) or devices[source]
    spec = {"weight": weight, "delay": delay}
    if port:
        spec["receptor_type"] = port
    nest.Connect(pre, cells[target], syn_spec=spec)
recorder = nest.Create("spike_recorder")
meters = []
for cell, case in zip(cells, cases(model), strict=True):
    nest.Connect(cell, recorder)
    meters.append(
        nest.Create("multimeter", params={"record_from": variables(case, model), "interval": DT})
    )
    nest.Connect(meters[-1], cell)
nest.Simulate(T_SIM)
events = recorder.get("events")
out = {"spikes": [[float(t) for s, t in zip(events["senders"], events["times"], strict=True) if s == c.global_id]
                  for c in cells], "traces": {}}  # fmt: skip
for k, (meter, case) in enumerate(zip(meters, cases(model), strict=True)):
    data = meter.get("events")
    out["traces"][k] = {v: [float(x) for x in data[v]] for v in variables(case, model)}
with open(sys.argv[1], "w") as f:
    json.dump(out, f)
