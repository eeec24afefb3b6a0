"""``[network]`` and its sub-sections: cell model, size, connectivity and model parameters.

Also the two derived quantities other sections' rules need: the number of cells and the
delay of the configured network (``network_cells``, ``network_delay_ms``).
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import ConfigError
from ..models import CONNECTION_RULES, MODEL_PARAMETERS, NETWORK_MODELS
from .key import Key, format_number, get, require_at_least

SECTION_DOCS: dict[str, str] = {
    "network": "The network: cell model, size and connectivity.",
    "network.burst": (
        "Burst groups (paper Figure 9, Table 3): contiguous groups of cells that in turn "
        "fire faster."
    ),
    "network.interval_fire": "Parameters of the `interval_fire` artificial cell.",
    "network.iaf_psc_alpha": (
        "Parameters of the `iaf_psc_alpha` neuron (NEST's names, units and defaults; "
        "docs/models/iaf_psc_alpha.md); weights are in pA."
    ),
    "network.hpc_benchmark": (
        'NEST\'s hpc_benchmark (`network.model = "hpc_benchmark"`, spec/hpc_benchmark.md): '
        "the values NEST uses, changeable."
    ),
}

REGISTRY: tuple[Key, ...] = (
    Key(
        "network.model",
        "choice",
        "interval_fire",
        "Neuron model of every cell, or a whole network: hpc_benchmark builds NEST's "
        "hpc_benchmark from network.scale, indegree_e, indegree_i, plastic and "
        "[network.hpc_benchmark] (network.cells, indegree, connectivity, delay_ms and weight "
        "are then not used).",
        choices=(*MODEL_PARAMETERS, *NETWORK_MODELS),
    ),
    Key(
        "network.scale",
        "float",
        1.0,
        "hpc_benchmark: NE = 9000*scale excitatory and NI = 2250*scale inhibitory neurons.",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    Key(
        "network.indegree_e",
        "int",
        9000,
        "hpc_benchmark: excitatory inputs per neuron CE (3000 for the laptop variant K = 3,750).",
        minimum=0,
    ),
    Key(
        "network.indegree_i",
        "int",
        2250,
        "hpc_benchmark: inhibitory inputs per neuron CI (750 for K = 3,750).",
        minimum=0,
    ),
    Key(
        "network.plastic",
        "bool",
        False,
        "hpc_benchmark: E->E synapses are stdp_pl_synapse_hom (true) or static (false).",
    ),
    Key("network.cells", "int", 8192, "Number of cells N.", minimum=1),
    Key(
        "network.indegree",
        "int",
        1000,
        "Mean number of incoming connections per cell C.",
        minimum=0,
    ),
    Key(
        "network.indegree_spread",
        "int",
        100,
        "Width dC of the in-degree distribution: each cell gets UniformInt[C - dC/2, C + dC/2] "
        "inputs (random connectivity only).",
        minimum=0,
    ),
    Key(
        "network.connectivity",
        "choice",
        "random",
        "random: distinct sources drawn uniformly from all other cells; adjacent: cell i "
        "receives from gids i-C/2 .. i+C/2 except i, wrapping around.",
        choices=CONNECTION_RULES,
    ),
    Key(
        "network.delay_ms",
        "float",
        1.0,
        "Delay of every connection in ms; it is also the min-delay communication interval.",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    Key(
        "network.weight",
        "float",
        0.0,
        "Mean connection weight, in the unit of network.model: interval_fire: the jump of "
        "the dimensionless state m (0 is the paper's benchmark; > 0 advances, < 0 delays "
        "firing); iaf_psc_alpha and iaf_psc_exp: the PSC amplitude in pA (> 0 excitatory); "
        "iaf_psc_delta: the jump of V_m in mV. Whole networks (hpc_benchmark, microcircuit) "
        "set their own weights.",
    ),
    Key(
        "network.weight_spread",
        "float",
        0.0,
        "Weights are uniform in weight +- weight_spread/2.",
        minimum=0.0,
    ),
    # [network.burst]
    Key(
        "network.burst.groups",
        "int",
        0,
        "Number of burst groups Ng of contiguous gids; 0 means no bursts.",
        minimum=0,
    ),
    Key(
        "network.burst.factor",
        "float",
        5.0,
        "A bursting group draws intervals divided by this factor.",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    Key(
        "network.burst.period_ms",
        "float",
        50.0,
        "Group g bursts during [g*period, (g+1)*period) modulo Ng*period.",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    # [network.interval_fire]
    Key(
        "network.interval_fire.tau_ms",
        "float",
        5.0,
        "Time constant of the cell state m in ms.",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    Key(
        "network.interval_fire.invl_low_ms",
        "float",
        20.0,
        "Shortest intrinsic inter-spike interval in ms.",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    Key(
        "network.interval_fire.invl_high_ms",
        "float",
        40.0,
        "Longest intrinsic inter-spike interval in ms (>= invl_low_ms).",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    # [network.iaf_psc_alpha]
    Key(
        "network.iaf_psc_alpha.E_L",
        "float",
        -70.0,
        "Resting membrane potential in mV.",
    ),
    Key(
        "network.iaf_psc_alpha.C_m",
        "float",
        250.0,
        "Membrane capacitance in pF.",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    Key(
        "network.iaf_psc_alpha.tau_m",
        "float",
        10.0,
        "Membrane time constant in ms.",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    Key(
        "network.iaf_psc_alpha.t_ref",
        "float",
        2.0,
        "Absolute refractory period in ms (rounded up to whole steps; V is clamped at V_reset).",
        minimum=0.0,
    ),
    Key(
        "network.iaf_psc_alpha.V_th",
        "float",
        -55.0,
        "Spike threshold in mV (> V_reset).",
    ),
    Key(
        "network.iaf_psc_alpha.V_reset",
        "float",
        -70.0,
        "Membrane potential after a spike in mV (< V_th).",
    ),
    Key(
        "network.iaf_psc_alpha.tau_syn_ex",
        "float",
        2.0,
        "Rise time of the excitatory alpha-shaped synaptic current in ms.",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    Key(
        "network.iaf_psc_alpha.tau_syn_in",
        "float",
        2.0,
        "Rise time of the inhibitory alpha-shaped synaptic current in ms.",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    Key(
        "network.iaf_psc_alpha.I_e",
        "float",
        0.0,
        "Constant input current in pA.",
    ),
    Key(
        "network.iaf_psc_alpha.V_m",
        "float",
        -70.0,
        "Initial membrane potential in mV (NEST's default; like NEST it does not follow E_L).",
    ),
    Key(
        "network.iaf_psc_alpha.V_m_sd",
        "float",
        0.0,
        "If > 0, each neuron's initial potential is normal(V_m, V_m_sd) in mV from its own random stream.",
        minimum=0.0,
    ),
    Key(
        "network.iaf_psc_alpha.tau_minus",
        "float",
        20.0,
        "Time constant in ms of the postsynaptic trace that STDP synapses onto the neuron use.",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    Key(
        "network.iaf_psc_alpha.poisson_rate_hz",
        "float",
        0.0,
        "Rate in Hz of each neuron's own independent Poisson input (0: none; at most 500 events per step on average).",
        minimum=0.0,
    ),
    Key(
        "network.iaf_psc_alpha.poisson_weight",
        "float",
        0.0,
        "Weight in pA of each event of the own Poisson input (> 0 excitatory, else inhibitory).",
    ),
    # [network.hpc_benchmark]
    Key(
        "network.hpc_benchmark.psp_mV",
        "float",
        0.14,
        "PSP peak of an excitatory input (JE) in mV; the PSC amplitude in pA follows (45.61 pA).",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    Key("network.hpc_benchmark.g", "float", -5.0, "Inhibitory weight = g * JE.", maximum=0.0),
    Key(
        "network.hpc_benchmark.eta",
        "float",
        1.685,
        "Poisson drive rate in units of the threshold rate nu_thresh * CE.",
        minimum=0.0,
    ),
    Key(
        "network.hpc_benchmark.delay_ms",
        "float",
        1.5,
        "Delay of every connection in ms.",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    Key(
        "network.hpc_benchmark.tau_minus_ms",
        "float",
        30.0,
        "Postsynaptic STDP trace time constant (a neuron parameter in NEST).",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    Key(
        "network.hpc_benchmark.stdp_alpha",
        "float",
        0.0513,
        "stdp_pl_synapse_hom alpha (depression / facilitation).",
        minimum=0.0,
    ),
    Key(
        "network.hpc_benchmark.stdp_lambda",
        "float",
        0.1,
        "stdp_pl_synapse_hom learning rate lambda.",
        minimum=0.0,
    ),
    Key(
        "network.hpc_benchmark.stdp_mu",
        "float",
        0.4,
        "stdp_pl_synapse_hom power-law exponent mu.",
        minimum=0.0,
    ),
    Key(
        "network.hpc_benchmark.stdp_tau_plus_ms",
        "float",
        15.0,
        "stdp_pl_synapse_hom presynaptic trace time constant tau_plus.",
        minimum=0.0,
        exclusive_minimum=True,
    ),
)

CROSS_RULES: tuple[str, ...] = (
    "`network.delay_ms` >= `simulation.dt_ms` (a delay shorter than dt is an error).",
    "`network.interval_fire.invl_high_ms` >= `network.interval_fire.invl_low_ms`.",
    "`network.iaf_psc_alpha.V_reset` < `network.iaf_psc_alpha.V_th`.",
    (
        "`network.iaf_psc_alpha.poisson_rate_hz` * `simulation.dt_ms` / 1000 <= 500 (mean "
        "Poisson events per step)."
    ),
    "`network.indegree_spread` <= 2 * `network.indegree`.",
    "random connectivity: `indegree + indegree_spread/2` <= `cells - 1`.",
    "adjacent connectivity: `indegree` <= `cells - 1`.",
    "`network.burst.groups` <= `network.cells`.",
)

# Largest mean number of own Poisson events per step (cpp/spikex/models/iaf_psc_alpha.hpp).
IAF_MAX_POISSON_MEAN = 500.0


def network_cells(config: dict) -> int:
    """Number of cells the configured network has (hpc_benchmark: NE + NI)."""
    if get(config, "network.model") == "hpc_benchmark":
        scale = get(config, "network.scale")
        return int(9000 * scale) + int(2250 * scale)
    return get(config, "network.cells")


def network_delay_ms(config: dict) -> float:
    """The delay of every connection of the configured network."""
    if get(config, "network.model") == "hpc_benchmark":
        return get(config, "network.hpc_benchmark.delay_ms")
    return get(config, "network.delay_ms")


def _check_delay(config: dict, ranks: int) -> None:
    hpc = get(config, "network.model") == "hpc_benchmark"
    key = "network.hpc_benchmark.delay_ms" if hpc else "network.delay_ms"
    dt, delay = get(config, "simulation.dt_ms"), network_delay_ms(config)
    if delay < dt * (1.0 - 1e-9):
        raise ConfigError(key, delay, f"delay shorter than dt; must be >= simulation.dt_ms = {dt}")


def _check_intervals(config: dict, ranks: int) -> None:
    require_at_least(
        config, "network.interval_fire.invl_high_ms", "network.interval_fire.invl_low_ms"
    )


def _check_iaf_psc_alpha(config: dict, ranks: int) -> None:
    section = "network.iaf_psc_alpha"
    V_th, V_reset = get(config, f"{section}.V_th"), get(config, f"{section}.V_reset")
    if not V_reset < V_th:
        raise ConfigError(f"{section}.V_reset", V_reset, f"must be < {section}.V_th = {V_th}")
    rate, dt = get(config, f"{section}.poisson_rate_hz"), get(config, "simulation.dt_ms")
    if rate * dt / 1000.0 > IAF_MAX_POISSON_MEAN:
        raise ConfigError(
            f"{section}.poisson_rate_hz",
            rate,
            f"must be <= {format_number(IAF_MAX_POISSON_MEAN * 1000.0 / dt)} at simulation.dt_ms = {dt} "
            f"(at most {format_number(IAF_MAX_POISSON_MEAN)} events per step on average); use I_e for a "
            "larger mean drive",
        )


def _check_indegree(config: dict, ranks: int) -> None:
    if get(config, "network.model") == "hpc_benchmark":
        return  # fixed in-degree with multapses: any in-degree can be drawn
    cells = get(config, "network.cells")
    indegree = get(config, "network.indegree")
    spread = get(config, "network.indegree_spread")
    connectivity = get(config, "network.connectivity")
    if connectivity == "random":
        if spread // 2 > indegree:
            raise ConfigError(
                "network.indegree_spread",
                spread,
                f"must be <= 2 * network.indegree = {2 * indegree} "
                "(in-degrees are drawn from [indegree - spread/2, indegree + spread/2])",
            )
        limit = cells - 1 - spread // 2
        if indegree > limit:
            raise ConfigError(
                "network.indegree",
                indegree,
                f"must be <= {max(limit, 0)}: random connectivity needs indegree + "
                f"indegree_spread/2 <= cells - 1 (network.cells = {cells}, "
                f"network.indegree_spread = {spread})",
            )
    elif indegree > cells - 1:
        raise ConfigError(
            "network.indegree",
            indegree,
            f"must be <= cells - 1 = {cells - 1} for adjacent connectivity "
            f"(network.cells = {cells})",
        )


def _check_burst_groups(config: dict, ranks: int) -> None:
    groups, cells = get(config, "network.burst.groups"), network_cells(config)
    if groups > cells:
        raise ConfigError(
            "network.burst.groups",
            groups,
            f"must be <= network.cells = {cells} (a group needs at least one cell)",
        )


CROSS_CHECKS: tuple[Callable[[dict, int], None], ...] = (
    _check_delay,
    _check_intervals,
    _check_iaf_psc_alpha,
    _check_indegree,
    _check_burst_groups,
)
