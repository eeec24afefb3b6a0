"""``[network]`` and its sub-sections: cell model, size, connectivity and model parameters.

Also the two derived quantities other sections' rules need: the number of cells and the
delay of the configured network (``network_cells``, ``network_delay_ms``).
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import ConfigError
from ..models import CONNECTION_RULES, MODEL_PARAMETERS, NETWORK_MODELS, microcircuit
from .key import Key, format_number, get, require_at_least
from .model_keys import model_keys

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
    "network.microcircuit": (
        'The Potjans & Diesmann (2014) microcircuit (`network.model = "microcircuit"`, '
        "docs/models/microcircuit.md): the values NEST 3.10's example lets users change."
    ),
}

REGISTRY: tuple[Key, ...] = (
    Key(
        "network.model",
        "choice",
        "interval_fire",
        "Neuron model of every cell, or a whole network: hpc_benchmark builds NEST's "
        "hpc_benchmark from network.scale, indegree_e, indegree_i, plastic and "
        "[network.hpc_benchmark]; microcircuit the Potjans & Diesmann (2014) microcircuit from "
        "network.n_scaling, k_scaling, input, thalamic_input, v0 and [network.microcircuit] "
        "(network.cells, indegree, connectivity, delay_ms and weight are then not used). Not "
        "used when [[populations]] are given.",
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
    Key(
        "network.n_scaling",
        "float",
        1.0,
        "microcircuit: neurons per population = round(full size * n_scaling) (77,169 at 1); "
        "synapse numbers scale with it too, in-degrees do not.",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    Key(
        "network.k_scaling",
        "float",
        1.0,
        "microcircuit: in-degrees (recurrent, background, thalamic) times k_scaling; below 1 "
        "weights grow by 1/sqrt(k_scaling) and a DC restores the full-scale mean input.",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    Key(
        "network.input",
        "choice",
        "poisson",
        "microcircuit background: poisson (one generator per population, an independent "
        "train of bg_rate_hz * K_ext per neuron) or dc (a constant I_e with the same mean).",
        choices=("poisson", "dc"),
    ),
    Key(
        "network.thalamic_input",
        "bool",
        False,
        "microcircuit: add the thalamic pulse ([network.microcircuit] th_*: th_neurons Poisson "
        "sources onto L4 and L6).",
    ),
    Key(
        "network.v0",
        "choice",
        "optimized",
        "microcircuit initial V_m: optimized (per-population normal, NEST 3.10's default, a "
        "smaller initial burst) or original (normal(-58, 10) mV for all).",
        choices=("optimized", "original"),
    ),
    Key(
        "network.sonata",
        "path",
        "",
        "A SONATA simulation config or circuit config (JSON; relative to the TOML file): the "
        "network is read from it (docs/user/sonata.md) and network.model, cells, indegree, "
        "connectivity, delay_ms and weight are not used; empty: no SONATA circuit.",
    ),
    Key(
        "network.sonata_input_rounding",
        "choice",
        "nest",
        "How a SONATA input spike time just after a grid point is read: nest as NEST's "
        "SonataNetwork (a time within half a NEST tic, 0.5 us, of a grid point is on it), bmtk "
        "as BMTK's pointnet (it goes to the end of its step).",
        choices=("nest", "bmtk"),
    ),
    Key(
        "network.sonata_summary_populations",
        "text",
        "",
        "summary.json populations of a SONATA circuit: populations (one entry per SONATA "
        "population), node_types (<population>:<node_type_id>) or a node attribute such as "
        "pop_name (<population>:<value>); empty: the simulation config's "
        '"spikex": {"summary_populations": ...}, else populations.',
    ),
    # gids are 32-bit (the last value is kept free as "no cell").
    Key("network.cells", "int", 8192, "Number of cells N.", minimum=1, maximum=4_294_967_294),
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
    # [network.burst], [network.interval_fire], [network.iaf_psc_alpha]: from the model
    # registry (model_keys.py)
    *model_keys("interval_fire"),
    *model_keys("iaf_psc_alpha"),
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
    # [network.microcircuit]
    Key(
        "network.microcircuit.psp_mV",
        "float",
        0.15,
        "Mean excitatory PSP peak in mV (recurrent and background); the PSC is 87.81 pA.",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    Key("network.microcircuit.g", "float", -4.0, "Inhibitory PSP = g * psp_mV.", maximum=0.0),
    Key(
        "network.microcircuit.weight_rel_std",
        "float",
        0.1,
        "Weight sd relative to its mean (normal, redrawn to keep its sign).",
        minimum=0.0,
    ),
    Key(
        "network.microcircuit.delay_exc_ms",
        "float",
        1.5,
        "Mean delay of connections from excitatory populations in ms.",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    Key(
        "network.microcircuit.delay_inh_ms",
        "float",
        0.75,
        "Mean delay of connections from inhibitory populations in ms.",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    Key(
        "network.microcircuit.delay_rel_std",
        "float",
        0.5,
        "Delay sd relative to its mean (normal, redrawn below dt/2: at least one step).",
        minimum=0.0,
    ),
    Key(
        "network.microcircuit.bg_rate_hz",
        "float",
        8.0,
        "Rate of each background input in Hz (a neuron gets K_ext of them: 12.8 to 23.2 kHz).",
        minimum=0.0,
    ),
    Key(
        "network.microcircuit.delay_poisson_ms",
        "float",
        1.5,
        "Delay of the background Poisson input in ms.",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    Key(
        "network.microcircuit.th_neurons",
        "int",
        902,
        "Number of thalamic neurons (not scaled by n_scaling, as NEST).",
        minimum=1,
    ),
    Key(
        "network.microcircuit.th_rate_hz",
        "float",
        120.0,
        "Rate of each thalamic neuron during the pulse in Hz.",
        minimum=0.0,
    ),
    Key(
        "network.microcircuit.th_start_ms",
        "float",
        700.0,
        "Start of the thalamic pulse in ms (its spikes leave 1 ms later, NEST's parrot delay).",
        minimum=0.0,
    ),
    Key(
        "network.microcircuit.th_duration_ms",
        "float",
        10.0,
        "Duration of the thalamic pulse in ms.",
        minimum=0.0,
    ),
    Key(
        "network.microcircuit.th_psp_mV",
        "float",
        0.15,
        "Mean PSP peak of a thalamic synapse in mV (sd: weight_rel_std).",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    Key(
        "network.microcircuit.th_delay_ms",
        "float",
        1.5,
        "Mean delay of thalamic synapses in ms.",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    Key(
        "network.microcircuit.th_delay_rel_std",
        "float",
        0.5,
        "Thalamic delay sd relative to its mean.",
        minimum=0.0,
    ),
    Key(
        "network.microcircuit.dc_stim",
        "bool",
        False,
        "Add NEST's optional DC stimulus: a dc_generator per population of dc_stim_amp_pA * K_ext.",
    ),
    Key(
        "network.microcircuit.dc_stim_start_ms",
        "float",
        650.0,
        "Start of the DC stimulus in ms.",
        minimum=0.0,
    ),
    Key(
        "network.microcircuit.dc_stim_duration_ms",
        "float",
        100.0,
        "Duration of the DC stimulus in ms.",
        minimum=0.0,
    ),
    Key(
        "network.microcircuit.dc_stim_amp_pA",
        "float",
        0.3,
        "DC stimulus per unit of external in-degree in pA (L23E: 0.3 * 1600 = 480 pA).",
    ),
)

CROSS_RULES: tuple[str, ...] = (
    "`network.sonata`, when set, names an existing file.",
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
    "microcircuit: every population gets at least one neuron (`network.n_scaling` > 0.5 / 1065).",
    (
        "microcircuit: the spikes exchange every step (the shortest delay is one step), "
        "whatever the mean delays."
    ),
)

# Largest mean number of own Poisson events per step (cpp/spikex/models/iaf_psc_alpha.hpp).
IAF_MAX_POISSON_MEAN = 500.0


def network_cells(config: dict) -> int:
    """Number of cells the configured network has (hpc_benchmark: NE + NI; microcircuit:
    neurons, thalamic sources and generators)."""
    model = get(config, "network.model")
    if model == "hpc_benchmark":
        scale = get(config, "network.scale")
        return int(9000 * scale) + int(2250 * scale)
    if model == "microcircuit":
        return microcircuit.cell_count(config, get)
    return get(config, "network.cells")


def network_delay_ms(config: dict) -> float:
    """The delay of every connection of the configured network (the microcircuit's delays
    are drawn, the shortest is one step)."""
    model = get(config, "network.model")
    if model == "hpc_benchmark":
        return get(config, "network.hpc_benchmark.delay_ms")
    if model == "microcircuit":
        return get(config, "simulation.dt_ms")
    return get(config, "network.delay_ms")


def _check_sonata(config: dict, ranks: int) -> None:
    from pathlib import Path

    path = get(config, "network.sonata")
    if path and not Path(path).is_file():
        raise ConfigError(
            "network.sonata", path, "file not found (a SONATA simulation or circuit config)"
        )


def _check_microcircuit(config: dict, ranks: int) -> None:
    if get(config, "network.model") == "microcircuit":
        microcircuit.population_sizes(get(config, "network.n_scaling"))


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
    if get(config, "network.model") in NETWORK_MODELS:
        return  # whole networks draw their own connections
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
    _check_sonata,
    _check_microcircuit,
    _check_delay,
    _check_intervals,
    _check_iaf_psc_alpha,
    _check_indegree,
    _check_burst_groups,
)
