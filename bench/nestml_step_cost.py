"""What a NESTML-built model costs per step against spikex's built-in one (issue 57's goal:
within 1.2x): N cells of NESTML's iaf_psc_exp_neuron and of the built-in iaf_psc_exp in
the same network (a Poisson drive and recurrent fixed in-degree connections, weights of
both signs), simulated alternately, best of R runs each; the spikes are the same.

    python bench/nestml_step_cost.py [--cells N] [--ms T] [--runs R] [--threads T]

Writes bench/results/nestml_step_cost.json.
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


def network(model: str, cells: int, threads: int):
    import spikex as sx

    net = sx.Network(dt_ms=0.1, seed=5, threads=threads)
    pop = net.create(model, cells, params={"V_m": sx.uniform(-70.0, -56.0)})
    drive = net.create("poisson_generator", 1, params={"rate": 9000.0})
    net.connect_rule("all_to_all", drive, pop, weight=30.0, delay_ms=0.1)
    excitatory = int(cells * 0.8)
    net.connect_rule(
        "fixed_indegree", pop[0:excitatory], pop, indegree=40, weight=20.0, delay_ms=1.5
    )
    net.connect_rule(
        "fixed_indegree", pop[excitatory:cells], pop, indegree=10, weight=-80.0, delay_ms=1.0
    )
    net.record_spikes(pop)
    return net


def timed(model: str, args) -> tuple[float, dict]:
    net = network(model, args.cells, args.threads)
    net.simulate(10.0)  # build and warm up
    start = time.perf_counter()
    result = net.simulate(args.ms)
    return time.perf_counter() - start, result.summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=20000)
    parser.add_argument("--ms", type=float, default=500.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--cache", type=Path, default=REPO / "build" / "nestml-cache")
    args = parser.parse_args()
    import spikex as sx

    file = next(
        Path(f.locate())
        for f in metadata.files("nestml")
        if str(f).endswith("neurons/iaf_psc_exp_neuron.nestml")
    )
    nestml = sx.models.load_nestml(file, args.cache)
    times = {"iaf_psc_exp": [], nestml: []}
    summaries = {}
    for _ in range(args.runs):
        for model, seconds_of in times.items():
            seconds, summaries[model] = timed(model, args)
            seconds_of.append(seconds)
    best = {model: min(t) for model, t in times.items()}
    result = {
        "question": "simulate time of NESTML's iaf_psc_exp_neuron built by spikex against the built-in iaf_psc_exp",
        "cells": args.cells,
        "simulated_ms": args.ms,
        "threads": args.threads,
        "runs": args.runs,
        "seconds": times,
        "best_seconds": best,
        "ratio": best[nestml] / best["iaf_psc_exp"],
        "same_spikes": summaries[nestml]["spikes_sha256"]
        == summaries["iaf_psc_exp"]["spikes_sha256"],
        "spikes": summaries[nestml]["spikes_total"],
        "load_at_end": os.getloadavg()[0],
        "host": platform.node(),
        "cpu": platform.processor() or platform.machine(),
    }
    RESULTS.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
