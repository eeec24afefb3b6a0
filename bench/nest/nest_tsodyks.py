"""NEST 3.10 side of the tsodyks_synapse / tsodyks2_synapse check (tests/python/
nest_validation/test_nest_tsodyks.py): the network of tsodyks_network.py; prints JSON with
the weight each spike was delivered with onto each probe (weight_recorder: times and
weights per probe), the probes' and neurons' V_m at every step (multimeter), the
neurons' spikes, and NEST's defaults of both synapse types. Run with NEST's interpreter."""

from __future__ import annotations

import json

import nest
from tsodyks_network import (
    DT,
    NEURONS,
    PARROT_DELAY,
    PROBE,
    RULES,
    T_SIM,
    neuron_connections,
    probes,
    spike_times,
)


def main() -> None:
    nest.verbosity = nest.VerbosityLevel.ERROR
    nest.ResetKernel()
    nest.resolution = DT
    defaults = {
        model: {
            k: float(v)
            for k, v in nest.GetDefaults(model).items()
            if k in ("U", "u", "x", "y") or k.startswith("tau_")
        }
        for model in ("tsodyks_synapse", "tsodyks2_synapse")
    }
    trains = spike_times()
    generators = nest.Create("spike_generator", len(trains))
    for generator, times in zip(generators, trains):
        generator.set({"spike_times": times})
    parrots = nest.Create("parrot_neuron", len(trains))
    nest.Connect(generators, parrots, "one_to_one", {"delay": PARROT_DELAY})

    recorder = nest.Create("weight_recorder")
    for model in ("tsodyks_synapse", "tsodyks2_synapse"):
        nest.CopyModel(model, f"{model}_recorded", {"weight_recorder": recorder})
    cells = nest.Create("iaf_psc_delta", len(probes()), params=PROBE)
    for cell, (rule, source, delay) in zip(cells, probes()):
        model, params, weight, _ = RULES[rule]
        nest.Connect(parrots[source], cell,
                     syn_spec={"synapse_model": f"{model}_recorded", "weight": weight, "delay": delay, **params})  # fmt: skip

    neurons = nest.Create("iaf_psc_exp", len(NEURONS))
    for neuron, params in zip(neurons, NEURONS):
        neuron.set(params)
    for rule, source, neuron, delay in neuron_connections():
        model, params, _, weight = RULES[rule]
        nest.Connect(parrots[source], neurons[neuron],
                     syn_spec={"synapse_model": model, "weight": weight, "delay": delay, **params})  # fmt: skip

    meter = nest.Create("multimeter", params={"record_from": ["V_m"], "interval": DT})
    nest.Connect(meter, cells + neurons)
    spikes = nest.Create("spike_recorder")
    nest.Connect(neurons, spikes)
    nest.Simulate(T_SIM)

    weights = recorder.get("events")
    trace = meter.get("events")
    fired = spikes.get("events")
    first_cell, first_neuron = cells[0].global_id, neurons[0].global_id
    print(
        json.dumps(
            {
                "defaults": defaults,
                "delivered": {
                    "probe": [int(t) - first_cell for t in weights["targets"]],
                    "times": [float(t) for t in weights["times"]],
                    "weights": [float(w) for w in weights["weights"]],
                },
                "trace": {
                    "times": [float(t) for t in trace["times"]],
                    "senders": [int(s) for s in trace["senders"]],
                    "V_m": [float(v) for v in trace["V_m"]],
                    "first_probe": first_cell,
                    "first_neuron": first_neuron,
                },
                "spikes": {
                    "times": [float(t) for t in fired["times"]],
                    "cells": [int(s) - first_neuron for s in fired["senders"]],
                },
            }
        )
    )


if __name__ == "__main__":
    main()
