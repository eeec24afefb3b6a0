"""The cortical microcircuit of Potjans & Diesmann (2014), as NEST 3.10's example builds it.

Facts from ``spec/microcircuit.md`` and NEST 3.10's ``pynest/examples/Potjans_2014``
(``network_params.py``, ``stimulus_params.py``, ``network.py``, ``helpers.py``); where the
two disagree NEST wins (the list is in ``docs/models/microcircuit.md``). The code is ours.

Eight populations of ``iaf_psc_exp`` neurons (L23E, L23I, L4E, L4I, L5E, L5I, L6E, L6I:
sizes ``N_FULL`` · n_scaling). Each (target, source) pair gets
K = log(1 - p) / log(1 - 1/(N_t N_s)) synapses computed at full size, times
n_scaling · k_scaling, with NEST's ``fixed_total_number`` rule (autapses and multapses
allowed). Weights are PSCs from 0.15 mV PSPs (g = -4 for inhibitory sources, L4E -> L23E
doubled), normal with sd 0.1·|w| and redrawn to keep their sign; delays normal with mean
1.5 ms (E) / 0.75 ms (I) and sd 0.5·mean, redrawn below one step. Background: one Poisson
generator per population (8 Hz · K_ext, a train per neuron) or the DC current with the same
mean. A k_scaling below 1 multiplies the weights
by 1/sqrt(k_scaling) and adds the DC that restores each neuron's full-scale mean input.

Everything but ``build`` is a pure function of numbers (or of the configuration), so the
derived values are testable without running anything.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..distributions import normal, normal_clipped
from ..errors import ConfigError

POPULATIONS: tuple[str, ...] = ("L23E", "L23I", "L4E", "L4I", "L5E", "L5I", "L6E", "L6I")

# Neurons per population at full scale (77,169 in all).
N_FULL = np.array([20683, 5834, 21915, 5479, 4850, 1065, 14395, 2948])

# Mean rates (spikes/s) of the full-scale network, used only for the DC that compensates a
# k_scaling < 1. NEST 3.10's values (its own full-scale run); spec/microcircuit.md lists the
# older ones of NEST 2.x, kept for the record in FULL_MEAN_RATES_NEST2.
FULL_MEAN_RATES = np.array([0.943, 3.026, 4.368, 5.882, 7.733, 8.664, 1.096, 7.851])
FULL_MEAN_RATES_NEST2 = np.array([0.971, 2.868, 4.746, 5.396, 8.142, 9.078, 0.991, 7.523])

# Connection probabilities, row = target, column = source (population order).
CONN_PROBS = np.array(
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

# External (background) in-degree per population.
K_EXT = np.array([1600, 1500, 2100, 1900, 2000, 1900, 2900, 2100])

# iaf_psc_exp parameters (NEST's names and units); one synaptic time constant for both.
NEURON_PARAMS: dict[str, float] = {
    "E_L": -65.0,
    "V_th": -50.0,
    "V_reset": -65.0,
    "C_m": 250.0,
    "tau_m": 10.0,
    "tau_syn": 0.5,
    "t_ref": 2.0,
}

# Initial membrane potential: normal(mean, std) in mV, per population ("optimized", which
# shortens the initial burst; NEST 3.10's default) or the same for all ("original").
V0: dict[str, tuple[np.ndarray, np.ndarray]] = {
    "original": (np.full(8, -58.0), np.full(8, 10.0)),
    "optimized": (
        np.array([-68.28, -63.16, -63.33, -63.45, -63.11, -61.66, -66.72, -61.43]),
        np.array([5.36, 4.57, 4.74, 4.94, 4.94, 4.55, 5.46, 4.48]),
    ),
}

# Thalamic connection probabilities per target population (stimulus_params.py).
CONN_PROBS_TH = np.array([0.0, 0.0, 0.0983, 0.0619, 0.0, 0.0, 0.0512, 0.0196])

# nest.Connect's default delay (static_synapse): NEST's example connects the thalamic
# poisson_generator to its parrot neurons and the DC stimulus generators to the neurons
# with it, so thalamic spikes leave the parrots 1 ms after the generator drew them.
CONNECT_DEFAULT_DELAY_MS = 1.0

# Delays are redrawn below this many steps: NEST 3.10 redraws below dt/2 and lets the
# rounding to the nearest step make the shortest delay one step; so do we.
DELAY_LOW_STEPS = 0.5

# Seed salt of the thalamic spike trains (drawn in Python, identical on every rank).
TH_SEED_SALT = 0x7A1A


# ---- formulas (helpers.py) ------------------------------------------------------------


def synapse_numbers(conn_probs: np.ndarray, target_sizes, source_sizes) -> np.ndarray:
    """Total synapses per (target, source) pair for connection probabilities ``conn_probs``.

    K = log(1 - p) / log((N_t N_s - 1) / (N_t N_s)): the number of draws with replacement
    that leaves a given pair unconnected with probability 1 - p.
    """
    product = np.outer(target_sizes, source_sizes).astype(np.float64)
    return np.log(1.0 - conn_probs) / np.log((product - 1.0) / product)


def psc_over_psp(c_m: float, tau_m: float, tau_syn: float) -> float:
    """pA of exponential-current amplitude per mV of PSP peak (iaf_psc_exp).

    The PSP of a current J·exp(-t/tau_syn) into the membrane (tau_m, C_m) peaks at
    t* = tau_m tau_syn / (tau_m - tau_syn) · ln(tau_m / tau_syn); the peak is linear in J.

    >>> round(0.15 * psc_over_psp(250.0, 10.0, 0.5), 4)
    87.8085
    """
    if tau_m == tau_syn:
        raise ValueError(
            "psc_over_psp: tau_m == tau_syn (the formula needs distinct time constants)"
        )
    t_peak = tau_m * tau_syn / (tau_m - tau_syn) * math.log(tau_m / tau_syn)
    v_peak = (
        tau_m
        * tau_syn
        / (c_m * (tau_m - tau_syn))
        * (math.exp(-t_peak / tau_m) - math.exp(-t_peak / tau_syn))
    )
    return 1.0 / v_peak


def psp_matrix(psp_mV: float, g: float) -> np.ndarray:
    """Mean PSP (mV) per (target, source): psp from E sources, g·psp from I, L4E -> L23E 2·psp."""
    matrix = np.tile([psp_mV, g * psp_mV], (8, 4))
    matrix[0, 2] = 2.0 * psp_mV
    return matrix


def delay_matrix(delay_exc_ms: float, delay_inh_ms: float) -> np.ndarray:
    """Mean delay (ms) per (target, source): by the source's type."""
    return np.tile([delay_exc_ms, delay_inh_ms], (8, 4))


