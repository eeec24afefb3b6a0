"""NEST 3.10 side of the hh_cond_exp_traub / hh_psc_alpha check (hh_network.py): writes an
.npz with, per model, every neuron's recordables at every step (multimeter, interval =
resolution) and the spikes. Run with NEST's interpreter: nest_hh.py OUTPUT.npz"""

from __future__ import annotations

import sys

import nest
import numpy as np
from hh_network import (
    DC,
    DT,
    MODELS,
    NEURONS,
    RECORDABLES,
    STEP_CURRENT,
    T_SIM,
    connections,
    input_trains,
)


def run(model: str) -> dict[str, np.ndarray]:
    nest.ResetKernel()
    nest.resolution = DT
    neurons = nest.Create(model, len(NEURONS[model]))
    for neuron, params in zip(neurons, NEURONS[model]):
        neuron.set(params)
    trains = input_trains()
    sources = {
        "step": nest.Create("step_current_generator", params=STEP_CURRENT),
        "dc": nest.Create("dc_generator", params=DC),
        "exc": nest.Create("spike_generator", params={"spike_times": trains["exc"]}),
        "inh": nest.Create("spike_generator", params={"spike_times": trains["inh"]}),
    }
    for kind, target, weight, delay in connections(model):
        nest.Connect(sources[kind], neurons[target], syn_spec={"weight": weight, "delay": delay})
    meter = nest.Create(
        "multimeter", params={"record_from": list(RECORDABLES[model]), "interval": DT}
    )
    nest.Connect(meter, neurons)
    recorder = nest.Create("spike_recorder")
    nest.Connect(neurons, recorder)
    nest.Simulate(T_SIM)
    events = meter.get("events")
    spikes = recorder.get("events")
    first = neurons[0].global_id
    out = {
        "times": np.asarray(events["times"], dtype=float),
        "cells": np.asarray(events["senders"]) - first,
        "spike_times": np.asarray(spikes["times"], dtype=float),
        "spike_cells": np.asarray(spikes["senders"]) - first,
    }
    for variable in RECORDABLES[model]:
        out[variable] = np.asarray(events[variable], dtype=float)
    return {f"{model}/{k}": v for k, v in out.items()}


def main() -> None:
    nest.verbosity = nest.VerbosityLevel.ERROR
    arrays = {}
    for model in MODELS:
        arrays.update(run(model))
    np.savez_compressed(sys.argv[1], **arrays)


if __name__ == "__main__":
    main()
