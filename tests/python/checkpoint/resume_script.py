"""One segment of a checkpointed run, SPMD (the checkpoint tests run it under mpiexec).

    python resume_script.py NETWORK METHOD THREADS DISTRIBUTION TOTAL_MS STEPS...

NETWORK: users (every model, device, rule and plastic synapse, built by the API),
tsodyks (short-term synapses alone), stochastic (stochastic synapses alone), microcircuit,
hpc_static, hpc_stdp, interval_fire (the artificial-cell benchmark with bursts;
configuration-built). STEPS, in order:
``save:T:DIR`` simulates to T ms (the users network changes at users_network.CHANGE_AT_MS
on the way) and writes a checkpoint into DIR; ``resume:DIR`` restores
from DIR (a new network of this layout; before any simulate). After the steps the run
goes on to TOTAL_MS and rank 0 prints one RESULT line: spike hash and count, events
delivered, the hash of the recorded state samples and of the final weights (their exact
bits, sorted), so that an uninterrupted run and a resumed one can be compared.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "networks"))

import spikex as sx
import users_network
from spikex import _core
from spikex.runtime.collective import gather_int64

INTERVAL_FIRE = {
    "simulation": {"tstop_ms": 300.0, "seed": 4},
    "network": {"cells": 1500, "indegree": 100, "indegree_spread": 20, "weight": 0.01, "weight_spread": 0.02},
    "network.burst": {"groups": 3, "period_ms": 40.0},
}
HPC = {
    "simulation": {"dt_ms": 0.1, "tstop_ms": 150.0},
    "network": {"model": "hpc_benchmark", "scale": 0.04, "indegree_e": 300, "indegree_i": 75},
}


def make(kind: str, method: str, threads: int, distribution: str) -> sx.Network:
    if kind == "users":
        return users_network.build(method, threads, distribution)
    if kind == "microcircuit":
        return users_network.microcircuit(method, threads, distribution)
    if kind in ("tsodyks", "stochastic"):
        return getattr(users_network, kind)(method, threads, distribution)
    layout = [f"exchange.method={method}", f"simulation.threads={threads}", f"distribution.scheme={distribution}"]
    if kind == "interval_fire":
        config = {"simulation": INTERVAL_FIRE["simulation"], "network": {**INTERVAL_FIRE["network"], "burst": INTERVAL_FIRE["network.burst"]}}
        return sx.Network.from_config(config, layout)
    plastic = f"network.plastic={'true' if kind == 'hpc_stdp' else 'false'}"
    net = sx.Network.from_config(HPC, [*layout, plastic])
    net.record_state(net.populations[0][0:5], "V_m", interval_ms=0.5)
    return net


def exact_weights_sha256(net: sx.Network) -> str:
    c = net.connections()
    rows = np.stack(
        [
            gather_int64(c["source"]),
            gather_int64(c["target"]),
            gather_int64(np.round(c["delay_ms"] * 1e6).astype(np.int64)),
            gather_int64(np.ascontiguousarray(c["weight"], dtype=np.float64).view(np.int64)),
        ],
        axis=1,
    )
    rows = rows[np.lexsort(rows.T[::-1])]
    return hashlib.sha256(rows.tobytes()).hexdigest()


def main() -> None:
    kind, method, threads, distribution, total = sys.argv[1:6]
    net = make(kind, method, int(threads), distribution)
    for step in sys.argv[6:]:
        action, _, rest = step.partition(":")
        if action == "resume":
            net.restore(rest)
        elif action == "save":
            until, _, directory = rest.partition(":")
            users_network.simulate_until(net, float(until), kind == "users")
            net.save(directory)
            if step == sys.argv[-1]:
                return
    result = users_network.simulate_until(net, float(total), kind == "users")
    state = result.states[0]["values"] if result.states else np.zeros(0)
    state_sha = hashlib.sha256(np.ascontiguousarray(state).tobytes()).hexdigest()
    weights = exact_weights_sha256(net)
    if _core.comm_rank() == 0:
        s = result.summary
        print("RESULT", s["spikes_sha256"], s["spikes_total"], s["events_delivered"], state_sha, weights, flush=True)


if __name__ == "__main__":
    main()
