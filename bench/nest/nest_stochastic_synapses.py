"""NEST 3.10 side of the bernoulli_synapse / quantal_stp_synapse check (tests/python/
nest_validation/test_nest_stochastic_synapses.py): the network of stochastic_network.py;
prints JSON with, per parameter set and spike of the train, the number of connections the
spike crossed and the sum and sum of squares of the weights delivered (weight_recorder:
a connection the spike does not cross sends nothing), and both types' defaults. Run with
NEST's interpreter: ``nest_stochastic_synapses.py [SEED]``."""

from __future__ import annotations

import json
import sys

import nest
import numpy as np
from stochastic_network import DELAY, DT, PARROT_DELAY, PROBE, PROBES, SETS, T_SIM, spike_times


def main() -> None:
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 12345
    nest.verbosity = nest.VerbosityLevel.ERROR
    nest.ResetKernel()
    nest.resolution = DT
    nest.rng_seed = seed
    defaults = {
        model: {k: float(v) for k, v in nest.GetDefaults(model).items() if k in ("p_transmit", "U", "u", "tau_rec", "tau_fac", "n", "a")}
        for model in ("bernoulli_synapse", "quantal_stp_synapse")
    }  # fmt: skip
    generator = nest.Create("spike_generator", params={"spike_times": spike_times()})
    parrot = nest.Create("parrot_neuron")
    nest.Connect(generator, parrot, syn_spec={"delay": PARROT_DELAY})
    recorders = {}
    for name, (model, params) in SETS.items():
        recorders[name] = nest.Create("weight_recorder")
        nest.CopyModel(model, f"{model}_{name}", {"weight_recorder": recorders[name]})
        probes = nest.Create("iaf_psc_delta", PROBES, params=PROBE)
        nest.Connect(parrot, probes, "all_to_all",
                     syn_spec={"synapse_model": f"{model}_{name}", "weight": 1.0, "delay": DELAY, **params})  # fmt: skip
    nest.Simulate(T_SIM)

    emitted = np.asarray(spike_times()) + PARROT_DELAY  # the parrot's spikes
    out = {"defaults": defaults, "seed": seed, "sets": {}}
    for name, recorder in recorders.items():
        events = recorder.get("events")
        times, weights = np.asarray(events["times"]), np.asarray(events["weights"])
        spike = np.abs(times[:, None] - emitted[None, :]).argmin(
            axis=1
        )  # the spike each event came from
        assert np.all(np.abs(times - emitted[spike]) < DT / 2), "an event at no spike of the train"
        out["sets"][name] = {
            "crossed": np.bincount(spike, minlength=emitted.size).tolist(),
            "sum": np.bincount(spike, weights, minlength=emitted.size).tolist(),
            "squares": np.bincount(spike, weights**2, minlength=emitted.size).tolist(),
        }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
