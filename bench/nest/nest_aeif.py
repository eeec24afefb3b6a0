"""NEST 3.10 side of the aeif_cond_exp / aeif_cond_alpha check (aeif_protocols.py): writes
an .npz with every neuron's V_m, w, g_ex and g_in at every step (multimeter, interval =
resolution) and the spikes, per model, and prints a JSON line with what it ran. Run
with NEST's interpreter::

    python bench/nest/nest_aeif.py -o OUT.npz
"""

from __future__ import annotations

import argparse
import json

import nest
import numpy as np

from aeif_protocols import (
    DC,
    DT,
    MODELS,
    NEURONS,
    STEP_CURRENT,
    T_SIM,
    VARIABLES,
    connections,
    input_trains,
)


def run(model: str) -> dict[str, np.ndarray]:
    nest.ResetKernel()
    nest.resolution = DT
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
    for kind, target, weight, delay in connections(model):
        nest.Connect(sources[kind], neurons[target], syn_spec={"weight": weight, "delay": delay})
    return record_and_simulate(model, neurons, VARIABLES)


def record_and_simulate(
    model: str, neurons, variables, dt: float = DT, t_sim: float = T_SIM
) -> dict[str, np.ndarray]:
    """Every step's `variables` of `neurons` (multimeter, interval = resolution dt) and
    their spikes over t_sim, as arrays named <model>/<name>, cells numbered from 0."""
    meter = nest.Create("multimeter", params={"record_from": list(variables), "interval": dt})
    nest.Connect(meter, neurons)
    recorder = nest.Create("spike_recorder")
    nest.Connect(neurons, recorder)
    nest.Simulate(t_sim)
    events, spikes = meter.get("events"), recorder.get("events")
    first = neurons[0].global_id
    out = {
        "times": np.asarray(events["times"], dtype=float),
        "cells": np.asarray(events["senders"], dtype=np.int64) - first,
        "spike_times": np.asarray(spikes["times"], dtype=float),
        "spike_cells": np.asarray(spikes["senders"], dtype=np.int64) - first,
    }
    out.update({v: np.asarray(events[v], dtype=float) for v in variables})
    return {f"{model}/{k}": v for k, v in out.items()}


def write_runs(run, models, description: str) -> None:
    """The command line: run(model) for each model, the arrays to -o, a JSON line."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    nest.verbosity = nest.VerbosityLevel.ERROR
    arrays = {}
    for model in models:
        arrays.update(run(model))
    np.savez_compressed(args.output, **arrays)
    counts = {m: int(arrays[f"{m}/spike_times"].size) for m in models}
    print(json.dumps({"nest_version": nest.__version__, "spikes": counts}))


def main() -> None:
    write_runs(run, MODELS, __doc__)


if __name__ == "__main__":
    main()
