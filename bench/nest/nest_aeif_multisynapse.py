"""NEST 3.10 side of the aeif_cond_alpha_multisynapse / aeif_cond_beta_multisynapse check
(aeif_multisynapse_protocols.py): writes an .npz with every neuron's V_m, w, g_1, g_2 and
g_3 at every step (multimeter, interval = resolution) and the spikes, per model, and
prints a JSON line with what it ran. Run with NEST's interpreter::

    python bench/nest/nest_aeif_multisynapse.py -o OUT.npz
"""

from __future__ import annotations

import nest
import numpy as np
from nest_aeif import record_and_simulate, write_runs

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
    return record_and_simulate(model, neurons, VARIABLES, DT, T_SIM)


def main() -> None:
    write_runs(run, MODELS, __doc__)


if __name__ == "__main__":
    main()
