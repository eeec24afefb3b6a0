"""NEST side of the exact-match check of iaf_psc_exp / iaf_psc_delta: build the network of
``exact_models.design`` in NEST 3.10, simulate it and export what spikex needs to an
``.npz`` file.

Run with the NEST venv (``bash scripts/setup_nest.sh`` makes it)::

    bench/nest/.venv/bin/python bench/nest/nest_exact_models.py iaf_psc_exp -o exact_exp.npz

The file holds the per-neuron parameter arrays, the connections from ``GetConnections``
(source, target as NEST node ids starting at 1, weight, delay in ms) and the spikes
(``spike_senders``, ``spike_times_ms`` as NEST stamps them). Delays: NEST's
``fixed_indegree`` draws the connections; each connection's delay is then set to one of
``DELAY_CHOICES_MS``, chosen by numpy from the seed in ``GetConnections`` order.
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
from exact_models import MODELS, design

os.environ.setdefault("PYNEST_QUIET", "1")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", choices=MODELS)
    parser.add_argument("-o", "--output", required=True, help=".npz file to write")
    parser.add_argument("--n", type=int, default=120, help="number of neurons [120]")
    parser.add_argument("--indegree", type=int, default=40, help="inputs per neuron [40]")
    parser.add_argument("--seed", type=int, default=7, help="numpy seed of the arrays, delays [7]")
    parser.add_argument("--nest-seed", type=int, default=1, help="NEST rng_seed (connectivity) [1]")
    parser.add_argument("--tsim", type=float, default=300.0, help="simulated ms [300]")
    args = parser.parse_args()

    import nest

    nest.verbosity = nest.VerbosityLevel.ERROR
    spec = design(args.model, args.n, args.indegree, args.seed)
    nest.ResetKernel()
    nest.resolution = spec["resolution_ms"]
    nest.rng_seed = args.nest_seed
    nest.local_num_threads = 1

    neurons = nest.Create(args.model, spec["n"], params=spec["params"])
    per_neuron = {
        key: ([bool(v) for v in values] if key == "refractory_input" else values.tolist())
        for key, values in spec["per_neuron"].items()
    }
    neurons.set(**per_neuron)
    excitatory = neurons[: spec["n_e"]]
    inhibitory = neurons[spec["n_e"] :]
    connect = {"allow_autapses": False, "allow_multapses": True}
    max_delay = max(spec["delay_choices_ms"])
    for sources, indegree, weight in (
        (excitatory, spec["k_e"], spec["je"]),
        (inhibitory, spec["k_i"], spec["ji"]),
    ):
        nest.Connect(
            sources,
            neurons,
            {"rule": "fixed_indegree", "indegree": indegree, **connect},
            {"synapse_model": "static_synapse", "weight": weight, "delay": max_delay},
        )
    synapses = nest.GetConnections(source=neurons, target=neurons)
    rng = np.random.default_rng(args.seed + 1)
    delays = rng.choice(np.asarray(spec["delay_choices_ms"]), size=len(synapses))
    synapses.set(delay=delays.tolist())
    recorder = nest.Create("spike_recorder")
    nest.Connect(neurons, recorder)

    connections = synapses.get(["source", "target", "weight", "delay"])
    start = time.perf_counter()
    nest.Simulate(args.tsim)
    simulate_s = time.perf_counter() - start
    events = recorder.get("events")

    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(
        out,
        model=args.model,
        n=spec["n"],
        first_node_id=int(neurons[0].global_id),
        params=json.dumps(spec["params"]),
        per_neuron_names=np.asarray(list(spec["per_neuron"])),
        **{f"param_{key}": values for key, values in spec["per_neuron"].items()},
        source=np.asarray(connections["source"], dtype=np.int64),
        target=np.asarray(connections["target"], dtype=np.int64),
        weight=np.asarray(connections["weight"], dtype=np.float64),
        delay_ms=np.asarray(connections["delay"], dtype=np.float64),
        spike_senders=np.asarray(events["senders"], dtype=np.int64),
        spike_times_ms=np.asarray(events["times"], dtype=np.float64),
        tsim_ms=args.tsim,
        resolution_ms=spec["resolution_ms"],
        nest_version=nest.__version__,
    )
    print(
        json.dumps(
            {
                "nest_version": nest.__version__,
                "model": args.model,
                "neurons": spec["n"],
                "connections": len(connections["source"]),
                "distinct_delays_ms": sorted({round(d, 6) for d in connections["delay"]}),
                "spikes": len(events["times"]),
                "simulate_s": round(simulate_s, 3),
                "output": str(out),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
