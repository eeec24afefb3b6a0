"""NEST 3.10's side of the iaf_psc_exp_multisynapse / iaf_psc_alpha_multisynapse protocol (the spikex side:
tests/python/nest_validation/test_nest_psc_multisynapse.py): one neuron per case, three
receptor ports with different tau_syn (and a case with tau_syn == tau_m), spike trains of
both signs through every port, a dc_generator and a step_current_generator, 2 s at
dt = 0.1 ms. Writes JSON: per neuron its spike times and V_m, I_syn, I_syn_<k> at every step.

    python psc_multisynapse.py OUT.json [iaf_psc_exp_multisynapse|iaf_psc_alpha_multisynapse]
"""

from __future__ import annotations

import json
import sys

import nest

from psc_multisynapse_protocol import DT, T_SIM, cases, connections, input_trains, variables

nest.set_verbosity("M_ERROR")
nest.ResetKernel()
nest.resolution = DT
model = sys.argv[2] if len(sys.argv) > 2 else "iaf_psc_exp_multisynapse"
cells = [nest.Create(model, params=case) for case in cases(model)]
trains = {
    name: nest.Create("spike_generator", params={"spike_times": times})
    for name, times in input_trains().items()
}
devices = {
    "dc": nest.Create("dc_generator", params={"amplitude": 400.0, "start": 300.0, "stop": 1200.0}),
    "step": nest.Create("step_current_generator",
                        params={"amplitude_times": [100.0, 700.0, 1500.0], "amplitude_values": [350.0, -100.0, 500.0]}),
}  # fmt: skip
for source, target, weight, delay, port in connections(model):
    pre = trains.get(source) or devices[source]
    spec = {"weight": weight, "delay": delay}
    if port:
        spec["receptor_type"] = port
    nest.Connect(pre, cells[target], syn_spec=spec)
recorder = nest.Create("spike_recorder")
meters = []
for cell, case in zip(cells, cases(model)):
    nest.Connect(cell, recorder)
    meters.append(
        nest.Create("multimeter", params={"record_from": variables(case), "interval": DT})
    )
    nest.Connect(meters[-1], cell)
nest.Simulate(T_SIM)
events = recorder.get("events")
out = {"spikes": [[float(t) for s, t in zip(events["senders"], events["times"]) if s == c.global_id] for c in cells],
       "traces": {}}  # fmt: skip
for k, (meter, case) in enumerate(zip(meters, cases(model))):
    data = meter.get("events")
    out["traces"][k] = {v: [float(x) for x in data[v]] for v in variables(case)}
    out["traces"][k]["times"] = [float(t) for t in data["times"]]
with open(sys.argv[1], "w") as f:
    json.dump(out, f)
