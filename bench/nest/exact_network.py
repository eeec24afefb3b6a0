"""The deterministic network of the NEST exact-match check (issue 6, item 6a).

Shared by both sides: ``nest_exact_network.py`` (runs with NEST's venv) builds it in
NEST 3.10 and exports its connections and spikes to an ``.npz`` file;
``spikex_exact_network.py`` (runs with the main venv) rebuilds the same network in
spikex from that file. This module imports only numpy, so both venvs can use it.

The network: ``n`` iaf_psc_alpha neurons with the hpc_benchmark's neuron parameters, 80 %
excitatory. No Poisson input: every neuron gets its own constant current ``I_e``, drawn
around the rheobase ``C_m·V_th/tau_m = 500 pA`` so that about half fire on their own
and the others only through the recurrent input; its own initial ``V_m``. Connections:
fixed in-degree (NEST's ``fixed_indegree``, no autapses, multapses allowed), excitatory
``JE = 45.6096 pA``, inhibitory ``g·JE``, static, delay 1.5 ms; resolution 0.1 ms.

Time convention (verified by ``compare_spikes`` on every run): NEST's spike recorder
stamps a spike emitted in the update step from t to t + h at t + h; spikex reports the
step n at which that update started, time n·h. So ``t_NEST = t_spikex + h``, and the
comparison works in integer steps: ``step_spikex = round(t_NEST / h) - 1``.
"""

from __future__ import annotations

import numpy as np

import hpc_params  # same folder: on sys.path for both sides

RESOLUTION_MS = hpc_params.RESOLUTION_MS
DELAY_MS = 1.5
JE_PA = 45.6096  # 0.14 mV PSP peak, as in the hpc_benchmark
G = hpc_params.G
EXCITATORY_FRACTION = 0.8

# The hpc_benchmark's iaf_psc_alpha parameters (NEST names and units: mV, pF, ms, pA);
# tau_minus belongs to the STDP case.
NEURON_PARAMS = {name: value for name, value in hpc_params.NEURON.items() if name != "tau_minus"}
# --stdp: E→E synapses are stdp_pl_synapse_hom with the hpc_benchmark's parameters.
STDP_PARAMS = dict(hpc_params.STDP)
TAU_MINUS_MS = hpc_params.NEURON["tau_minus"]
RHEOBASE_PA = NEURON_PARAMS["C_m"] * NEURON_PARAMS["V_th"] / NEURON_PARAMS["tau_m"]


def design(n: int = 300, indegree: int = 50, seed: int = 12345) -> dict:
    """The network's description apart from the connections (NEST draws those).

    Returns a dict of plain values and arrays: sizes, in-degrees, per-neuron ``I_e`` (pA)
    and initial ``V_m`` (mV), drawn with numpy's default generator from ``seed``.
    """
    n_e = round(EXCITATORY_FRACTION * n)
    k_e = round(EXCITATORY_FRACTION * indegree)
    rng = np.random.default_rng(seed)
    i_e = rng.normal(RHEOBASE_PA, 0.08 * RHEOBASE_PA, n)
    v_m = rng.uniform(NEURON_PARAMS["V_reset"], NEURON_PARAMS["V_th"], n)
    return {
        "n": n,
        "n_e": n_e,
        "k_e": k_e,
        "k_i": indegree - k_e,
        "seed": seed,
        "I_e": i_e,
        "V_m": v_m,
        "resolution_ms": RESOLUTION_MS,
        "delay_ms": DELAY_MS,
        "je_pa": JE_PA,
        "g": G,
    }


def nest_steps(times_ms: np.ndarray) -> np.ndarray:
    """NEST spike stamps (end of the update step) as spikex step indices (its start)."""
    return np.rint(np.asarray(times_ms) / RESOLUTION_MS).astype(np.int64) - 1


def spikex_steps(times_ms: np.ndarray) -> np.ndarray:
    return np.rint(np.asarray(times_ms) / RESOLUTION_MS).astype(np.int64)


def _sorted_pairs(steps: np.ndarray, cells: np.ndarray) -> np.ndarray:
    pairs = np.stack([np.asarray(steps, np.int64), np.asarray(cells, np.int64)], axis=1)
    order = np.lexsort((pairs[:, 1], pairs[:, 0]))
    return pairs[order]


def compare_spikes(
    nest_cells: np.ndarray, nest_times_ms: np.ndarray, sx_cells: np.ndarray, sx_times_ms: np.ndarray
) -> dict:
    """Compares two spike trains of the same network, both as 0-based cell indices.

    Returns counts, the number of spikes that agree (same step, same cell) in time order
    until the first difference, where that first difference is, and which step offset
    between the two conventions makes the most spikes agree (it must be 0 after the
    documented shift).
    """
    nest = _sorted_pairs(nest_steps(nest_times_ms), nest_cells)
    ours = _sorted_pairs(spikex_steps(sx_times_ms), sx_cells)
    common = min(len(nest), len(ours))
    differs = np.nonzero(np.any(nest[:common] != ours[:common], axis=1))[0]
    first = int(differs[0]) if differs.size else common
    identical = len(nest) == len(ours) and first == common
    # Agreement as a set for a few candidate offsets: verifies the convention on the data.
    offsets = {}
    ours_set = {(int(s), int(c)) for s, c in ours}
    for offset in (-1, 0, 1):
        offsets[offset] = sum((int(s) + offset, int(c)) in ours_set for s, c in nest)
    best_offset = max(offsets, key=offsets.get)
    report = {
        "nest_spikes": len(nest),
        "spikex_spikes": len(ours),
        "identical": bool(identical),
        "matching_until_first_divergence": first,
        "matching_as_set": offsets[0],
        "best_step_offset": int(best_offset),
        "matches_by_step_offset": {str(k): int(v) for k, v in offsets.items()},
        "cells_firing_nest": int(np.unique(nest[:, 1]).size) if len(nest) else 0,
    }
    if not identical:
        report["first_divergence"] = {
            "index": first,
            "nest": nest[first].tolist() if first < len(nest) else None,
            "spikex": ours[first].tolist() if first < len(ours) else None,
            "time_ms": float(
                min(
                    nest[first, 0] if first < len(nest) else np.inf,
                    ours[first, 0] if first < len(ours) else np.inf,
                )
                * RESOLUTION_MS
            ),
        }
    return report
