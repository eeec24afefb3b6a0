"""A small network of a NESTML model, SPMD (the NESTML tests run it under mpiexec).

    python nestml_network_script.py NESTML_FILE CACHE_DIR THREADS DISTRIBUTION TOTAL_MS STEPS...

Every rank loads the model (spikex.models.load_nestml: rank 0 builds or finds it in
CACHE_DIR, every rank registers the same library). 120 cells of the model with per-cell
initial V_m and I_e, recurrent excitation and inhibition (fixed in-degree, weights of both
signs, several delays), a Poisson drive and a dc current into some cells, spikes and V_m of
ten cells recorded. STEPS as resume_script.py's: ``save:T:DIR`` runs to T ms and writes a
checkpoint; ``resume:DIR`` restores one; ``scale:X`` (first) multiplies every weight by X
(0.1 for a conductance-based model: nS, not pA). Rank 0 prints one RESULT line: spike hash and
count, and the hash of the recorded V_m samples' bits.
"""

from __future__ import annotations

import hashlib
import sys

import numpy as np
import spikex as sx
from spikex import _core
from spikex.models import load_nestml


def build(
    nestml_file: str, cache: str, threads: int, distribution: str, scale: float = 1.0
) -> sx.Network:
    model = load_nestml(nestml_file, cache)
    net = sx.Network(dt_ms=0.1, seed=11, threads=threads, distribution=distribution)
    cells = net.create(
        model, 120, params={"V_m": sx.uniform(-70.0, -56.0), "I_e": sx.uniform(0.0, 200.0)}
    )
    drive = net.create("poisson_generator", 1, params={"rate": 8000.0})
    dc = net.create("dc_generator", 1, params={"amplitude": 150.0})
    net.connect_rule("all_to_all", drive, cells, weight=30.0 * scale, delay_ms=0.1)
    net.connect_rule("all_to_all", dc, cells[0:40], weight=1.0, delay_ms=0.1)
    net.connect_rule("fixed_indegree", cells[0:90], cells, indegree=10, weight=sx.uniform(20.0 * scale, 60.0 * scale),
                     delay_ms=sx.uniform(0.5, 2.0))  # fmt: skip
    net.connect_rule(
        "fixed_indegree", cells[90:120], cells, indegree=5, weight=-120.0 * scale, delay_ms=0.8
    )
    net.record_spikes(cells)
    net.record_state(cells[0:10], "V_m")
    return net


def main() -> None:
    nestml_file, cache, threads, distribution, total = sys.argv[1:6]
    steps = sys.argv[6:]
    scale = 1.0
    if steps and steps[0].startswith("scale:"):
        scale = float(steps.pop(0).partition(":")[2])
    net = build(nestml_file, cache, int(threads), distribution, scale)
    for step in steps:
        action, _, rest = step.partition(":")
        if action == "resume":
            net.restore(rest)
            if _core.comm_rank() == 0:
                print("RESUMED", net._engine.step, flush=True)
        elif action == "save":
            until, _, directory = rest.partition(":")
            net.simulate_until(float(until))
            net.save(directory)
            if step == steps[-1]:
                return
    result = net.simulate_until(float(total))
    state = result.states[0]["values"] if result.states else np.zeros(0)
    state_sha = hashlib.sha256(np.ascontiguousarray(state).tobytes()).hexdigest()
    if _core.comm_rank() == 0:
        s = result.summary
        print("RESULT", s["spikes_sha256"], s["spikes_total"], state_sha, flush=True)


if __name__ == "__main__":
    main()
