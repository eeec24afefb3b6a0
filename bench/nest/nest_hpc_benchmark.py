"""NEST 3.10 side of the hpc_benchmark comparison (our own script; the network is
NEST's hpc_benchmark as described in shared/spec/hpc_benchmark.md).

Run with the NEST venv::

    bench/nest/.venv/bin/python bench/nest/nest_hpc_benchmark.py --scale 1 --indegree 11250 \\
        --threads 2 [--plastic] --presim 100 --tsim 1000 -o bench/nest/data/run

writes ``run.json`` (timings, memory, counts, rates, weights) and ``run.npz`` (spikes of
the recorded sample, as 0-based neuron indices: excitatory 0..NE-1, then inhibitory).

Network: NE = 9000·scale excitatory and NI = 2250·scale inhibitory iaf_psc_alpha;
fixed in-degree CE = 0.8 K excitatory and CI = 0.2 K inhibitory inputs per neuron (no
autapses, multapses allowed); E→E ``stdp_pl_synapse_hom_hpc`` when plastic, everything
else ``static_synapse_hpc`` (the benchmark's memory-lean variants; ``--plain-synapses``
uses the ordinary ones); one Poisson generator (independent train per target) at about
20.9 kHz through JE; initial V_m normal(5.7, 7.2) mV; delay 1.5 ms; resolution 0.1 ms.
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
import hpc_params as hp
from process_memory import peak_rss_mb, rss_mb

os.environ.setdefault("PYNEST_QUIET", "1")

# Kernel timers NEST 3.10 reports (all present in the wheel's default build).
TIMERS = (
    "time_simulate",
    "time_update",
    "time_communicate_prepare",
    "time_gather_spike_data",
    "time_communicate_spike_data",
    "time_deliver_spike_data",
    "time_construction_create",
    "time_construction_connect",
)


def _seconds(value) -> float:
    """A kernel timer as seconds; per-thread timers count their slowest thread."""
    return float(np.max(value)) if np.ndim(value) else float(value)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--indegree", type=int, default=11250, help="K = CE + CI [11250]")
    parser.add_argument("--plastic", action="store_true", help="STDP on E→E")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--presim", type=float, default=100.0, help="ms simulated before [100]")
    parser.add_argument("--tsim", type=float, default=1000.0, help="ms measured [1000]")
    parser.add_argument("--seed", type=int, default=1, help="NEST rng_seed [1]")
    parser.add_argument(
        "--nrec", type=int, default=1000, help="recorded E neurons (+ nrec/4 I) [1000]"
    )
    parser.add_argument(
        "--weight-sample", type=int, default=200, help="E targets whose E→E weights are read [200]"
    )
    parser.add_argument(
        "--plain-synapses", action="store_true", help="static_synapse / stdp_pl_synapse_hom"
    )
    hp.add_block_arguments(parser)
    parser.add_argument(
        "-o", "--output", required=True, help="output stem (writes STEM.json, STEM.npz)"
    )
    args = parser.parse_args()

    import nest

    nest.verbosity = nest.VerbosityLevel.ERROR
    rss_start = rss_mb()
    size = hp.sizes(args.scale, args.indegree)
    je = hp.je_pa()
    suffix = "" if args.plain_synapses else "_hpc"
    static_model = "static_synapse" + suffix
    stdp_model = "stdp_pl_synapse_hom" + suffix

    nest.ResetKernel()
    nest.resolution = hp.RESOLUTION_MS
    nest.local_num_threads = args.threads
    nest.rng_seed = args.seed

    t0 = time.perf_counter()
    neuron_params = dict(hp.NEURON)
    neuron_params["V_m"] = nest.random.normal(mean=hp.V0_MEAN_MV, std=hp.V0_STD_MV)
    excitatory = nest.Create("iaf_psc_alpha", size["NE"], params=neuron_params)
    inhibitory = nest.Create("iaf_psc_alpha", size["NI"], params=neuron_params)
    neurons = excitatory + inhibitory
    noise = nest.Create("poisson_generator", params={"rate": hp.poisson_rate_hz(args.indegree)})
    nrec = min(args.nrec, size["NE"])
    nrec_i = min(args.nrec // 4, size["NI"])
    recorder = nest.Create("spike_recorder")
    t_create = time.perf_counter() - t0

    nest.SetDefaults(stdp_model, {**hp.STDP, "weight": je}) if args.plastic else None
    no_autapses = {"allow_autapses": False, "allow_multapses": True}
    rule_e = {"rule": "fixed_indegree", "indegree": size["CE"], **no_autapses}
    rule_i = {"rule": "fixed_indegree", "indegree": size["CI"], **no_autapses}
    static_e = {"synapse_model": static_model, "weight": je, "delay": hp.DELAY_MS}
    static_i = {"synapse_model": static_model, "weight": hp.G * je, "delay": hp.DELAY_MS}
    ee = {"synapse_model": stdp_model, "delay": hp.DELAY_MS} if args.plastic else static_e
    nest.Connect(noise, neurons, "all_to_all", static_e)
    nest.Connect(excitatory, excitatory, rule_e, ee)
    nest.Connect(excitatory, inhibitory, rule_e, static_e)
    nest.Connect(inhibitory, neurons, rule_i, static_i)
    nest.Connect(excitatory[:nrec] + inhibitory[:nrec_i], recorder)
    build_s = time.perf_counter() - t0
    rss_built = rss_mb()
    connections = int(nest.GetKernelStatus("num_connections"))

    t1 = time.perf_counter()
    nest.Simulate(args.presim)
    presim_s = time.perf_counter() - t1
    spikes_before = int(nest.GetKernelStatus("local_spike_counter"))
    timers_before = {k: nest.GetKernelStatus(k) for k in TIMERS if k in nest.GetKernelStatus()}
    recorder.n_events = 0

    def ee_weights():
        sample = excitatory[: min(args.weight_sample, size["NE"])]
        connections = nest.GetConnections(source=excitatory, target=sample, synapse_model=stdp_model)
        return np.asarray(connections.get("weight"), dtype=np.float64)

    # The measured time runs in blocks (one block unless --block-ms): each block's rate
    # (and with --block-weights the mean E→E weight) is printed and kept; a run whose
    # rate exceeds --stop-above-hz stops there (a runaway needs hours to finish).
    blocks, sim_s, spikes_after, simulated = [], 0.0, 0, 0.0
    for length in hp.block_lengths(args.tsim, args.block_ms):
        t2 = time.perf_counter()
        nest.Simulate(length)
        sim_s += time.perf_counter() - t2
        simulated += length
        # local_spike_counter counts the spikes of the latest Simulate call only.
        block_spikes = int(nest.GetKernelStatus("local_spike_counter"))
        spikes_after += block_spikes
        block = hp.block_entry(args.presim + simulated, block_spikes, size["N"], length)
        if args.plastic and args.block_weights:
            block["ee_weight_mean"] = float(ee_weights().mean())
        blocks.append(block)
        print(json.dumps(block), flush=True)
        if hp.ran_away(block, args.stop_above_hz):
            break
    status = nest.GetKernelStatus()
    timers = {
        k: _seconds(status[k]) - _seconds(timers_before.get(k, 0.0)) for k in TIMERS if k in status
    }

    events = recorder.get("events")
    senders = np.asarray(events["senders"], dtype=np.int64)
    first_e = int(excitatory[0].global_id)
    first_i = int(inhibitory[0].global_id)
    index = np.where(senders >= first_i, senders - first_i + size["NE"], senders - first_e)
    times = np.asarray(events["times"], dtype=np.float64)

    peak_mb = peak_rss_mb()  # before reading weights back (GetConnections allocates)
    weights = {}
    if args.plastic:
        w = ee_weights()
        weights = {
            "ee_weight_before_mean": je,
            "ee_weight_after_mean": float(w.mean()),
            "ee_weight_after_std": float(w.std()),
            "ee_weight_sample": int(w.size),
            "ee_weight_drift_rel": float(w.mean() / je - 1.0),
        }
        np.save(Path(args.output + "_ee_weights.npy"), w.astype(np.float32))

    spikes = spikes_after
    mean_outdegree = size["K"]  # N·K recurrent connections from N neurons
    report = {
        "simulator": "nest",
        "nest_version": nest.__version__,
        "scale": args.scale,
        "indegree": args.indegree,
        "plastic": args.plastic,
        "threads": args.threads,
        "ranks": 1,
        "presim_ms": args.presim,
        "tsim_ms": args.tsim,
        "simulated_ms": simulated,
        "stopped_early": simulated < args.tsim - 1e-9,
        "blocks": blocks,
        "seed": args.seed,
        "synapse_models": [static_model] + ([stdp_model] if args.plastic else []),
        **size,
        "je_pa": je,
        "poisson_rate_hz": hp.poisson_rate_hz(args.indegree),
        "connections": connections,
        "recurrent_connections": size["N"] * size["K"],
        "time_s": {
            "create": t_create,
            "build": build_s,
            "init": presim_s,
            "simulate": sim_s,
            "total": build_s + presim_s + sim_s,
        },
        "kernel_timers_s": timers,
        "rss_mb": {"start": rss_start, "built": rss_built, "end": rss_mb()},
        "peak_rss_mb": peak_mb,
        "spikes_total": spikes,
        "spikes_presim": spikes_before,
        "mean_rate_hz": spikes / size["N"] / (simulated / 1000.0),
        # NEST does not count deliveries; each spike reaches on average K targets.
        "events_delivered_estimate": int(spikes * mean_outdegree),
        "recorded": {"excitatory": nrec, "inhibitory": nrec_i},
        **weights,
    }
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    np.savez(
        args.output + ".npz", cells=index, times_ms=times, nrec_e=nrec, nrec_i=nrec_i, NE=size["NE"]
    )
    Path(args.output + ".json").write_text(json.dumps(report, indent=2) + "\n")
    print(
        json.dumps({k: report[k] for k in ("connections", "time_s", "peak_rss_mb", "mean_rate_hz")})
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
