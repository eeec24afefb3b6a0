"""NEST 3.10 side of the device check (tests/python/nest_validation/test_nest_devices.py):
iaf_psc_exp neurons driven by a dc_generator (start/stop, weight), a spike_generator over
several delays and I_e; prints JSON with every neuron's V_m at every step (multimeter,
interval = resolution) and the spikes. Run with NEST's interpreter."""

from __future__ import annotations

import json

import nest

from devices_network import DC, DC_FROM_START, DT, NEURONS, SOURCE_TIMES, T_SIM, connections


def main() -> None:
    nest.set_verbosity("M_ERROR")
    nest.ResetKernel()
    nest.resolution = DT
    neurons = nest.Create("iaf_psc_exp", len(NEURONS))
    for neuron, params in zip(neurons, NEURONS):
        neuron.set(params)
    dc = nest.Create("dc_generator", params=DC)
    dc0 = nest.Create("dc_generator", params=DC_FROM_START)
    source = nest.Create("spike_generator", params={"spike_times": SOURCE_TIMES})
    for kind, target, weight, delay in connections():
        pre = {"dc": dc, "dc0": dc0, "source": source}[kind]
        nest.Connect(pre, neurons[target], syn_spec={"weight": weight, "delay": delay})
    meter = nest.Create("multimeter", params={"record_from": ["V_m"], "interval": DT})
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
                "V_m": {
                    "times": [float(t) for t in events["times"]],
                    "cells": [int(s) - first for s in events["senders"]],
                    "values": [float(v) for v in events["V_m"]],
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
