"""One run of a bench/brian2 network on spikex, printed as one JSON line.

    python bench/brian2/run_spikex.py NETWORK --frontend api|pynn [--threads T] [--seed S]

NETWORK: brunel5k, brunel20k, cuba (networks.py). ``--threads`` not given: spikex's own
choice. Prints the loop time (``time_s.simulate``), build and init, the script's whole
wall time, rates per population, ``spikes_sha256`` and the thread count used.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from networks import BRUNEL, NETWORKS, brunel, cuba_current_nA  # noqa: E402


def iaf_params(p: dict) -> dict:
    """NEST iaf_psc_exp parameters (pA, pF) of the network's cells."""
    return {
        "C_m": p["cm_nF"] * 1000.0,
        "tau_m": p["tau_m_ms"],
        "E_L": p["v_rest_mV"],
        "V_reset": p["v_reset_mV"],
        "V_th": p["v_thresh_mV"],
        "t_ref": p["tau_refrac_ms"],
        "tau_syn_ex": p["tau_syn_E_ms"],
        "tau_syn_in": p["tau_syn_I_ms"],
    }


def run_api(kind: str, p: dict, threads: int | None, seed: int) -> tuple[dict, dict]:
    import spikex as sx

    options = {} if threads is None else {"threads": threads}
    net = sx.Network(dt_ms=p["dt_ms"], seed=seed, **options)
    params = iaf_params(p)
    n, ne = p["cells"], p["excitatory"]
    if kind == "brunel":
        v0 = sx.uniform(p["v_rest_mV"], p["v_thresh_mV"])
    else:
        v0 = sx.uniform(p["v_reset_mV"], p["v_thresh_mV"])
    exc = net.create("iaf_psc_exp", ne, params={**params, "V_m": v0}, name="E")
    inh = net.create("iaf_psc_exp", n - ne, params={**params, "V_m": v0}, name="I")
    cells = sx.Population(exc.first_gid, n, "iaf_psc_exp")  # E and I, one gid range
    if kind == "brunel":
        j = p["j_exc_nA"] * 1000.0
        delay = sx.uniform(p["delay_min_ms"], p["delay_max_ms"])
        drive = net.create("poisson_generator", 1, params={"rate": p["drive_hz"]}, name="drive")
        for source, weight in ((exc, j), (inh, -p["g"] * j)):
            net.connect_rule("pairwise_bernoulli", source, cells, probability=p["probability"],
                             weight=weight, delay_ms=delay)  # fmt: skip
        net.connect_rule("all_to_all", drive, cells, weight=j, delay_ms=p["dt_ms"])
    else:
        we = cuba_current_nA(p["we_mV"]) * 1000.0
        wi = cuba_current_nA(p["wi_mV"]) * 1000.0
        for source, weight in ((exc, we), (inh, wi)):
            net.connect_rule("pairwise_bernoulli", source, cells, probability=p["probability"],
                             weight=weight, delay_ms=p["dt_ms"])  # fmt: skip
    net.record_spikes(cells)
    result = net.simulate(p["tstop_ms"])
    return result.summary, {}


