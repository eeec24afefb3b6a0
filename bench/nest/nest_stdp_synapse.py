"""NEST 3.10 side of the stdp_synapse check (tests/python/nest_validation/
test_nest_stdp_synapse.py): the network of stdp_network.py; prints JSON with every
connection's final weight (in the order of stdp_network.connections()) and the neurons'
spikes. Run with NEST's interpreter."""

from __future__ import annotations

import json

import nest
from stdp_network import DT, PARROT_DELAY, POST, RULES, T_SIM, connections, pre_spike_times


def main() -> None:
    nest.set_verbosity("M_ERROR")
    nest.ResetKernel()
    nest.resolution = DT
    trains = pre_spike_times()
    generators = nest.Create("spike_generator", len(trains))
    for generator, times in zip(generators, trains):
        generator.set({"spike_times": times})
    parrots = nest.Create("parrot_neuron", len(trains))
    nest.Connect(generators, parrots, "one_to_one", {"delay": PARROT_DELAY})
    neurons = nest.Create("iaf_psc_alpha", len(POST))
    for neuron, params in zip(neurons, POST):
        neuron.set(params)
    for rule, source, target, delay in connections():
        params, weight = RULES[rule]
        nest.Connect(parrots[source], neurons[target],
                     syn_spec={"synapse_model": "stdp_synapse", "weight": weight, "delay": delay, **params})  # fmt: skip
    recorder = nest.Create("spike_recorder")
    nest.Connect(neurons, recorder)
    nest.Simulate(T_SIM)
    weights = []
    for rule, source, target, delay in connections():
        conn = nest.GetConnections(parrots[source], neurons[target])
        weights.append(float(conn.get("weight")))
    spikes = recorder.get("events")
    first = neurons[0].global_id
    print(
        json.dumps(
            {
                "weights": weights,
                "spikes": {
                    "times": [float(t) for t in spikes["times"]],
                    "cells": [int(s) - first for s in spikes["senders"]],
                },
            }
        )
    )


if __name__ == "__main__":
    main()