def dc_compensating_poisson(
    bg_rate_hz: float, k_ext, tau_syn_ms: float, psc_ext_pA: float
) -> np.ndarray:
    """DC (pA) with the mean of K_ext Poisson inputs at bg_rate of weight psc_ext (exp. PSCs)."""
    return bg_rate_hz * np.asarray(k_ext, dtype=np.float64) * psc_ext_pA * tau_syn_ms * 0.001


def adjust_to_k_scaling(
    k_scaling: float,
    psc_matrix: np.ndarray,
    psc_ext_pA: float,
    dc_pA: np.ndarray,
    tau_syn_ms: float,
    poisson: bool,
    bg_rate_hz: float,
    full_rates=FULL_MEAN_RATES,
) -> tuple[np.ndarray, float, np.ndarray]:
    """Weights / sqrt(k_scaling), and the DC that restores the full-scale mean input.

    With K·k inputs of weight w/sqrt(k) the input variance stays, its mean drops by
    (1 - sqrt(k)) of the full-scale mean (recurrent at FULL_MEAN_RATES, plus the Poisson
    background when there is one); that difference is added as DC.
    """
    root = math.sqrt(k_scaling)
    full_indegrees = synapse_numbers(CONN_PROBS, N_FULL, N_FULL) / N_FULL[:, np.newaxis]
    recurrent_input = np.sum(psc_matrix * full_indegrees * full_rates, axis=1)
    dc = dc_pA + 0.001 * tau_syn_ms * (1.0 - root) * recurrent_input
    if poisson:
        dc = dc + 0.001 * tau_syn_ms * (1.0 - root) * psc_ext_pA * K_EXT * bg_rate_hz
    return psc_matrix / root, psc_ext_pA / root, dc


# ---- the derived network -------------------------------------------------------------


@dataclass(frozen=True)
class Thalamus:
    """The optional thalamic input: n Poisson sources shared by the targets."""

    neurons: int
    rate_hz: float
    start_ms: float
    stop_ms: float
    synapses: np.ndarray  # per target population
    weight_pA: float
    weight_rel_std: float
    delay_ms: float
    delay_rel_std: float


@dataclass(frozen=True)
class DcStimulus:
    """The optional DC stimulus (stimulus_params.py ``dc_input``): one generator per population."""

    amplitude_pA: np.ndarray
    start_ms: float
    stop_ms: float


