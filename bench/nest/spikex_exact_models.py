"""spikex side of the exact-match check of iaf_psc_exp / iaf_psc_delta: rebuild the
network that ``nest_exact_models.py`` exported and simulate it with spikex.

Run with the main venv (spikex installed)::

    python bench/nest/spikex_exact_models.py exact_exp.npz -o exact_exp_spikex.npz

gid = NEST node id - first_node_id. The neurons are one population made by
``net.create(model, n, params=...)`` with the per-neuron arrays; the connections go to
``net.connect`` in ``GetConnections`` order with NEST's weights and delays.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np


def run(nest_file: str | Path, threads: int | None = None) -> dict:
    """Builds and simulates the exported network; returns its spikes as cell indices."""
    import spikex as sx

    data = np.load(nest_file)
    n = int(data["n"])
    first = int(data["first_node_id"])
    kwargs = {"threads": threads} if threads else {}
    net = sx.Network(dt_ms=float(data["resolution_ms"]), seed=1, **kwargs)
    params = json.loads(str(data["params"]))
    for name in data["per_neuron_names"]:
        params[str(name)] = np.asarray(data[f"param_{name}"], dtype=np.float64)
    net.create(str(data["model"]), n, params=params)
    net.connect(
        data["source"] - first,
        data["target"] - first,
        weight=data["weight"],
        delay_ms=data["delay_ms"],
    )
    net.record_spikes(np.arange(n))
    result = net.simulate(float(data["tsim_ms"]))
    gids, times = result.spikes
    return {
        "cells": np.asarray(gids, dtype=np.int64),
        "times_ms": np.asarray(times, dtype=np.float64),
        "summary": result.summary,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("nest_file", help=".npz written by nest_exact_models.py")
    parser.add_argument("-o", "--output", required=True, help=".npz file to write")
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    spikes = run(args.nest_file, args.threads)
    np.savez(args.output, cells=spikes["cells"], times_ms=spikes["times_ms"])
    print(json.dumps({"spikes": int(spikes["cells"].size), "output": args.output}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
