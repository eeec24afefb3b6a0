"""Parameters of the Potjans & Diesmann (2014) microcircuit as NEST 3.10's example
(pynest/examples/Potjans_2014) sets them, and the quantities it derives; numpy only.

Shared by the NEST side (``nest_microcircuit.py``, NEST venv) and the comparison driver
(``bench/vs_nest_microcircuit.py``, main venv), so both count the same synapses. The
facts are in shared/spec/microcircuit.md; where the example differs from the paper this
module follows the example (see ``derive``'s notes).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

POPULATIONS = ("L23E", "L23I", "L4E", "L4I", "L5E", "L5I", "L6E", "L6I")
N_FULL = np.array([20683, 5834, 21915, 5479, 4850, 1065, 14395, 2948])
# Mean rates (spikes/s) of the full-scale network as NEST 3.10's network_params.py has them
# (its own full-scale run on 12 MPI processes): the DC that compensates scaled in-degrees
# uses them.
FULL_MEAN_RATES_HZ = np.array([0.943, 3.026, 4.368, 5.882, 7.733, 8.664, 1.096, 7.851])
# The published full-scale rates of shared/spec/microcircuit.md (the example's values up
# to NEST 2.x); the validation compares with them (and with the ones above).
PUBLISHED_RATES_HZ = np.array([0.971, 2.868, 4.746, 5.396, 8.142, 9.078, 0.991, 7.523])
# Row = target, column = source.
CONNECTION_PROBABILITIES = np.array(
    [
        [0.1009, 0.1689, 0.0437, 0.0818, 0.0323, 0.0, 0.0076, 0.0],
        [0.1346, 0.1371, 0.0316, 0.0515, 0.0755, 0.0, 0.0042, 0.0],
        [0.0077, 0.0059, 0.0497, 0.135, 0.0067, 0.0003, 0.0453, 0.0],
        [0.0691, 0.0029, 0.0794, 0.1597, 0.0033, 0.0, 0.1057, 0.0],
        [0.1004, 0.0622, 0.0505, 0.0057, 0.0831, 0.3726, 0.0204, 0.0],
        [0.0548, 0.0269, 0.0257, 0.0022, 0.06, 0.3158, 0.0086, 0.0],
        [0.0156, 0.0066, 0.0211, 0.0166, 0.0572, 0.0197, 0.0396, 0.2252],
        [0.0364, 0.001, 0.0034, 0.0005, 0.0277, 0.008, 0.0658, 0.1443],
    ]
)
K_EXT = np.array([1600, 1500, 2100, 1900, 2000, 1900, 2900, 2100])

RESOLUTION_MS = 0.1
PSP_EXC_MEAN_MV = 0.15
WEIGHT_REL_STD = 0.1
G = -4.0
DELAY_EXC_MEAN_MS = 1.5
DELAY_INH_MEAN_MS = 0.75
DELAY_REL_STD = 0.5
BG_RATE_HZ = 8.0
DELAY_POISSON_MS = 1.5

NEURON = {
    "E_L": -65.0,
    "V_th": -50.0,
    "V_reset": -65.0,
    "C_m": 250.0,
    "tau_m": 10.0,
    "tau_syn": 0.5,
    "t_ref": 2.0,
}
V0 = {
    "original": {"mean": [-58.0] * 8, "std": [10.0] * 8},
    # Per population; shortens the initial transient (NEST 3.10's default V0_type).
    "optimized": {
        "mean": [-68.28, -63.16, -63.33, -63.45, -63.11, -61.66, -66.72, -61.43],
        "std": [5.36, 4.57, 4.74, 4.94, 4.94, 4.55, 5.46, 4.48],
    },
}

# stimulus_params.py: a transient thalamic volley (off by default in the example).
THALAMUS = {
    "num_neurons": 902,
    "rate_hz": 120.0,
    "start_ms": 700.0,
    "duration_ms": 10.0,
    "connection_probabilities": np.array([0.0, 0.0, 0.0983, 0.0619, 0.0, 0.0, 0.0512, 0.0196]),
    "psp_mv": 0.15,
    "delay_mean_ms": 1.5,
    "delay_rel_std": 0.5,
}

PRESIM_MS = 500.0
SIM_MS = 1000.0


def num_synapses_from_probabilities(p: np.ndarray, n_target, n_source) -> np.ndarray:
    """Total synapse number K giving connection probability p between two populations
    when K synapses are drawn with replacement: p = 1 - (1 - 1/(Nt Ns))^K."""
    pairs = np.outer(n_target, n_source).astype(np.float64)
    return np.log(1.0 - p) / np.log((pairs - 1.0) / pairs)


def psc_over_psp(c_m: float, tau_m: float, tau_syn: float) -> float:
    """pA of an exponential PSC per mV of the PSP peak it causes in iaf_psc_exp.

    The PSP v(t) = J tau_m tau_syn / (C_m (tau_m - tau_syn)) (exp(-t/tau_m) - exp(-t/tau_syn))
    peaks where dv/dt = 0, at t* = ln(tau_m/tau_syn) tau_m tau_syn / (tau_m - tau_syn).
    """
    t_peak = np.log(tau_m / tau_syn) * tau_m * tau_syn / (tau_m - tau_syn)
    shape = tau_m * tau_syn / (c_m * (tau_m - tau_syn))
    return float(1.0 / (shape * (np.exp(-t_peak / tau_m) - np.exp(-t_peak / tau_syn))))


def _by_source(excitatory: float, inhibitory: float) -> np.ndarray:
    """An 8x8 matrix with one value for E sources (even columns), another for I sources."""
    matrix = np.empty((8, 8))
    matrix[:, 0::2] = excitatory
    matrix[:, 1::2] = inhibitory
    return matrix


@dataclass(frozen=True)
class Derived:
    """What the example computes from the parameters for one scaling."""

    num_neurons: np.ndarray  # per population
    num_synapses: np.ndarray  # 8x8 total numbers, row = target
    ext_indegrees: np.ndarray  # Poisson in-degree per population
    weight_mean_pa: np.ndarray  # 8x8 PSC amplitudes
    weight_ext_pa: float
    dc_amp_pa: np.ndarray  # I_e per population
    delay_mean_ms: np.ndarray  # 8x8
    poisson_rate_hz: np.ndarray  # one generator per population: bg_rate x K_ext
    num_th_synapses: np.ndarray | None  # per target population
    weight_th_pa: float | None

    @property
    def recurrent_synapses(self) -> int:
        return int(self.num_synapses.sum())


def derive(
    n_scaling: float = 1.0,
    k_scaling: float = 1.0,
    poisson_input: bool = True,
    thalamic_input: bool = False,
) -> Derived:
    """The example's derived parameters (network.py, ``__derive_parameters``).

    Notes where the example does something one might not expect (kept here):
    * numbers are rounded with numpy's round (half to even) and then cast;
    * K_scaling != 1 divides all weights by sqrt(K_scaling) and adds to I_e the mean input
      lost, computed with the full network's in-degrees and FULL_MEAN_RATES_HZ (the
      Poisson part too when Poisson input is on);
    * the DC replacing Poisson input (``poisson_input=False``) uses the unscaled K_ext;
    * the thalamic synapse numbers use the full population sizes and are scaled by
      K_scaling but not by N_scaling.
    """
    full_synapses = num_synapses_from_probabilities(CONNECTION_PROBABILITIES, N_FULL, N_FULL)
    num_neurons = np.round(N_FULL * n_scaling).astype(int)
    num_synapses = np.round(full_synapses * n_scaling * k_scaling).astype(int)
    ext_indegrees = np.round(K_EXT * k_scaling).astype(int)

    factor = psc_over_psp(NEURON["C_m"], NEURON["tau_m"], NEURON["tau_syn"])
    psp = _by_source(PSP_EXC_MEAN_MV, PSP_EXC_MEAN_MV * G)
    psp[0, 2] = 2.0 * PSP_EXC_MEAN_MV  # L4E -> L23E doubled
    weights = psp * factor
    weight_ext = PSP_EXC_MEAN_MV * factor
    tau_syn = NEURON["tau_syn"]

    dc = np.zeros(8) if poisson_input else BG_RATE_HZ * K_EXT * weight_ext * tau_syn * 1e-3
    if k_scaling != 1:
        indegree_full = full_synapses / N_FULL[:, np.newaxis]
        input_rec = np.sum(weights * indegree_full * FULL_MEAN_RATES_HZ, axis=1)
        lost = 1e-3 * tau_syn * (1.0 - np.sqrt(k_scaling))
        dc = dc + lost * input_rec
        if poisson_input:
            dc = dc + lost * weight_ext * K_EXT * BG_RATE_HZ
        weights = weights / np.sqrt(k_scaling)
        weight_ext = weight_ext / np.sqrt(k_scaling)

    num_th, weight_th = None, None
    if thalamic_input:
        th = num_synapses_from_probabilities(
            THALAMUS["connection_probabilities"], THALAMUS["num_neurons"], N_FULL
        )[0]
        weight_th = THALAMUS["psp_mv"] * factor
        if k_scaling != 1:
            th = th * k_scaling
            weight_th = weight_th / np.sqrt(k_scaling)
        num_th = np.round(th).astype(int)

    return Derived(
        num_neurons=num_neurons,
        num_synapses=num_synapses,
        ext_indegrees=ext_indegrees,
        weight_mean_pa=weights,
        weight_ext_pa=float(weight_ext),
        dc_amp_pa=np.asarray(dc, dtype=np.float64),
        delay_mean_ms=_by_source(DELAY_EXC_MEAN_MS, DELAY_INH_MEAN_MS),
        poisson_rate_hz=BG_RATE_HZ * ext_indegrees,
        num_th_synapses=num_th,
        weight_th_pa=None if weight_th is None else float(weight_th),
    )
