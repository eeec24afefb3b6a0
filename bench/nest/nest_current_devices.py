"""NEST 3.10 side of the ac_generator / noise_generator checks
(tests/python/nest_validation/test_nest_current_devices.py). Run with NEST's interpreter:

    nest_current_devices.py ac              # prints JSON: V_m of every neuron at every
                                            # step, the spikes, each generator's I
    nest_current_devices.py noise OUT.npz   # writes V_m of every neuron at every step
"""

from __future__ import annotations

import json
import sys

import nest
import numpy as np

from current_devices_network import (
    AC,
    AC_NEURONS,
    AC_T_SIM,
    DT,
    NOISE,
    NOISE_NEURON,
    NOISE_NEURONS,
    NOISE_T_SIM,
    ac_connections,
    noise_targets,
)


def _reset() -> None:
    nest.set_verbosity("M_ERROR")
    nest.ResetKernel()
    nest.resolution = DT


def _membranes(neurons):
    """A multimeter recording each neuron's V_m at every step."""
    meter = nest.Create("multimeter", params={"record_from": ["V_m"], "interval": DT})
    nest.Connect(meter, neurons)
    return meter


def ac() -> None:
    _reset()
    neurons = nest.Create("iaf_psc_exp", len(AC_NEURONS))
    for neuron, params in zip(neurons, AC_NEURONS):
        neuron.set(params)
    generators = [nest.Create("ac_generator", params=p) for p in AC]
    for generator, target, weight, delay in ac_connections():
        nest.Connect(
            generators[generator], neurons[target], syn_spec={"weight": weight, "delay": delay}
        )
    meter = _membranes(neurons)
    current = nest.Create("multimeter", params={"record_from": ["I"], "interval": DT})
    for g in generators:
        nest.Connect(current, g)
    recorder = nest.Create("spike_recorder")
    nest.Connect(neurons, recorder)
    nest.Simulate(AC_T_SIM)
    events, spikes, currents = meter.get("events"), recorder.get("events"), current.get("events")
    first, first_generator = neurons[0].global_id, generators[0].global_id
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
                "I": {
                    "times": [float(t) for t in currents["times"]],
                    "generators": [int(s) - first_generator for s in currents["senders"]],
                    "values": [float(v) for v in currents["I"]],
                },
            }
        )
    )


def noise(path: str) -> None:
    _reset()
    nest.rng_seed = 12345
    neurons = nest.Create("iaf_psc_exp", NOISE_NEURONS, params=NOISE_NEURON)
    generators = [nest.Create("noise_generator", params=p) for p in NOISE]
    for generator, target, weight, delay in noise_targets():
        nest.Connect(
            generators[generator], neurons[target], syn_spec={"weight": weight, "delay": delay}
        )
    meter = _membranes(neurons)
    nest.Simulate(NOISE_T_SIM)
    events = meter.get("events")
    cells = np.asarray(events["senders"]) - neurons[0].global_id
    times = np.asarray(events["times"])
    values = np.asarray(events["V_m"])
    order = np.lexsort((cells, times))
    steps = round(NOISE_T_SIM / DT) - 1  # NEST records (k + 1)·DT < NOISE_T_SIM
    v = values[order].reshape(steps, NOISE_NEURONS)  # row k: time (k + 1)·DT
    assert np.array_equal(cells[order].reshape(steps, NOISE_NEURONS)[0], np.arange(NOISE_NEURONS))
    np.savez(path, V_m=v, dt_ms=[generators[0].dt, generators[1].dt, generators[2].dt])


if __name__ == "__main__":
    if sys.argv[1] == "ac":
        ac()
    else:
        noise(sys.argv[2])
