"""NEST 3.10 side of the iaf_cond_exp / iaf_cond_alpha / iaf_cond_exp_sfa_rr /
step_current_generator check (cond_exp_network.py): prints JSON with every neuron's
conductance-family recordables (V_m, g_ex, g_in; iaf_cond_exp_sfa_rr also g_sfa, g_rr) at
every step (multimeter, interval = resolution) and the spikes. Run with NEST's
interpreter: ``nest_cond_exp.py [MODEL]`` (iaf_cond_exp unless given)."""

from __future__ import annotations

import json
import sys

import nest

from cond_exp_network import DC, DT, NEURONS, STEP_CURRENT, T_SIM, connections, input_trains, recordables


def main() -> None:
    nest.verbosity = nest.VerbosityLevel.ERROR
    nest.ResetKernel()
    nest.resolution = DT
    model = sys.argv[1] if len(sys.argv) > 1 else "iaf_cond_exp"
    neurons = nest.Create(model, len(NEURONS))
    for neuron, params in zip(neurons, NEURONS):
        neuron.set(params)
    trains = input_trains()
    sources = {
        "step": nest.Create("step_current_generator", params=STEP_CURRENT),
        "dc": nest.Create("dc_generator", params=DC),
        "exc": nest.Create("spike_generator", params={"spike_times": trains["exc"]}),
        "inh": nest.Create("spike_generator", params={"spike_times": trains["inh"]}),
    }
    for kind, target, weight, delay in connections():
        nest.Connect(sources[kind], neurons[target], syn_spec={"weight": weight, "delay": delay})
    variables = recordables(model)
    meter = nest.Create("multimeter", params={"record_from": list(variables), "interval": DT})
    nest.Connect(meter, neurons)
    recorder = nest.Create("spike_recorder")
    nest.Connect(neurons, recorder)
    nest.Simulate(T_SIM)
    events = meter.get("events")
    spikes = recorder.get("events")
    first = neurons[0].global_id
    print(
        json.dumps(
            {
                "trace": {
                    "times": [float(t) for t in events["times"]],
                    "cells": [int(s) - first for s in events["senders"]],
                    **{k: [float(v) for v in events[k]] for k in variables},
                },
                "spikes": {
                    "times": [float(t) for t in spikes["times"]],
                    "cells": [int(s) - first for s in spikes["senders"]],
                },
            }
        )
    )


if __name__ == "__main__":
    main()
