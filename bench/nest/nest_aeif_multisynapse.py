"""NEST 3.10 side of the aeif_cond_alpha_multisynapse / aeif_cond_beta_multisynapse check
(aeif_multisynapse_protocols.py): writes an .npz with every neuron's V_m, w, g_1, g_2 and
g_3 at every step (multimeter, interval = resolution) and the spikes, per model, and
prints a JSON line with what it ran. Run with NEST's interpreter::

    python bench/nest/nest_aeif_multisynapse.py -o OUT.npz
"""

from __future__ import annotations

import argparse
import json

import nest
import numpy as np

from aeif_multisynapse_protocols import (
    DC,
    DT,
    LISTS,
    MODELS,
    NEURONS,
    STEP_CURRENT,
    T_SIM,
    VARIABLES,
    connections,
    port_trains,
)


def run(model: str) -> dict[str, np.ndarray]:
    nest.ResetKernel()
    nest.resolution = DT
    neurons = nest.Create(model, len(NEURONS), params=LISTS[model])
    for neuron, params in zip(neurons, NEURONS):
        neuron.set(params)
    sources = {
        "step": nest.Create("step_current_generator", params=STEP_CURRENT),
        "dc": nest.Create("dc_generator", params=DC),
    }
    for port, times in enumerate(port_trains()):
        sources[f"train{port + 1}"] = nest.Create("spike_generator", params={"spike_times": times})
    for kind, target, weight, delay, port in connections():
        syn = {"weight": weight, "delay": delay}
        if port:
            syn["receptor_type"] = port
        nest.Connect(sources[kind], neurons[target], syn_spec=syn)
    meter = nest.Create("multimeter", params={"record_from": list(VARIABLES), "interval": DT})
    nest.Connect(meter, neurons)
    recorder = nest.Create("spike_recorder")
    nest.Connect(neurons, recorder)
    nest.Simulate(T_SIM)
    events, spikes = meter.get("events"), recorder.get("events")
    first = neurons[0].global_id
    out = {
        "times": np.asarray(events["times"], dtype=float),
        "cells": np.asarray(events["senders"], dtype=np.int64) - first,
        "spike_times": np.asarray(spikes["times"], dtype=float),
        "spike_cells": np.asarray(spikes["senders"], dtype=np.int64) - first,
    }
    out.update({v: np.asarray(events[v], dtype=float) for v in VARIABLES})
    return {f"{model}/{k}": v for k, v in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    nest.verbosity = nest.VerbosityLevel.ERROR
    arrays = {}
    for model in MODELS:
        arrays.update(run(model))
    np.savez_compressed(args.output, **arrays)
    counts = {m: int(arrays[f"{m}/spike_times"].size) for m in MODELS}
    print(json.dumps({"nest_version": nest.__version__, "spikes": counts}))


if __name__ == "__main__":
    main()
