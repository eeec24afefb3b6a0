"""NEST 3.10's side of the iaf_psc_exp_multisynapse / iaf_psc_alpha_multisynapse protocol (the spikex side:
tests/python/nest_validation/test_nest_psc_multisynapse.py): one neuron per case, three
receptor ports with different tau_syn, spike trains of both signs through every port, a
dc_generator and a step_current_generator, 2 s at dt = 0.1 ms. Writes JSON: per neuron its
spike times and V_m, I_syn, I_syn_1..3 at every step.

    python psc_multisynapse.py OUT.json [iaf_psc_exp_multisynapse|iaf_psc_alpha_multisynapse]
"""

from __future__ import annotations

import json
import sys

import nest

from psc_multisynapse_protocol import CASES, DT, T_SIM, TAU_SYN, connections, input_trains

nest.set_verbosity("M_ERROR")
nest.ResetKernel()
nest.resolution = DT
model = sys.argv[2] if len(sys.argv) > 2 else "iaf_psc_exp_multisynapse"
cells = nest.Create(model, len(CASES))
for k, params in enumerate(CASES):
    cells[k].set({"tau_syn": TAU_SYN, **params})
trains = {name: nest.Create("spike_generator", params={"spike_times": times}) for name, times in input_trains().items()}
devices = {
    "dc": nest.Create("dc_generator", params={"amplitude": 400.0, "start": 300.0, "stop": 1200.0}),
    "step": nest.Create("step_current_generator",
                        params={"amplitude_times": [100.0, 700.0, 1500.0], "amplitude_values": [350.0, -100.0, 500.0]}),
}
for source, target, weight, delay, port in connections():
    pre = trains.get(source) or devices[source]
    spec = {"weight": weight, "delay": delay}
    if port:
        spec["receptor_type"] = port
    nest.Connect(pre, cells[target], syn_spec=spec)
recorder = nest.Create("spike_recorder")
nest.Connect(cells, recorder)
variables = ["V_m", "I_syn", "I_syn_1", "I_syn_2", "I_syn_3"]
meter = nest.Create("multimeter", params={"record_from": variables, "interval": DT})
nest.Connect(meter, cells)
nest.Simulate(T_SIM)
events = recorder.get("events")
data = meter.get("events")
out = {"spikes": [[float(t) for s, t in zip(events["senders"], events["times"]) if s == c.global_id] for c in cells],
       "traces": {}}
for k, c in enumerate(cells):
    rows = [i for i, s in enumerate(data["senders"]) if s == c.global_id]
    out["traces"][k] = {v: [float(data[v][i]) for i in rows] for v in variables}
    out["traces"][k]["times"] = [float(data["times"][i]) for i in rows]
json.dump(out, open(sys.argv[1], "w"))
