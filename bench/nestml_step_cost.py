"""What a NESTML-built model costs per step against spikex's built-in one (issue 57's goal:
within 1.2x in the hpc_benchmark-style network): N cells of NESTML's iaf_psc_exp_neuron
and of the built-in iaf_psc_exp in the same network (a Poisson drive and recurrent fixed
in-degree connections, E and I, weights of both signs), simulated alternately, best of R
runs each; the spikes are the same. Two networks (NETWORKS):

* ``hpc_benchmark``: the hpc_benchmark's shape at a 2-core size, 11,250 cells with 1,600
  E and 400 I inputs each (22.5 M synapses, about 18 Hz): delivery is most of a step;
* ``sparse``: 20,000 cells with 40 E and 10 I inputs each (1 M synapses): the cell
  update is most of a step, the worst case for a generated model.

With --model aeif_cond_exp: NESTML's aeif_cond_exp_neuron (numeric, RKF45 per cell)
against the built-in aeif_cond_exp (t_ref = 2 ms as NESTML's refr_T; weights x 0.3, in nS).

    python bench/nestml_step_cost.py [--model iaf_psc_exp|aeif_cond_exp] [--network hpc_benchmark|sparse]
                                     [--ms T] [--runs R] [--threads T]

Writes bench/results/nestml_step_cost_<model>_<network>.json; docs/validation/nestml.md's
cost table is made from these files (bench/nestml_library.py --page-only).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"


# --model: (built-in, NESTML file, the built-in's parameters, weight scale)
MODELS = {
    "iaf_psc_exp": ("iaf_psc_exp", "iaf_psc_exp_neuron", {}, 1.0),
    "aeif_cond_exp": ("aeif_cond_exp", "aeif_cond_exp_neuron", {"t_ref": 2.0}, 0.3),
}


# --network: cells, E and I inputs per cell, E weight (pA), I weight, drive rate (Hz), drive weight
NETWORKS = {
    "hpc_benchmark": {"cells": 11250, "indegree_e": 1600, "indegree_i": 400, "weight_e": 5.0,
                      "weight_i": -25.0, "drive_hz": 7000.0, "drive_weight": 30.0},
    "sparse": {"cells": 20000, "indegree_e": 40, "indegree_i": 10, "weight_e": 20.0,
               "weight_i": -80.0, "drive_hz": 9000.0, "drive_weight": 30.0},
}  # fmt: skip


def network(model: str, shape: dict, threads: int, params: dict | None = None, scale: float = 1.0):
    import spikex as sx

    cells = shape["cells"]
    net = sx.Network(dt_ms=0.1, seed=5, threads=threads)
    pop = net.create(model, cells, params={"V_m": sx.uniform(-70.0, -56.0), **(params or {})})
    drive = net.create("poisson_generator", 1, params={"rate": shape["drive_hz"]})
    net.connect_rule("all_to_all", drive, pop, weight=shape["drive_weight"] * scale, delay_ms=0.1)
    excitatory = int(cells * 0.8)
    net.connect_rule("fixed_indegree", pop[0:excitatory], pop, indegree=shape["indegree_e"],
                     weight=shape["weight_e"] * scale, delay_ms=1.5)  # fmt: skip
    net.connect_rule("fixed_indegree", pop[excitatory:cells], pop, indegree=shape["indegree_i"],
                     weight=shape["weight_i"] * scale, delay_ms=1.0)  # fmt: skip
    net.record_spikes(pop)
    return net


def timed(model: str, args, params: dict | None = None, scale: float = 1.0) -> tuple[float, dict]:
    net = network(model, NETWORKS[args.network], args.threads, params, scale)
    net.simulate(10.0)  # build and warm up
    start = time.perf_counter()
    result = net.simulate(args.ms)
    return time.perf_counter() - start, result.summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=sorted(MODELS), default="iaf_psc_exp")
    parser.add_argument("--network", choices=sorted(NETWORKS), default="hpc_benchmark")
    parser.add_argument("--ms", type=float, default=500.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--cache", type=Path, default=REPO / "build" / "nestml-cache")
    args = parser.parse_args()
    import spikex as sx

    builtin, nestml_name, builtin_params, scale = MODELS[args.model]
    file = next(
        Path(f.locate())
        for f in metadata.files("nestml")
        if str(f).endswith(f"neurons/{nestml_name}.nestml")
    )
    nestml = sx.models.load_nestml(file, args.cache)
    times = {builtin: [], nestml: []}
    summaries = {}
    for _ in range(args.runs):
        for model, seconds_of in times.items():
            seconds, summaries[model] = timed(
                model, args, builtin_params if model == builtin else None, scale
            )
            seconds_of.append(seconds)
    best = {model: min(t) for model, t in times.items()}
    result = {
        "model": args.model,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "question": f"simulate time of NESTML's {nestml_name} built by spikex against the built-in {builtin}",
        "builtin_parameters": builtin_params,
        "weight_scale": scale,
        "network": args.network,
        "shape": NETWORKS[args.network],
        "events_delivered": summaries[nestml]["events_delivered"],
        "simulated_ms": args.ms,
        "threads": args.threads,
        "runs": args.runs,
        "seconds": times,
        "best_seconds": best,
        "ratio": best[nestml] / best[builtin],
        "same_spikes": summaries[nestml]["spikes_sha256"] == summaries[builtin]["spikes_sha256"],
        "spikes": summaries[nestml]["spikes_total"],
        "builtin_spikes": summaries[builtin]["spikes_total"],
        "vector_isa": sx._core.vector_isa(),
        "load_at_end": os.getloadavg()[0],
        "host": platform.node(),
        "cpu": platform.processor() or platform.machine(),
    }
    out = RESULTS / f"nestml_step_cost_{args.model}_{args.network}.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