@dataclass(frozen=True)
class Microcircuit:
    """Every number ``build`` needs, derived from the configuration."""

    sizes: np.ndarray  # neurons per population
    synapses: np.ndarray  # (target, source) total numbers
    weights_pA: np.ndarray  # (target, source) mean PSC
    weight_rel_std: float
    delays_ms: np.ndarray  # (target, source) mean delay
    delay_rel_std: float
    delay_low_ms: float  # delays are redrawn below this: dt (see DELAY_LOW_STEPS)
    poisson: bool
    poisson_rates_hz: np.ndarray  # per population (0 with DC input)
    weight_ext_pA: float
    delay_poisson_ms: float
    dc_pA: np.ndarray  # I_e per population
    v0_mean: np.ndarray
    v0_std: np.ndarray
    thalamus: Thalamus | None
    dc_stimulus: DcStimulus | None

    def neuron_params(self, index: int) -> dict[str, float]:
        """Constant iaf_psc_exp parameters of population ``index`` (V_m is drawn)."""
        p = NEURON_PARAMS
        return {
            "E_L": p["E_L"],
            "C_m": p["C_m"],
            "tau_m": p["tau_m"],
            "t_ref": p["t_ref"],
            "V_th": p["V_th"],
            "V_reset": p["V_reset"],
            "tau_syn_ex": p["tau_syn"],
            "tau_syn_in": p["tau_syn"],
            "I_e": float(self.dc_pA[index]),
        }


SECTION = "network.microcircuit"
Getter = Callable[[dict, str], object]


def population_sizes(n_scaling: float) -> np.ndarray:
    """Neurons per population: round(N_FULL · n_scaling), as NEST (ConfigError if one is 0)."""
    sizes = np.round(N_FULL * n_scaling).astype(np.int64)
    if sizes.min() < 1:
        smallest = int(np.argmin(N_FULL))
        raise ConfigError(
            "network.n_scaling",
            n_scaling,
            f"too small: {POPULATIONS[smallest]} would have no neuron "
            f"(round({N_FULL[smallest]} * n_scaling) = 0); must be > {0.5 / N_FULL[smallest]:.6g}",
        )
    return sizes


def cell_count(config: dict, get: Getter) -> int:
    """Cells the configured microcircuit has: neurons, thalamic sources, generators."""
    cells = int(np.round(N_FULL * get(config, "network.n_scaling")).sum())
    if get(config, "network.input") == "poisson":
        cells += len(POPULATIONS)
    if get(config, "network.thalamic_input"):
        cells += get(config, f"{SECTION}.th_neurons")
    if get(config, f"{SECTION}.dc_stim"):
        cells += len(POPULATIONS)
    return cells


def derive(config: dict, get: Getter) -> Microcircuit:
    """The microcircuit the configuration describes (network.py's __derive_parameters)."""
    n_scaling = get(config, "network.n_scaling")
    k_scaling = get(config, "network.k_scaling")
    poisson = get(config, "network.input") == "poisson"
    tau_syn = NEURON_PARAMS["tau_syn"]
    section = lambda name: get(config, f"{SECTION}.{name}")

    sizes = population_sizes(n_scaling)
    full_synapses = synapse_numbers(CONN_PROBS, N_FULL, N_FULL)
    synapses = np.round(full_synapses * n_scaling * k_scaling).astype(np.int64)
    ext_indegrees = np.round(K_EXT * k_scaling).astype(np.int64)

    unit = psc_over_psp(NEURON_PARAMS["C_m"], NEURON_PARAMS["tau_m"], tau_syn)
    weights = psp_matrix(section("psp_mV"), section("g")) * unit
    weight_ext = section("psp_mV") * unit
    bg_rate = section("bg_rate_hz")
    dc = np.zeros(8) if poisson else dc_compensating_poisson(bg_rate, K_EXT, tau_syn, weight_ext)
    if k_scaling != 1.0:
        weights, weight_ext, dc = adjust_to_k_scaling(
            k_scaling, weights, weight_ext, dc, tau_syn, poisson, bg_rate
        )

    thalamus = None
    if get(config, "network.thalamic_input"):
        # Neither the thalamic neurons nor their synapses scale with n_scaling (NEST 3.10).
        th_neurons = section("th_neurons")
        th_synapses = synapse_numbers(CONN_PROBS_TH[np.newaxis, :], [th_neurons], N_FULL)[0]
        th_weight = section("th_psp_mV") * unit
        if k_scaling != 1.0:
            th_synapses = th_synapses * k_scaling
            th_weight /= math.sqrt(k_scaling)
        thalamus = Thalamus(
            neurons=th_neurons,
            rate_hz=section("th_rate_hz"),
            start_ms=section("th_start_ms"),
            stop_ms=section("th_start_ms") + section("th_duration_ms"),
            synapses=np.round(th_synapses).astype(np.int64),
            weight_pA=th_weight,
            weight_rel_std=section("weight_rel_std"),
            delay_ms=section("th_delay_ms"),
            delay_rel_std=section("th_delay_rel_std"),
        )

    dc_stimulus = None
    if section("dc_stim"):
        start = section("dc_stim_start_ms")
        dc_stimulus = DcStimulus(
            amplitude_pA=section("dc_stim_amp_pA") * K_EXT.astype(np.float64),
            start_ms=start,
            stop_ms=start + section("dc_stim_duration_ms"),
        )

    v0_mean, v0_std = V0[get(config, "network.v0")]
    return Microcircuit(
        sizes=sizes,
        synapses=synapses,
        weights_pA=weights,
        weight_rel_std=section("weight_rel_std"),
        delays_ms=delay_matrix(section("delay_exc_ms"), section("delay_inh_ms")),
        delay_rel_std=section("delay_rel_std"),
        delay_low_ms=DELAY_LOW_STEPS * get(config, "simulation.dt_ms"),
        poisson=poisson,
        poisson_rates_hz=bg_rate * ext_indegrees if poisson else np.zeros(8),
        weight_ext_pA=weight_ext,
        delay_poisson_ms=section("delay_poisson_ms"),
        dc_pA=dc,
        v0_mean=v0_mean,
        v0_std=v0_std,
        thalamus=thalamus,
        dc_stimulus=dc_stimulus,
    )


