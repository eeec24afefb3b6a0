"""NEST 3.10 side of the gif_cond_exp check (gif_network.py). Run with NEST's interpreter:

    nest_gif_cond_exp.py trace               # the deterministic neurons: every step's V_m,
                                             # g_ex, g_in, I_stc, E_sfa and the spikes
    nest_gif_cond_exp.py statistics [SEEDS]  # per seed (gif_network's, or "1,2,3") and
                                             # condition: per-neuron rate and ISI CV

Prints one line of JSON."""

from __future__ import annotations

import json
import sys

import nest

from gif_network import DT, NEURONS, STATISTICS, T_SIM, VARIABLES, connections, sources, spike_statistics


def reset(seed: int = 1) -> None:
    nest.ResetKernel()
    nest.resolution = DT
    nest.rng_seed = seed


def trace() -> dict:
    reset()
    neurons = nest.Create("gif_cond_exp", len(NEURONS))
    for neuron, params in zip(neurons, NEURONS):
        neuron.set(params)
    devices = {}
    for name, (model, params) in sources().items():
        nest_model = "spike_generator" if model == "spike_source_array" else model
        devices[name] = nest.Create(nest_model, params=params)
    for kind, target, weight, delay in connections():
        nest.Connect(devices[kind], neurons[target], syn_spec={"weight": weight, "delay": delay})
    meter = nest.Create("multimeter", params={"record_from": list(VARIABLES), "interval": DT})
    nest.Connect(meter, neurons)
    recorder = nest.Create("spike_recorder")
    nest.Connect(neurons, recorder)
    nest.Simulate(T_SIM)
    events, spikes = meter.get("events"), recorder.get("events")
    first = neurons[0].global_id
    return {
        "trace": {
            "times": [float(t) for t in events["times"]],
            "cells": [int(s) - first for s in events["senders"]],
            **{k: [float(v) for v in events[k]] for k in VARIABLES},
        },
        "spikes": {"times": [float(t) for t in spikes["times"]], "cells": [int(s) - first for s in spikes["senders"]]},
    }


def statistics(seeds: tuple[int, ...]) -> dict:
    s = STATISTICS
    out = {}
    for seed in seeds:
        reset(seed)
        recorded = {}
        for name, condition in s["conditions"].items():
            neurons = nest.Create("gif_cond_exp", s["n"], params=condition["params"])
            for rate, weight in condition.get("inputs", []):
                generator = nest.Create("poisson_generator", params={"rate": rate})
                nest.Connect(generator, neurons, syn_spec={"weight": weight, "delay": 1.0})
            recorder = nest.Create("spike_recorder")
            nest.Connect(neurons, recorder)
            recorded[name] = (neurons[0].global_id, recorder)
        nest.Simulate(s["t_ms"])
        for name, (first, recorder) in recorded.items():
            events = recorder.get("events")
            out[f"{seed}/{name}"] = spike_statistics(
                events["times"], events["senders"], first, s["n"], s["warmup_ms"], s["t_ms"]
            )
    return out


if __name__ == "__main__":
    nest.verbosity = nest.VerbosityLevel.ERROR
    mode = sys.argv[1] if len(sys.argv) > 1 else "trace"
    seeds = tuple(int(x) for x in sys.argv[2].split(",")) if len(sys.argv) > 2 else STATISTICS["seeds"]
    print(json.dumps(trace() if mode == "trace" else statistics(seeds)))
