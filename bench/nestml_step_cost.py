"""What a NESTML-built model costs per step against spikex's built-in one (issue 57's goal:
within 1.2x): N cells of NESTML's iaf_psc_exp_neuron and of the built-in iaf_psc_exp in
the same network (a Poisson drive and recurrent fixed in-degree connections, weights of
both signs), simulated alternately, best of R runs each; the spikes are the same. With
--model aeif_cond_exp: NESTML's aeif_cond_exp_neuron (numeric, RKF45 per cell) against
the built-in aeif_cond_exp (t_ref = 2 ms as NESTML's refr_T; weights x 0.3, in nS).

    python bench/nestml_step_cost.py [--model iaf_psc_exp|aeif_cond_exp] [--cells N] [--ms T] [--runs R] [--threads T]

Writes bench/results/nestml_step_cost.json (iaf_psc_exp) or
bench/results/nestml_step_cost_aeif_cond_exp.json.
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
RESULTS = REPO / "bench" / "results" / "nestml_step_cost.json"


# --model: (built-in, NESTML file, the built-in's parameters, weight scale)
MODELS = {
    "iaf_psc_exp": ("iaf_psc_exp", "iaf_psc_exp_neuron", {}, 1.0),
    "aeif_cond_exp": ("aeif_cond_exp", "aeif_cond_exp_neuron", {"t_ref": 2.0}, 0.3),
}


def network(model: str, cells: int, threads: int, params: dict | None = None, scale: float = 1.0):
    import spikex as sx

    net = sx.Network(dt_ms=0.1, seed=5, threads=threads)
    pop = net.create(model, cells, params={"V_m": sx.uniform(-70.0, -56.0), **(params or {})})
    drive = net.create("poisson_generator", 1, params={"rate": 9000.0})
    net.connect_rule("all_to_all", drive, pop, weight=30.0 * scale, delay_ms=0.1)
    excitatory = int(cells * 0.8)
    net.connect_rule(
        "fixed_indegree", pop[0:excitatory], pop, indegree=40, weight=20.0 * scale, delay_ms=1.5
    )
    net.connect_rule(
        "fixed_indegree",
        pop[excitatory:cells],
        pop,
        indegree=10,
        weight=-80.0 * scale,
        delay_ms=1.0,
    )
    net.record_spikes(pop)
    return net


def timed(model: str, args, params: dict | None = None, scale: float = 1.0) -> tuple[float, dict]:
    net = network(model, args.cells, args.threads, params, scale)
    net.simulate(10.0)  # build and warm up
    start = time.perf_counter()
    result = net.simulate(args.ms)
    return time.perf_counter() - start, result.summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=sorted(MODELS), default="iaf_psc_exp")
    parser.add_argument("--cells", type=int, default=20000)
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
        "question": f"simulate time of NESTML's {nestml_name} built by spikex against the built-in {builtin}",
        "builtin_parameters": builtin_params,
        "weight_scale": scale,
        "cells": args.cells,
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
    out = (
        RESULTS
        if args.model == "iaf_psc_exp"
        else RESULTS.with_name(f"nestml_step_cost_{args.model}.json")
    )
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
