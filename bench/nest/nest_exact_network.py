"""NEST side of the exact-match check: build the network of ``exact_network.design`` in
NEST 3.10, simulate it and export everything spikex needs to an ``.npz`` file.

Run with the NEST venv (``bash scripts/setup_nest.sh`` makes it)::

    bench/nest/.venv/bin/python bench/nest/nest_exact_network.py -o bench/nest/data/exact.npz

The file holds the design (per-neuron ``I_e``, ``V_m``, neuron parameters), the
connections from ``GetConnections`` (source, target as NEST node ids starting at 1,
weight in pA, delay in ms) and the spikes (``spike_senders``, ``spike_times_ms`` as NEST
stamps them).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from exact_network import NEURON_PARAMS, STDP_PARAMS, TAU_MINUS_MS, design

os.environ.setdefault("PYNEST_QUIET", "1")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", required=True, help=".npz file to write")
    parser.add_argument("--n", type=int, default=300, help="number of neurons [300]")
    parser.add_argument("--indegree", type=int, default=50, help="inputs per neuron [50]")
    parser.add_argument("--seed", type=int, default=12345, help="numpy seed of I_e, V_m [12345]")
    parser.add_argument("--nest-seed", type=int, default=1, help="NEST rng_seed (connectivity) [1]")
    parser.add_argument("--tsim", type=float, default=1000.0, help="simulated ms [1000]")
    parser.add_argument(
        "--weight-spread",
        type=float,
        default=0.0,
        help="weights uniform in w·(1 ± spread/2) instead of equal (summation order then matters) [0]",
    )
    parser.add_argument("--stdp", action="store_true", help="E→E synapses stdp_pl_synapse_hom")
    args = parser.parse_args()

    import nest

    nest.verbosity = nest.VerbosityLevel.ERROR
    spec = design(args.n, args.indegree, args.seed)
    nest.ResetKernel()
    nest.resolution = spec["resolution_ms"]
    nest.rng_seed = args.nest_seed
    nest.local_num_threads = 1

    neuron_params = dict(NEURON_PARAMS, tau_minus=TAU_MINUS_MS) if args.stdp else NEURON_PARAMS
    neurons = nest.Create("iaf_psc_alpha", spec["n"], params=neuron_params)
    neurons.set(I_e=spec["I_e"].tolist(), V_m=spec["V_m"].tolist())
    excitatory = neurons[: spec["n_e"]]
    inhibitory = neurons[spec["n_e"] :]
    connect = {"allow_autapses": False, "allow_multapses": True}

    def weight(w: float):
        if args.weight_spread == 0.0:
            return w
        low, high = sorted((w * (1 - args.weight_spread / 2), w * (1 + args.weight_spread / 2)))
        return nest.random.uniform(min=low, max=high)

    if args.stdp:
        nest.SetDefaults("stdp_pl_synapse_hom", STDP_PARAMS)
        nest.Connect(
            excitatory,
            excitatory,
            {"rule": "fixed_indegree", "indegree": spec["k_e"], **connect},
            {
                "synapse_model": "stdp_pl_synapse_hom",
                "weight": weight(spec["je_pa"]),
                "delay": spec["delay_ms"],
            },
        )
    nest.Connect(
        excitatory,
        inhibitory if args.stdp else neurons,
        {"rule": "fixed_indegree", "indegree": spec["k_e"], **connect},
        {
            "synapse_model": "static_synapse",
            "weight": weight(spec["je_pa"]),
            "delay": spec["delay_ms"],
        },
    )
    nest.Connect(
        inhibitory,
        neurons,
        {"rule": "fixed_indegree", "indegree": spec["k_i"], **connect},
        {
            "synapse_model": "static_synapse",
            "weight": weight(spec["g"] * spec["je_pa"]),
            "delay": spec["delay_ms"],
        },
    )
    recorder = nest.Create("spike_recorder")
    nest.Connect(neurons, recorder)

    synapses = nest.GetConnections(source=neurons, target=neurons)
    connections = synapses.get(["source", "target", "weight", "delay", "synapse_model"])
    start = time.perf_counter()
    nest.Simulate(args.tsim)
    simulate_s = time.perf_counter() - start
    events = recorder.get("events")
    weight_after = np.asarray(synapses.get("weight"), dtype=np.float64)

    first_id = int(neurons[0].global_id)
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(
        out,
        n=spec["n"],
        n_e=spec["n_e"],
        I_e=spec["I_e"],
        V_m=spec["V_m"],
        first_node_id=first_id,
        source=np.asarray(connections["source"], dtype=np.int64),
        target=np.asarray(connections["target"], dtype=np.int64),
        weight=np.asarray(connections["weight"], dtype=np.float64),
        delay_ms=np.asarray(connections["delay"], dtype=np.float64),
        plastic=np.asarray(
            [m.startswith("stdp") for m in connections["synapse_model"]], dtype=bool
        ),
        weight_after=weight_after,
        stdp_params=json.dumps(STDP_PARAMS if args.stdp else {}),
        tau_minus_ms=TAU_MINUS_MS if args.stdp else 0.0,
        spike_senders=np.asarray(events["senders"], dtype=np.int64),
        spike_times_ms=np.asarray(events["times"], dtype=np.float64),
        tsim_ms=args.tsim,
        resolution_ms=spec["resolution_ms"],
        neuron_params=json.dumps(NEURON_PARAMS),
        nest_version=nest.__version__,
    )
    print(
        json.dumps(
            {
                "nest_version": nest.__version__,
                "neurons": spec["n"],
                "connections": len(connections["source"]),
                "spikes": len(events["times"]),
                "simulate_s": round(simulate_s, 3),
                "output": str(out),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
