"""NEST 3.10 side of the changes-between-runs check (changes_network.py): SetStatus between
Simulate calls; prints JSON with every neuron's V_m at every step and the spikes."""

from __future__ import annotations

import json

from changes_network import CHANGES, DC, DT, NEURONS, SEGMENTS_MS, SOURCE_TIMES, connections


def main() -> None:
    import nest

    nest.verbosity = nest.VerbosityLevel.ERROR
    nest.ResetKernel()
    nest.resolution = DT
    neurons = nest.Create("iaf_psc_exp", len(NEURONS))
    for neuron, params in zip(neurons, NEURONS):
        neuron.set(params)
    devices = {
        "dc": nest.Create("dc_generator", params=DC),
        "source": nest.Create("spike_generator", params={"spike_times": SOURCE_TIMES}),
    }
    for kind, target, weight, delay in connections():
        nest.Connect(devices[kind], neurons[target], syn_spec={"weight": weight, "delay": delay})
    meter = nest.Create("multimeter", params={"record_from": ["V_m"], "interval": DT})
    nest.Connect(meter, neurons)
    recorder = nest.Create("spike_recorder")
    nest.Connect(neurons, recorder)
    for k, segment in enumerate(SEGMENTS_MS):
        nest.Simulate(segment)
        for after, what, index, values in CHANGES:
            if after == k:
                (neurons[index] if what == "neuron" else devices[what]).set(values)
    events, spikes = meter.get("events"), recorder.get("events")
    first = neurons[0].global_id
    print(json.dumps({
        "times": [float(t) for t in events["times"]],
        "cells": [int(s) - first for s in events["senders"]],
        "V_m": [float(v) for v in events["V_m"]],
        "spike_times": [float(t) for t in spikes["times"]],
        "spike_cells": [int(s) - first for s in spikes["senders"]],
    }))  # fmt: skip


if __name__ == "__main__":
    main()
