"""The configuration registry: every key, its type, default, allowed values and meaning.

This table is the single source of truth for configuration. ``load_config`` fills
defaults from it, ``validate`` checks against it, error messages quote it, and
``python -m spikex.config --markdown`` renders it as ``docs/user/config.md``.

A configuration is a nested dict shaped like the TOML file::

    {"simulation": {"tstop_ms": 200.0, ...}, "network": {..., "burst": {...}}, ...}
"""

from __future__ import annotations

import copy
import math
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError, format_value
from ..methods import EXCHANGE_METHODS
from ..models import CONNECTION_RULES, MODEL_PARAMETERS, NETWORK_MODELS

UINT32_MAX = 2**32 - 1
# Compressed Allgather entries are one byte of local cell index + one byte of step.
COMPRESS_LIMIT = 256


@dataclass(frozen=True)
class Key:
    """One configuration key.

    Parameters
    ----------
    path : str
        Dotted path, e.g. ``network.burst.groups``.
    kind : str
        ``"int"``, ``"float"``, ``"bool"``, ``"choice"`` or ``"grid"`` (a process-grid
        shape: ``"auto"``, ``"hypercube"`` or a list of dimension sizes).
    default : object
        Value used when the key is absent.
    doc : str
        One sentence saying what the key does.
    minimum, maximum : float, optional
        Inclusive bounds (``minimum`` is exclusive when ``exclusive_minimum``).
    choices : tuple, optional
        Allowed values of a ``"choice"`` key.
    """

    path: str
    kind: str
    default: object
    doc: str
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    choices: tuple = ()

    @property
    def section(self) -> str:
        """Dotted section path, e.g. ``network.burst``."""
        return self.path.rsplit(".", 1)[0]

    @property
    def name(self) -> str:
        """Key name inside its section, e.g. ``groups``."""
        return self.path.rsplit(".", 1)[1]

    def range_text(self) -> str:
        """Short description of the allowed values (for tables)."""
        if self.kind == "bool":
            return "true, false"
        if self.kind == "choice":
            return ", ".join(format_value(choice) for choice in self.choices)
        if self.kind == "grid":
            return '"auto", "hypercube", list of sizes >= 1'
        bounds = []
        if self.minimum is not None:
            bounds.append(f"{'>' if self.exclusive_minimum else '>='} {_number(self.minimum)}")
        if self.maximum is not None:
            bounds.append(f"<= {_number(self.maximum)}")
        return " and ".join(bounds) if bounds else "any"

    def allowed_text(self) -> str:
        """What an error message says is allowed, e.g. ``must be an integer >= 1``."""
        if self.kind == "bool":
            return "must be true or false"
        if self.kind == "choice":
            return "must be one of " + ", ".join(format_value(c) for c in self.choices)
        if self.kind == "grid":
            return 'must be "auto", "hypercube" or a list of dimension sizes >= 1, e.g. [4, 2]'
        noun = "an integer" if self.kind == "int" else "a number"
        bounds = self.range_text()
        return f"must be {noun}" + ("" if bounds == "any" else " " + bounds)

    def check(self, value: object) -> object:
        """Return ``value`` normalised (ints accepted for floats), or raise.

        Raises
        ------
        ConfigError
            If the type or the range is wrong.
        """
        normalised = self._coerce(value)
        if normalised is None or not self._in_range(normalised):
            raise ConfigError(self.path, value, self.allowed_text())
        return normalised

    def _coerce(self, value: object) -> object | None:
        # bool is a subclass of int in Python; in a config it is never a number.
        if self.kind == "bool":
            return value if isinstance(value, bool) else None
        if self.kind == "choice":
            return _matching_choice(value, self.choices)
        if self.kind == "grid":
            return _grid_shape(value)
        if isinstance(value, bool):
            return None
        if self.kind == "int":
            return value if isinstance(value, int) else None
        if isinstance(value, (int, float)) and math.isfinite(value):
            return float(value)
        return None

    def _in_range(self, value: object) -> bool:
        if self.kind not in ("int", "float"):
            return True
        below = self.minimum is not None and (
            value < self.minimum or (self.exclusive_minimum and value == self.minimum)
        )
        if below:
            return False
        return self.maximum is None or value <= self.maximum


def _matching_choice(value: object, choices: tuple) -> object | None:
    # Compare type as well as value so that 1 never matches true.
    for choice in choices:
        if type(value) is type(choice) and value == choice:
            return choice
    return None