def thalamic_spike_times(thalamus: Thalamus, dt_ms: float, seed: int) -> list[np.ndarray]:
    """Spike times (ms, NEST's stamps) of each thalamic neuron, the same on every rank.

    NEST: one poisson_generator drives the parrot neurons, each its own train: a Poisson
    count for every emission step n with round(start/dt) < n <= round(stop/dt) (stamp
    (n + 1)·dt), repeated by the parrot 1 ms later (Connect's default delay). Here each
    train is drawn the same way from a generator seeded with (seed, salt). A
    spike_source_array spikes at most once per step, so a count above one becomes one
    spike (at 120 Hz and 0.1 ms about 0.6 % of the events).
    """
    rng = np.random.default_rng([seed, TH_SEED_SALT])
    first = math.floor(thalamus.start_ms / dt_ms + 0.5) + 1
    last = math.floor(thalamus.stop_ms / dt_ms + 0.5)
    delay_steps = math.floor(CONNECT_DEFAULT_DELAY_MS / dt_ms + 0.5)
    stamps = np.arange(first, last + 1) + 1 + delay_steps
    counts = rng.poisson(thalamus.rate_hz * dt_ms * 0.001, size=(thalamus.neurons, stamps.size))
    return [stamps[row > 0] * dt_ms for row in counts]


# ---- building ------------------------------------------------------------------------


def _signed_weight(mean: float, rel_std: float):
    """normal_clipped keeping the sign of ``mean`` (NEST's math.redraw at 0)."""
    std = abs(mean) * rel_std
    if mean < 0:
        return normal_clipped(mean, std, high=0.0)
    return normal_clipped(mean, std, low=0.0)