def run_pynn(kind: str, p: dict, threads: int | None, seed: int) -> tuple[dict, dict]:
    import spikex.pynn as sim
    from pyNN.random import NumpyRNG, RandomDistribution
    from spikex.pynn.simulator import state

    extra = {} if threads is None else {"threads": threads}
    sim.setup(timestep=p["dt_ms"], min_delay="auto", seed=seed, **extra)
    rng = NumpyRNG(seed=seed)
    cell = sim.IF_curr_exp(
        cm=p["cm_nF"], tau_m=p["tau_m_ms"], v_rest=p["v_rest_mV"], v_reset=p["v_reset_mV"],
        v_thresh=p["v_thresh_mV"], tau_refrac=p["tau_refrac_ms"], tau_syn_E=p["tau_syn_E_ms"],
        tau_syn_I=p["tau_syn_I_ms"],
    )  # fmt: skip
    n, ne = p["cells"], p["excitatory"]
    low = p["v_rest_mV"] if kind == "brunel" else p["v_reset_mV"]
    exc = sim.Population(ne, cell, label="E")
    inh = sim.Population(n - ne, cell, label="I")
    for pop in (exc, inh):
        pop.initialize(v=RandomDistribution("uniform", (low, p["v_thresh_mV"]), rng=rng))
    cells = exc + inh
    connector = sim.FixedProbabilityConnector(p["probability"], rng=rng)
    if kind == "brunel":
        j = p["j_exc_nA"]
        delay = RandomDistribution("uniform", (p["delay_min_ms"], p["delay_max_ms"]), rng=rng)
        sim.Projection(exc, cells, connector, sim.StaticSynapse(weight=j, delay=delay),
                       receptor_type="excitatory")  # fmt: skip
        sim.Projection(inh, cells, connector, sim.StaticSynapse(weight=-p["g"] * j, delay=delay),
                       receptor_type="inhibitory")  # fmt: skip
        drive = sim.Population(n, sim.SpikeSourcePoisson(rate=p["drive_hz"]), label="drive")
        sim.Projection(drive, cells, sim.OneToOneConnector(),
                       sim.StaticSynapse(weight=j, delay=p["dt_ms"]), receptor_type="excitatory")  # fmt: skip
    else:
        we, wi = cuba_current_nA(p["we_mV"]), cuba_current_nA(p["wi_mV"])
        sim.Projection(exc, cells, connector, sim.StaticSynapse(weight=we, delay=p["dt_ms"]),
                       receptor_type="excitatory")  # fmt: skip
        sim.Projection(inh, cells, connector, sim.StaticSynapse(weight=wi, delay=p["dt_ms"]),
                       receptor_type="inhibitory")  # fmt: skip
    cells.record("spikes")
    started = time.perf_counter()
    sim.run(p["tstop_ms"])
    run_s = time.perf_counter() - started
    summary = state.result.summary
    sim.end()
    return summary, {"pynn_run_s": round(run_s, 4)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("network", choices=sorted(NETWORKS))
    parser.add_argument("--frontend", choices=("api", "pynn"), default="api")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cells", type=int, default=None, help="brunel: other size (same in-degree)")
    parser.add_argument("--indegree", type=int, default=None, help="brunel: other in-degree")
    parser.add_argument("--tstop", type=float, default=None, help="other duration (ms)")
    args = parser.parse_args()
    kind, p = NETWORKS[args.network]()
    if args.cells or args.indegree:
        indegree = args.indegree or p["indegree"]
        p = brunel((args.cells or p["cells"]) / BRUNEL["cells"])
        p["indegree"] = indegree
        p["probability"] = min(1.0, indegree / p["cells"])
    if args.tstop:
        p["tstop_ms"] = args.tstop
    started = time.perf_counter()
    run = run_api if args.frontend == "api" else run_pynn
    summary, extra = run(kind, p, args.threads, args.seed)
    wall = time.perf_counter() - started
    populations = summary.get("populations", {})
    out = {
        "network": args.network,
        "simulator": "spikex",
        "frontend": args.frontend,
        "threads_asked": args.threads,
        "threads": summary["threads"],
        "loop_s": summary["time_s"]["simulate"],
        "build_s": summary["time_s"]["build"],
        "init_s": summary["time_s"]["init"],
        "script_s": round(wall, 4),
        "cells": summary["cells"],
        "connections": summary["connections"],
        "spikes_total": summary["spikes_total"],
        "spikes_sha256": summary["spikes_sha256"],
        "rates_hz": {name: round(v["rate_hz"], 3) for name, v in populations.items() if name in ("E", "I")},
        "peak_rss_mb": summary["peak_rss_mb"]["max"],
        "maxrss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        **extra,
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