def _grid_shape(value: object) -> object | None:
    """``"auto"``, ``"hypercube"``, or a list of ints >= 1 (also written ``"4x2"``)."""
    if value in ("auto", "hypercube"):
        return value
    if isinstance(value, str):
        parts = value.lower().split("x")
        if not all(part.strip().isdigit() for part in parts):
            return None
        value = [int(part) for part in parts]
    if not isinstance(value, (list, tuple)) or not value:
        return None
    if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in value):
        return None
    return list(value)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


SECTION_DOCS: dict[str, str] = {
    "simulation": "Time grid, duration and random seed of the run.",
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
        "NEST's hpc_benchmark (`network.model = \"hpc_benchmark\"`, spec/hpc_benchmark.md): "
        "the values NEST uses, changeable."
    ),
    "distribution": "How cells are assigned to MPI ranks.",
    "exchange": "How spikes are exchanged between ranks.",
    "connections": "How each rank stores the connections of its cells (NEST's two-tier store).",
    "record": "What is recorded.",
}

REGISTRY: tuple[Key, ...] = (
    # [simulation]
    Key("simulation.tstop_ms", "float", 200.0, "Simulated time in ms.", minimum=0.0),
    Key(
        "simulation.dt_ms",
        "float",
        0.025,
        "Fixed time step in ms; every spike lies on a step.",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    Key(
        "simulation.seed",
        "int",
        1,
        "Seed of every random stream (Philox key = (seed, gid)); same seed, same spikes.",
        minimum=0,
        maximum=UINT32_MAX,
    ),
    Key(
        "simulation.threads",
        "int",
        1,
        "Threads per rank (OpenMP; `spikex run --threads T` sets it). Spikes do not depend on it.",
        minimum=1,
        maximum=1024,
    ),
    # [network]
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
        "Mean connection weight: added to the cell state m for interval_fire (0 is the paper's "
        "benchmark), a PSC amplitude in pA for iaf_psc_alpha.",
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
    Key("network.hpc_benchmark.psp_mV", "float", 0.14, "PSP peak of an excitatory input (JE) in mV; the PSC amplitude in pA follows (45.61 pA).", minimum=0.0, exclusive_minimum=True),
    Key("network.hpc_benchmark.g", "float", -5.0, "Inhibitory weight = g * JE.", maximum=0.0),
    Key("network.hpc_benchmark.eta", "float", 1.685, "Poisson drive rate in units of the threshold rate nu_thresh * CE.", minimum=0.0),
    Key("network.hpc_benchmark.delay_ms", "float", 1.5, "Delay of every connection in ms.", minimum=0.0, exclusive_minimum=True),
    Key("network.hpc_benchmark.tau_minus_ms", "float", 30.0, "Postsynaptic STDP trace time constant (a neuron parameter in NEST).", minimum=0.0, exclusive_minimum=True),
    Key("network.hpc_benchmark.stdp_alpha", "float", 0.0513, "stdp_pl_synapse_hom alpha (depression / facilitation).", minimum=0.0),
    Key("network.hpc_benchmark.stdp_lambda", "float", 0.1, "stdp_pl_synapse_hom learning rate lambda.", minimum=0.0),
    Key("network.hpc_benchmark.stdp_mu", "float", 0.4, "stdp_pl_synapse_hom power-law exponent mu.", minimum=0.0),
    Key("network.hpc_benchmark.stdp_tau_plus_ms", "float", 15.0, "stdp_pl_synapse_hom presynaptic trace time constant tau_plus.", minimum=0.0, exclusive_minimum=True),
    # [distribution]
    Key(
        "distribution.scheme",
        "choice",
        "round_robin",
        "round_robin: gid i on rank i mod P; consecutive: blocks of ceil(N/P) gids; "
        "random_shuffle: a seeded permutation, N/P cells per rank.",
        choices=("round_robin", "consecutive", "random_shuffle"),
    ),
    # [exchange]
    Key(
        "exchange.method",
        "choice",
        "allgather",
        "Spike-exchange method.",
        choices=tuple(EXCHANGE_METHODS),
    ),
    Key(
        "exchange.allgather_slots",
        "int",
        10,
        "Spike slots per rank in the fixed-size MPI_Allgather; more spikes go in an "
        "overflow MPI_Allgatherv.",
        minimum=1,
    ),
    Key(
        "exchange.compress",
        "choice",
        "auto",
        "2-byte spike entries (local cell byte + step byte): auto uses them when every rank "
        "has <= 256 cells and an interval <= 256 steps.",
        choices=("auto", True, False),
    ),
    Key(
        "exchange.source_lookup",
        "choice",
        "dense",
        "Table that finds whether a received source gid has local targets.",
        choices=("dense", "hash", "sorted"),
    ),
    Key(
        "exchange.measure_wait",
        "bool",
        True,
        "Call MPI_Barrier before each collective (or conservation loop) so that waiting for "
        "the slowest rank and the exchange itself are timed separately.",
    ),
    Key(
        "exchange.alltoall_min_entries",
        "int",
        16,
        "alltoall: smallest section size (entries per destination rank per round); the "
        "section adapts between this and alltoall_max_entries.",
        minimum=1,
        maximum=UINT32_MAX,
    ),
    Key(
        "exchange.alltoall_max_entries",
        "int",
        1048576,
        "alltoall: largest section size; an interval with more entries for one rank takes "
        "further rounds.",
        minimum=1,
        maximum=UINT32_MAX,
    ),
    Key(
        "exchange.max_init_buffer_mb",
        "float",
        128.0,
        "alltoall, alltoallv: bound in MB of the MPI buffer of one round of target-table "
        "construction during init (NEST's default is 128 MB); more data takes more rounds.",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    Key(
        "exchange.subintervals",
        "int",
        1,
        "multisend, persistent, rma: 2 cuts each min-delay interval into sub-intervals A and "
        "B with a conservation check at each end; a spike sent in A need only arrive by the "
        "end of B (Hines et al. 2011).",
        minimum=1,
        maximum=2,
    ),
    Key(
        "exchange.phases",
        "int",
        1,
        "multisend: 2 sends each spike to ~sqrt(Nt) relay ranks, which forward it to the "
        "rest of the cell's Nt target ranks (two-phase multisend).",
        minimum=1,
        maximum=2,
    ),
    Key(
        "exchange.max_pending_sends",
        "int",
        1024,
        "multisend, persistent: most MPI_Isend requests in flight per rank; a full pool "
        "completes old sends before new ones start.",
        minimum=1,
        maximum=2**31 - 1,
    ),
    Key(
        "exchange.rma_slot_spikes",
        "int",
        2,
        "rma: spikes one source's slot in a target's window holds between two interval "
        "ends; more are written in the conservation loop.",
        minimum=1,
        maximum=2**16,
    ),
    Key(
        "exchange.route_dims",
        "grid",
        "auto",
        "routed: logical process grid, dimension 0 varying fastest; only the last dimension "
        "may be incomplete. auto: least modelled cost per spike item (docs/methods/routed.md): "
        "direct ([P]) up to 128 ranks with budget 1024, then balanced, e.g. [16, 16]; "
        "hypercube: all 2 (power-of-two ranks).",
    ),
    Key(
        "exchange.route_budget",
        "int",
        1024,
        "routed: spike items a rank may buffer (send buckets + receive buffers); each bucket "
        "holds budget / (sum of dims) items (Garg & Sabharwal's 1024 / (X + Y + Z)).",
        minimum=1,
        maximum=2**31 - 1,
    ),
    # [connections]
    Key(
        "connections.sort_by_source",
        "bool",
        True,
        "Sort each rank's connections by source (NEST 5g-sort: one target entry per source "
        "run); false keeps creation order (5g-nosort: one entry per connection). "
        "Source-addressed methods (allgather) always sort.",
    ),
    Key(
        "connections.keep_sources",
        "bool",
        True,
        "Keep the source table after init; false frees it (sorted layout only) and "
        "connectivity can then no longer be queried.",
    ),
    # [record]
    Key("record.spikes", "bool", True, "Record the spikes of every cell."),
    Key(
        "record.timeline",
        "bool",
        False,
        "Write timeline.h5: per rank and (sub-)interval computation, send-initiation, wait "
        "and exchange time, conservation rounds, spikes generated / sent / received.",
    ),
)

KEYS: dict[str, Key] = {key.path: key for key in REGISTRY}
SECTIONS: tuple[str, ...] = tuple(SECTION_DOCS)

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
    (
        "`exchange.compress = true` needs at most 256 cells per rank (ceil(cells/ranks)) and "
        "at most 256 steps per interval (delay_ms/dt_ms)."
    ),
    "`exchange.alltoall_max_entries` >= `exchange.alltoall_min_entries`.",
    "`exchange.max_init_buffer_mb` holds at least two 16-byte records per rank.",
    (
        "`exchange.subintervals = 2` needs `exchange.method` = multisend, persistent or rma, "
        "and at least 2 steps per interval (delay_ms/dt_ms)."
    ),
    '`exchange.phases = 2` needs `exchange.method = "multisend"`.',
    (
        "routed: `exchange.route_dims` must fit the rank count (all planes full but the last) "
        "and `exchange.route_budget` >= the number of buckets (sum of dims, + 1 if ragged)."
    ),
    "`connections.keep_sources = false` needs `connections.sort_by_source = true`.",
)

# Point-to-point methods that accept exchange.subintervals = 2 / exchange.phases = 2
# (the C++ methods refuse the others: cpp/spikex/exchange/point_to_point.hpp).
SUBINTERVAL_METHODS: tuple[str, ...] = ("multisend", "persistent", "rma")
TWO_PHASE_METHODS: tuple[str, ...] = ("multisend",)


# ---- reading -----------------------------------------------------------------------


def load_config(path: str | Path) -> dict:
    """Read a TOML configuration file and fill in every default.

    Parameters
    ----------
    path : str or Path
        TOML file.

    Returns
    -------
    dict
        Nested configuration with every key of the registry present.

    Raises
    ------
    ConfigError
        Missing or unreadable file, invalid TOML, unknown section or key.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(str(path), allowed="configuration file not found") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(str(path), allowed=f"cannot read file: {error}") from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(str(path), allowed=f"invalid TOML: {error}") from None
    return resolve(raw)


def resolve(raw: dict) -> dict:
    """Return a copy of a (partial) configuration with every default filled in.

    Raises
    ------
    ConfigError
        Unknown section or key, or a section that is not a table.
    """
    if not isinstance(raw, dict):
        raise ConfigError("configuration", raw, "must be a table of sections")
    _check_structure(raw, "")
    config = copy.deepcopy(raw)
    for key in REGISTRY:
        table = config
        for part in key.section.split("."):
            table = table.setdefault(part, {})
        table.setdefault(key.name, key.default)
    return config


def apply_overrides(config: dict, overrides: list[str] | tuple[str, ...]) -> dict:
    """Apply ``--set KEY=VALUE`` overrides to a configuration.

    Parameters
    ----------
    config : dict
        Resolved configuration (not modified).
    overrides : list of str
        ``"network.cells=4096"``; the value is parsed as a TOML value, and taken as a
        bare string when it is not one (``network.connectivity=adjacent``).

    Returns
    -------
    dict
        New configuration with the overrides applied (not yet validated).

    Raises
    ------
    ConfigError
        Malformed override or unknown key.
    """
    config = copy.deepcopy(config)
    for text in overrides:
        path, value = parse_override(text)
        if path in SECTIONS:
            raise ConfigError(path, value, _section_not_key_text(path))
        if path not in KEYS:
            raise ConfigError(path, value, _unknown_key_text(path))
        table = config
        for part in KEYS[path].section.split("."):
            table = table.setdefault(part, {})
        table[KEYS[path].name] = value
    return config


def parse_override(text: str) -> tuple[str, object]:
    """Split ``"key=value"`` and parse the value as TOML, else as a bare string."""
    path, sep, value_text = text.partition("=")
    path = path.strip()
    if not sep or not path:
        raise ConfigError("--set", text, "expected KEY=VALUE, e.g. --set network.cells=4096")
    value_text = value_text.strip()
    try:
        value = tomllib.loads(f"value = {value_text}")["value"]
    except tomllib.TOMLDecodeError:
        value = value_text
    return path, value


# ---- validation --------------------------------------------------------------------


def validate(config: dict, ranks: int = 1) -> dict:
    """Check every key, type, range and cross-key rule.

    Parameters
    ----------
    config : dict
        Resolved configuration (see ``load_config``).
    ranks : int
        Number of MPI ranks of the run (needed for ``exchange.compress = true``).

    Returns
    -------
    dict
        A normalised copy (integers given for float keys become floats).

    Raises
    ------
    ConfigError
        For the first problem found, naming the key, the value and what is allowed.
    """
    config = resolve(config)
    for key in REGISTRY:
        table = _section_table(config, key.section)
        table[key.name] = key.check(table[key.name])
    for rule in _CROSS_CHECKS:
        rule(config, ranks)
    return config


def resolved_config(
    source: str | Path | dict, overrides: list[str] | tuple[str, ...] = (), ranks: int = 1
) -> dict:
    """Load (file) or resolve (dict), apply overrides and validate: the one entry point."""
    config = resolve(source) if isinstance(source, dict) else load_config(source)
    return validate(apply_overrides(config, overrides), ranks)


def get(config: dict, path: str) -> object:
    """Value of a dotted key in a resolved configuration."""
    key = KEYS[path]
    return _section_table(config, key.section)[key.name]


def _section_table(config: dict, section: str) -> dict:
    table = config
    for part in section.split("."):
        table = table[part]
    return table


def _children(section: str) -> tuple[list[str], list[str]]:
    """Key names and sub-section names allowed directly inside ``section``."""
    keys = [key.name for key in REGISTRY if key.section == section]
    prefix = section + "." if section else ""
    subsections = [
        name[len(prefix) :]
        for name in SECTIONS
        if name.startswith(prefix) and "." not in name[len(prefix) :]
    ]
    return keys, subsections


def _allowed_children_text(section: str) -> str:
    keys, subsections = _children(section)
    parts = [*keys, *(f"[{_join(section, name)}]" for name in subsections)]
    where = f"in [{section}]" if section else "at top level (sections)"
    return f"allowed {where}: " + ", ".join(parts)


def _unknown_key_text(path: str) -> str:
    section = path.rsplit(".", 1)[0] if "." in path else ""
    while section and section not in SECTIONS:
        section = section.rsplit(".", 1)[0] if "." in section else ""
    return "unknown key; " + _allowed_children_text(section)


def _section_not_key_text(section: str) -> str:
    keys, _ = _children(section)
    return "is a section, not a key; set one of its keys: " + ", ".join(
        f"{section}.{name}" for name in keys
    )


def _join(section: str, name: str) -> str:
    return f"{section}.{name}" if section else name


def _check_structure(table: dict, section: str) -> None:
    keys, subsections = _children(section)
    for name, value in table.items():
        path = _join(section, name)
        if name in subsections:
            if not isinstance(value, dict):
                raise ConfigError(path, value, f"must be a table [{path}]")
            _check_structure(value, path)
        elif name not in keys:
            if isinstance(value, dict):
                raise ConfigError(
                    f"[{path}]", allowed="unknown section; " + _allowed_children_text(section)
                )
            raise ConfigError(path, value, "unknown key; " + _allowed_children_text(section))


# ---- rules between keys --------------------------------------------------------------


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


def _require_at_least(config: dict, key: str, lower_key: str) -> None:
    """`key` must not be below the value of `lower_key`."""
    value, lower = get(config, key), get(config, lower_key)
    if value < lower:
        raise ConfigError(key, value, f"must be >= {lower_key} = {lower}")


def _check_intervals(config: dict, ranks: int) -> None:
    _require_at_least(config, "network.interval_fire.invl_high_ms", "network.interval_fire.invl_low_ms")


# Largest mean number of own Poisson events per step (cpp/spikex/models/iaf_psc_alpha.hpp).
IAF_MAX_POISSON_MEAN = 500.0


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
            f"must be <= {_number(IAF_MAX_POISSON_MEAN * 1000.0 / dt)} at simulation.dt_ms = {dt} "
            f"(at most {_number(IAF_MAX_POISSON_MEAN)} events per step on average); use I_e for a "
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


def _check_compress(config: dict, ranks: int) -> None:
    if get(config, "exchange.compress") is not True:
        return
    cells_per_rank = -(-network_cells(config) // max(ranks, 1))
    steps = math.floor(network_delay_ms(config) / get(config, "simulation.dt_ms") + 0.5)
    if cells_per_rank > COMPRESS_LIMIT or steps > COMPRESS_LIMIT:
        raise ConfigError(
            "exchange.compress",
            True,
            f"2-byte entries need <= {COMPRESS_LIMIT} cells per rank and <= {COMPRESS_LIMIT} "
            f"steps per interval, this run has {cells_per_rank} cells per rank on {ranks} "
            f'rank(s) and {steps} steps per interval; use "auto" or false',
        )


def _check_alltoall_sections(config: dict, ranks: int) -> None:
    _require_at_least(config, "exchange.alltoall_max_entries", "exchange.alltoall_min_entries")


def _check_init_buffer(config: dict, ranks: int) -> None:
    # One round of target-table construction carries, per rank pair, a count record and
    # at least one 16-byte entry.
    needed = 2 * 16 * max(ranks, 1)
    limit = get(config, "exchange.max_init_buffer_mb")
    if limit * 1048576 < needed:
        raise ConfigError(
            "exchange.max_init_buffer_mb",
            limit,
            f"must hold at least {needed} bytes (two 16-byte records per rank) on {ranks} rank(s)",
        )


def _check_keep_sources(config: dict, ranks: int) -> None:
    if get(config, "connections.keep_sources") or get(config, "connections.sort_by_source"):
        return
    raise ConfigError(
        "connections.keep_sources",
        False,
        "needs connections.sort_by_source = true (unsorted connections need their sources "
        "to order the inputs of a step canonically)",
    )


def _check_point_to_point(config: dict, ranks: int) -> None:
    method = get(config, "exchange.method")
    if get(config, "exchange.subintervals") == 2:
        if method not in SUBINTERVAL_METHODS:
            raise ConfigError(
                "exchange.subintervals",
                2,
                f"needs exchange.method = one of {', '.join(SUBINTERVAL_METHODS)} "
                f"(exchange.method = {method!r} exchanges once per interval); use 1",
            )
        steps = math.floor(network_delay_ms(config) / get(config, "simulation.dt_ms") + 0.5)
        if steps < 2:
            raise ConfigError(
                "exchange.subintervals",
                2,
                f"needs at least 2 steps per interval, this run has {steps} "
                "(network.delay_ms / simulation.dt_ms); use 1",
            )
    if get(config, "exchange.phases") == 2 and method not in TWO_PHASE_METHODS:
        raise ConfigError(
            "exchange.phases",
            2,
            f'the two-phase relay is a variant of exchange.method = "multisend", not {method!r}; '
            "use 1",
        )


def _check_route(config: dict, ranks: int) -> None:
    if get(config, "exchange.method") != "routed":
        return
    from .. import _core  # the route library decides what fits; one implementation

    dims, budget = get(config, "exchange.route_dims"), get(config, "exchange.route_budget")
    plan = _core.route_plan(max(ranks, 1), dims, budget)
    if plan["dims_error"]:
        raise ConfigError("exchange.route_dims", dims, f"on {ranks} rank(s): {plan['dims_error']}")
    if plan["budget_error"]:
        raise ConfigError("exchange.route_budget", budget, plan["budget_error"])


_CROSS_CHECKS = (
    _check_delay,
    _check_intervals,
    _check_iaf_psc_alpha,
    _check_indegree,
    _check_burst_groups,
    _check_compress,
    _check_alltoall_sections,
    _check_init_buffer,
    _check_point_to_point,
    _check_route,
    _check_keep_sources,
)


# ---- documentation -------------------------------------------------------------------


def describe() -> str:
    """Render the registry as Markdown (the content of ``docs/user/config.md``)."""
    lines = [
        "# Configuration keys",
        "",
        "<!-- Generated by `python -m spikex.config --markdown > docs/user/config.md`;",
        "     edit python/spikex/config/, not this file. -->",
        "",
        "A configuration is a TOML file. Every key is optional (the default is used);",
        "unknown sections and keys are errors. Any key can be overridden on the command",
        "line by its dotted path: `spikex run CONFIG.toml --set network.cells=4096`.",
        "",
    ]
    for section in SECTIONS:
        lines += [f"## [{section}]", "", SECTION_DOCS[section], ""]
        lines += ["| key | type | default | allowed | meaning |", "|---|---|---|---|---|"]
        for key in REGISTRY:
            if key.section == section:
                lines.append(
                    f"| `{key.name}` | {_type_name(key)} | `{format_value(key.default)}` "
                    f"| {key.range_text()} | {key.doc} |"
                )
        lines.append("")
    lines += ["## Rules between keys", ""]
    lines += [f"* {rule}" for rule in CROSS_RULES]
    lines += [
        "",
        "## Exchange methods",
        "",
        *(f"* `{name}`: {doc}." for name, doc in EXCHANGE_METHODS.items()),
        "",
    ]
    return "\n".join(lines)


def _type_name(key: Key) -> str:
    if key.kind == "grid":
        return "string or list"
    if key.kind != "choice":
        return {"int": "integer", "float": "float", "bool": "boolean"}[key.kind]
    kinds = {type(choice) for choice in key.choices}
    return "string" if kinds == {str} else "string or boolean"


def main(argv: list[str] | None = None) -> int:
    """``python -m spikex.config --markdown``: print the registry as Markdown."""
    argv = sys.argv[1:] if argv is None else argv
    if argv != ["--markdown"]:
        print("usage: python -m spikex.config --markdown", file=sys.stderr)
        return 2
    sys.stdout.write(describe())
    return 0


if __name__ == "__main__":
    sys.exit(main())