def build(network, config: dict, get: Getter) -> list:
    """Create the microcircuit in ``network`` in NEST's order; returns the 8 neuron populations.

    Nodes: the neuron populations, then the Poisson generators, the thalamic sources and
    the DC stimulus generators. Connections: recurrent (target-major, as NEST), Poisson,
    thalamic, DC stimulus.
    """
    mc = derive(config, get)
    populations = []
    for index, name in enumerate(POPULATIONS):
        params = mc.neuron_params(index)
        params["V_m"] = normal(float(mc.v0_mean[index]), float(mc.v0_std[index]))
        populations.append(
            network.create("iaf_psc_exp", int(mc.sizes[index]), params=params, name=name)
        )

    generators = []
    if mc.poisson:
        for index, name in enumerate(POPULATIONS):
            rate = float(mc.poisson_rates_hz[index])
            generators.append(
                network.create(
                    "poisson_generator", 1, params={"rate": rate}, name=f"poisson_{name}"
                )
            )

    thalamic = None
    if mc.thalamus is not None:
        times = thalamic_spike_times(
            mc.thalamus, get(config, "simulation.dt_ms"), get(config, "simulation.seed")
        )
        thalamic = network.create(
            "spike_source_array",
            mc.thalamus.neurons,
            params={"spike_times": times},
            name="thalamus",
        )

    dc_generators = []
    if mc.dc_stimulus is not None:
        stim = mc.dc_stimulus
        for index, name in enumerate(POPULATIONS):
            params = {
                "amplitude": float(stim.amplitude_pA[index]),
                "start": stim.start_ms,
                "stop": stim.stop_ms,
            }
            dc_generators.append(
                network.create("dc_generator", 1, params=params, name=f"dc_{name}")
            )

    for i, target in enumerate(populations):
        for j, source in enumerate(populations):
            total = int(mc.synapses[i, j])
            if total == 0:
                continue  # NEST connects zero synapses; nothing to draw
            mean_delay = float(mc.delays_ms[i, j])
            network.connect_rule(
                "fixed_total_number",
                source,
                target,
                total_number=total,
                weight=_signed_weight(float(mc.weights_pA[i, j]), mc.weight_rel_std),
                delay_ms=normal_clipped(
                    mean_delay, mean_delay * mc.delay_rel_std, low=mc.delay_low_ms
                ),
                allow_autapses=True,
                allow_multapses=True,
            )

    for generator, target in zip(generators, populations):
        network.connect_rule(
            "all_to_all", generator, target, weight=mc.weight_ext_pA, delay_ms=mc.delay_poisson_ms
        )

    if thalamic is not None:
        th = mc.thalamus
        for i, target in enumerate(populations):
            if th.synapses[i] == 0:
                continue
            network.connect_rule(
                "fixed_total_number",
                thalamic,
                target,
                total_number=int(th.synapses[i]),
                weight=_signed_weight(th.weight_pA, th.weight_rel_std),
                delay_ms=normal_clipped(
                    th.delay_ms, th.delay_ms * th.delay_rel_std, low=mc.delay_low_ms
                ),
                allow_autapses=True,
                allow_multapses=True,
            )

    # dc_generator -> neurons: nest.Connect's defaults (all_to_all, weight 1, delay 1 ms).
    for generator, target in zip(dc_generators, populations):
        network.connect_rule(
            "all_to_all", generator, target, weight=1.0, delay_ms=CONNECT_DEFAULT_DELAY_MS
        )
    return populations


# ---- documentation ---------------------------------------------------------------------


def parameter_tables_markdown() -> str:
    """The per-population tables of docs/models/microcircuit.md, from the constants above
    (a test keeps the page equal to them)."""
    full = synapse_numbers(CONN_PROBS, N_FULL, N_FULL)
    psc = 0.15 * psc_over_psp(
        NEURON_PARAMS["C_m"], NEURON_PARAMS["tau_m"], NEURON_PARAMS["tau_syn"]
    )
    th = synapse_numbers(CONN_PROBS_TH[np.newaxis, :], [902], N_FULL)[0]
    rows = [
        ("N (full scale)", [f"{n:,}" for n in N_FULL]),
        ("K_ext (background in-degree)", [f"{k:,}" for k in K_EXT]),
        ("background rate (Hz) = 8 · K_ext", [f"{8 * k:,}" for k in K_EXT]),
        ("full-scale mean rate (Hz), NEST 3.10", [f"{r:g}" for r in FULL_MEAN_RATES]),
        ("same, spec (NEST 2.x)", [f"{r:g}" for r in FULL_MEAN_RATES_NEST2]),
        ("recurrent in-degree (full scale)", [f"{k:,.0f}" for k in full.sum(axis=1) / N_FULL]),
        (
            "DC replacing the background (pA)",
            [f"{d:.1f}" for d in dc_compensating_poisson(8.0, K_EXT, 0.5, psc)],
        ),
        ("V0 optimized: mean (mV)", [f"{v:g}" for v in V0["optimized"][0]]),
        ("V0 optimized: sd (mV)", [f"{v:g}" for v in V0["optimized"][1]]),
        ("thalamic p", [f"{p:g}" for p in CONN_PROBS_TH]),
        ("thalamic synapses (full scale)", [f"{round(k):,}" for k in th]),
    ]
    lines = ["| | " + " | ".join(POPULATIONS) + " |", "|---" * 9 + "|"]
    lines += [f"| {label} | " + " | ".join(values) + " |" for label, values in rows]
    lines += [
        "",
        "Total synapses per (target, source) at full scale, K = log(1 − p) / log(1 − 1/(N_t N_s)):",
        "",
    ]
    lines += ["| target \\ source | " + " | ".join(POPULATIONS) + " |", "|---" * 9 + "|"]
    for name, row in zip(POPULATIONS, full):
        lines.append(f"| {name} | " + " | ".join(f"{round(k):,}" for k in row) + " |")
    lines.append(f"| total | {round(full.sum()):,} | | | | | | | |")
    return "\n".join(lines) + "\n"
