"""spikex side of the exact-match check: rebuild the network that
``nest_exact_network.py`` exported and simulate it with spikex.

Run with the main venv (spikex installed)::

    python bench/nest/spikex_exact_network.py bench/nest/data/exact.npz -o bench/nest/data/exact_spikex.npz

NEST node ids start at 1 (``first_node_id`` in the file), spikex gids at 0: gid = node id
- first_node_id. Every neuron has its own ``I_e`` and initial ``V_m``; the connections
are given to ``net.connect`` in ``GetConnections`` order, with NEST's weights (pA) and
delays (ms).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from exact_network import NEURON_PARAMS


def _create_cells(net, n: int, i_e: np.ndarray, v_m: np.ndarray, extra: dict | None = None) -> None:
    """Creates the n neurons with gids 0..n-1, each with its own I_e and V_m.

    Uses per-neuron parameter arrays when ``create`` takes them, otherwise one
    ``create`` per neuron (gids are consecutive either way).
    """
    params = dict(NEURON_PARAMS, **(extra or {}))
    try:
        population = net.create("iaf_psc_alpha", n, params={**params, "I_e": i_e, "V_m": v_m})
    except (TypeError, ValueError):
        population = None
    if population is not None:
        return
    for index in range(n):
        cell = net.create(
            "iaf_psc_alpha",
            1,
            params={**params, "I_e": float(i_e[index]), "V_m": float(v_m[index])},
        )
        if cell.first_gid != index:
            raise RuntimeError(f"neuron {index} got gid {cell.first_gid}: gids are not consecutive")


def run(nest_file: str | Path, threads: int | None = None) -> dict:
    """Builds and simulates the exported network; returns its spikes as cell indices."""
    import spikex as sx

    data = np.load(nest_file)
    n = int(data["n"])
    first = int(data["first_node_id"])
    kwargs = {"threads": threads} if threads else {}
    net = sx.Network(dt_ms=float(data["resolution_ms"]), seed=1, **kwargs)
    plastic = (
        data["plastic"] if "plastic" in data.files else np.zeros(data["source"].size, dtype=bool)
    )
    tau_minus = float(data["tau_minus_ms"]) if "tau_minus_ms" in data.files else 0.0
    _create_cells(
        net, n, data["I_e"], data["V_m"], {"tau_minus": tau_minus} if plastic.any() else None
    )
    for kind in (False, True):
        rows = plastic == kind
        if not rows.any():
            continue
        net.connect(
            data["source"][rows] - first,
            data["target"][rows] - first,
            weight=data["weight"][rows],
            delay_ms=data["delay_ms"][rows],
            synapse="stdp_pl_synapse_hom" if kind else "static",
            synapse_params=json.loads(str(data["stdp_params"])) if kind else None,
        )
    net.record_spikes(np.arange(n))
    result = net.simulate(float(data["tsim_ms"]))
    gids, times = result.spikes
    out = {
        "cells": np.asarray(gids, dtype=np.int64),
        "times_ms": np.asarray(times, dtype=np.float64),
        "summary": result.summary,
    }
    if plastic.any():
        out["weights"] = compare_plastic_weights(data, net.connections(), first)
    return out


def compare_plastic_weights(data, table: dict, first: int) -> dict:
    """Final weights of the plastic (E→E) connections, NEST against spikex.

    Connections are matched by (source, target) and, for multapses, by rank of weight
    within the pair. Spikes emitted in the last delay of the run are still in flight
    when NEST's Simulate returns, so NEST has not yet applied their weight update;
    connections from such sources are reported apart ("in flight").
    """
    n_e = int(data["n_e"])
    rows = data["plastic"]
    a = np.stack(
        [data["source"][rows] - first, data["target"][rows] - first, data["weight_after"][rows]]
    )
    mask = (table["source"] < n_e) & (table["target"] < n_e)
    b = np.stack([table["source"][mask], table["target"][mask], table["weight"][mask]])
    a = a[:, np.lexsort(a[::-1])]
    b = b[:, np.lexsort(b[::-1])]
    if a.shape != b.shape or np.any(a[:2] != b[:2]):
        return {"matched": False, "nest": int(a.shape[1]), "spikex": int(b.shape[1])}
    senders = data["spike_senders"] - first
    times = data["spike_times_ms"]
    end = float(data["tsim_ms"]) - float(np.max(data["delay_ms"]))
    in_flight_sources = np.unique(senders[times > end + 1e-9])
    in_flight = np.isin(a[0], in_flight_sources)
    diff = np.abs(a[2] - b[2])
    settled = diff[~in_flight]
    return {
        "matched": True,
        "plastic_connections": int(a.shape[1]),
        "max_abs_diff_pa": float(settled.max()) if settled.size else 0.0,
        "in_flight_connections": int(in_flight.sum()),
        "in_flight_differing": int(np.count_nonzero(diff[in_flight] > 1e-9)),
        "in_flight_max_abs_diff_pa": float(diff[in_flight].max()) if in_flight.any() else 0.0,
        "mean_weight_nest_pa": float(a[2].mean()),
        "mean_weight_spikex_pa": float(b[2].mean()),
        "sd_weight_nest_pa": float(a[2].std()),
        "sd_weight_spikex_pa": float(b[2].std()),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("nest_file", help=".npz written by nest_exact_network.py")
    parser.add_argument("-o", "--output", required=True, help=".npz file to write")
    args = parser.parse_args()
    spikes = run(args.nest_file)
    np.savez(args.output, cells=spikes["cells"], times_ms=spikes["times_ms"])
    print(json.dumps({"spikes": int(spikes["cells"].size), "output": args.output}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
