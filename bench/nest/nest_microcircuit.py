"""NEST 3.10 side of the Potjans & Diesmann microcircuit validation and benchmark (our own
script; the network is NEST's pynest/examples/Potjans_2014, see shared/spec/microcircuit.md
and microcircuit_params.py).

Run with the NEST venv::

    bench/nest/.venv/bin/python bench/nest/nest_microcircuit.py --n-scaling 1 --k-scaling 1 \\
        --threads 2 --seed 1 --out bench/results/nest_microcircuit/full_seed1

writes ``STEM.json`` (times, memory, connection count, rates, parameters) and ``STEM.npz``
(spikes after the presimulation: for each population P, ``P_cells`` — 0-based index in P
— and ``P_times_ms``; ``populations``, ``sizes``, ``t_start_ms``, ``t_stop_ms``).

As in the example (one difference: each source population's synapses are a copy of
static_synapse of their own, see ``build``): 8 iaf_psc_exp populations; every pair connected with
``fixed_total_number`` (multapses and autapses allowed), weights and delays normal,
redrawn until inside the bounds (weights keep their sign, delays >= resolution/2, which
rounds to >= one step); one Poisson generator per population (rate 8 Hz x K_ext, an
independent train per target) or DC; optional thalamic volley through 902 parrot
neurons; ``nest.Prepare()`` ends the build, so the build time includes NEST's
preparation of the presynaptic infrastructure, as in the example.

Memory: RSS is read before the first node is created and after the build; their
difference over the connection count is the bytes per synapse (the same way for spikex in
bench/vs_nest_microcircuit.py). Peak RSS from getrusage.
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
import microcircuit_params as mp
from process_memory import peak_rss_mb, rss_mb
from report import run_stamp

os.environ.setdefault("PYNEST_QUIET", "1")

# Kernel timers of NEST 3.10 (the wheel's default build has them all).
TIMERS = (
    "time_simulate",
    "time_update",
    "time_communicate_prepare",
    "time_gather_spike_data",
    "time_communicate_spike_data",
    "time_deliver_spike_data",
)


def _seconds(value) -> float:
    """A kernel timer in seconds; per-thread timers count their slowest thread."""
    return float(np.max(value)) if np.ndim(value) else float(value)


def output_files(value: str) -> tuple[Path, Path]:
    """(JSON, npz) for ``--out``, which may name the stem or either file (a stem may
    contain dots: n0.1_k1)."""
    for suffix in (".json", ".npz"):
        if value.endswith(suffix):
            value = value[: -len(suffix)]
    return Path(value + ".json"), Path(value + ".npz")


def parse_arguments(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-scaling", type=float, default=1.0, help="neuron numbers [1]")
    parser.add_argument("--k-scaling", type=float, default=1.0, help="in-degrees [1]")
    parser.add_argument("--seed", type=int, default=55, help="nest.rng_seed [55, the example's]")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--presim-ms", type=float, default=mp.PRESIM_MS)
    parser.add_argument("--sim-ms", type=float, default=mp.SIM_MS)
    parser.add_argument("--input", choices=("poisson", "dc"), default="poisson")
    parser.add_argument("--thalamic", action="store_true", help="thalamic volley at 700 ms")
    parser.add_argument("--v0", choices=("original", "optimized"), default="original")
    parser.add_argument("--out", required=True, help="output stem (STEM.json, STEM.npz)")
    args = parser.parse_args(argv)
    for name in ("n_scaling", "k_scaling"):
        value = getattr(args, name)
        if not 0.0 < value <= 1.0:
            parser.error(f"--{name.replace('_', '-')}: {value} is not in (0, 1]")
    if args.threads < 1:
        parser.error(f"--threads: {args.threads} is not >= 1")
    if args.presim_ms < 0 or args.sim_ms <= 0:
        parser.error(f"--presim-ms {args.presim_ms} must be >= 0 and --sim-ms {args.sim_ms} > 0")
    return args


def synapse_model(source: str) -> str:
    return f"static_synapse_from_{source}"


def build(nest, args, derived: mp.Derived) -> dict:
    """Creates and connects the network; returns its parts."""
    neuron = mp.NEURON
    v0 = mp.V0[args.v0]
    populations = []
    for i in range(8):
        population = nest.Create("iaf_psc_exp", int(derived.num_neurons[i]))
        population.set(
            C_m=neuron["C_m"],
            tau_m=neuron["tau_m"],
            tau_syn_ex=neuron["tau_syn"],
            tau_syn_in=neuron["tau_syn"],
            E_L=neuron["E_L"],
            V_th=neuron["V_th"],
            V_reset=neuron["V_reset"],
            t_ref=neuron["t_ref"],
            I_e=float(derived.dc_amp_pa[i]),
        )
        population.set(V_m=nest.random.normal(mean=v0["mean"][i], std=v0["std"][i]))
        populations.append(population)

    # Spikes after the presimulation only: a recorder keeps spikes with start < t <= stop.
    recorders = nest.Create("spike_recorder", 8, params={"start": args.presim_ms})
    poisson = None
    if args.input == "poisson":
        poisson = nest.Create("poisson_generator", 8)
        poisson.rate = derived.poisson_rate_hz.astype(float).tolist()
    thalamus = None
    if args.thalamic:
        th = mp.THALAMUS
        thalamus = nest.Create("parrot_neuron", th["num_neurons"])
        th_generator = nest.Create(
            "poisson_generator",
            params={
                "rate": th["rate_hz"],
                "start": th["start_ms"],
                "stop": th["start_ms"] + th["duration_ms"],
            },
        )

    # NEST 3.10 holds at most 2^27 - 2 connections per thread and synapse model: the full
    # microcircuit (2.99e8) on fewer than 3 threads exceeds it with one model, so each
    # source population gets its own copy of static_synapse (same dynamics; at most
    # 9.3e7 synapses each, from L23E).
    for name in mp.POPULATIONS:
        nest.CopyModel("static_synapse", synapse_model(name))
    min_delay = nest.resolution / 2.0  # rounds to one step at least
    for i, target in enumerate(populations):
        for j, source in enumerate(populations):
            weight = float(derived.weight_mean_pa[i, j])
            delay = float(derived.delay_mean_ms[i, j])
            w_min, w_max = (-np.inf, 0.0) if weight < 0 else (0.0, np.inf)
            syn = {
                "synapse_model": synapse_model(mp.POPULATIONS[j]),
                "weight": nest.math.redraw(
                    nest.random.normal(mean=weight, std=abs(weight) * mp.WEIGHT_REL_STD),
                    min=w_min,
                    max=w_max,
                ),
                "delay": nest.math.redraw(
                    nest.random.normal(mean=delay, std=delay * mp.DELAY_REL_STD),
                    min=min_delay,
                    max=np.inf,
                ),
            }
            rule = {"rule": "fixed_total_number", "N": int(derived.num_synapses[i, j])}
            nest.Connect(source, target, rule, syn)

    for population, recorder in zip(populations, recorders):
        nest.Connect(population, recorder)
    if poisson is not None:
        ext = {
            "synapse_model": "static_synapse",
            "weight": derived.weight_ext_pa,
            "delay": mp.DELAY_POISSON_MS,
        }
        for i, population in enumerate(populations):
            nest.Connect(poisson[i], population, "all_to_all", ext)
    if thalamus is not None:
        th = mp.THALAMUS
        nest.Connect(th_generator, thalamus)
        w = derived.weight_th_pa
        syn_th = {
            "weight": nest.math.redraw(
                nest.random.normal(mean=w, std=w * mp.WEIGHT_REL_STD), min=0.0, max=np.inf
            ),
            "delay": nest.math.redraw(
                nest.random.normal(
                    mean=th["delay_mean_ms"], std=th["delay_mean_ms"] * th["delay_rel_std"]
                ),
                min=min_delay,
                max=np.inf,
            ),
        }
        for i, population in enumerate(populations):
            rule = {"rule": "fixed_total_number", "N": int(derived.num_th_synapses[i])}
            nest.Connect(thalamus, population, rule, syn_th)
    return {"populations": populations, "recorders": recorders}


def parameters(args, derived: mp.Derived) -> dict:
    return {
        "n_scaling": args.n_scaling,
        "k_scaling": args.k_scaling,
        "input": args.input,
        "thalamic_input": args.thalamic,
        "v0": args.v0,
        "seed": args.seed,
        "threads": args.threads,
        "presim_ms": args.presim_ms,
        "sim_ms": args.sim_ms,
        "resolution_ms": mp.RESOLUTION_MS,
        "synapse_models": [synapse_model(name) for name in mp.POPULATIONS],
        "num_synapses": derived.num_synapses.tolist(),
        "ext_indegrees": derived.ext_indegrees.tolist(),
        "weight_mean_pa": derived.weight_mean_pa.tolist(),
        "weight_ext_pa": derived.weight_ext_pa,
        "dc_amp_pa": derived.dc_amp_pa.tolist(),
        "num_th_synapses": None
        if derived.num_th_synapses is None
        else derived.num_th_synapses.tolist(),
    }


def main(argv=None) -> int:
    args = parse_arguments(argv)
    json_path, npz_path = output_files(args.out)
    derived = mp.derive(args.n_scaling, args.k_scaling, args.input == "poisson", args.thalamic)

    import nest

    nest.verbosity = nest.VerbosityLevel.ERROR
    nest.ResetKernel()
    nest.resolution = mp.RESOLUTION_MS
    nest.local_num_threads = args.threads
    nest.rng_seed = args.seed
    rss_before = rss_mb()

    t0 = time.perf_counter()
    network = build(nest, args, derived)
    connect_s = time.perf_counter() - t0
    nest.Prepare()
    nest.Cleanup()
    build_s = time.perf_counter() - t0
    rss_built = rss_mb()
    connections = int(nest.num_connections)

    t1 = time.perf_counter()
    if args.presim_ms > 0:
        nest.Simulate(args.presim_ms)
    presim_s = time.perf_counter() - t1
    t2 = time.perf_counter()
    nest.Simulate(args.sim_ms)
    simulate_s = time.perf_counter() - t2
    status = nest.GetKernelStatus()
    # NEST 3.10 restarts these timers at every Simulate call: they cover the measured one.
    timers = {k: _seconds(status[k]) for k in TIMERS if k in status}
    peak_mb = peak_rss_mb()

    arrays, per_population = {}, {}
    for name, population, recorder in zip(
        mp.POPULATIONS, network["populations"], network["recorders"]
    ):
        events = recorder.get("events")
        first = int(population[0].global_id)
        cells = np.asarray(events["senders"], dtype=np.int64) - first
        times = np.asarray(events["times"], dtype=np.float64)
        order = np.lexsort((cells, times))
        arrays[f"{name}_cells"] = cells[order].astype(np.int32)
        arrays[f"{name}_times_ms"] = times[order]
        size = len(population)
        per_population[name] = {
            "cells": size,
            "spikes": int(cells.size),
            "rate_hz": cells.size / size / (args.sim_ms / 1000.0),
        }
    t_start, t_stop = args.presim_ms, args.presim_ms + args.sim_ms
    npz_path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        npz_path,
        populations=np.array(mp.POPULATIONS),
        sizes=derived.num_neurons,
        t_start_ms=t_start,
        t_stop_ms=t_stop,
        **arrays,
    )

    report = {
        "simulator": "nest",
        "nest_version": nest.__version__,
        "model": "microcircuit",
        "parameters": parameters(args, derived),
        "ranks": 1,
        "threads": args.threads,
        "neurons": int(derived.num_neurons.sum()),
        "recurrent_synapses": derived.recurrent_synapses,
        "connections": connections,
        "time_s": {
            "connect": connect_s,
            "build": build_s,
            "init": presim_s,
            "simulate": simulate_s,
            "total": build_s + presim_s + simulate_s,
        },
        "kernel_timers_s": timers,
        "rss_mb": {"before_build": rss_before, "built": rss_built, "end": rss_mb()},
        "peak_rss_mb": peak_mb,
        "bytes_per_connection": (rss_built - rss_before) * 2**20 / connections,
        "populations": per_population,
        "recorded_ms": [t_start, t_stop],
        "spikes_file": npz_path.name,
        "measured": run_stamp(),
    }
    json_path.write_text(json.dumps(report, indent=2) + "\n")
    summary = {k: report[k] for k in ("connections", "time_s", "peak_rss_mb")}
    summary["rates_hz"] = {k: round(v["rate_hz"], 3) for k, v in per_population.items()}
    print(json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
