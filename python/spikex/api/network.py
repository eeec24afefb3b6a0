"""The Python API: build a network, simulate it, get spikes and a summary.

SPMD like PyNEST: under ``mpiexec`` every rank runs the same script and makes the same
calls with the same arguments; each rank keeps the cells and incoming connections it
owns, and every rank gets the same ``Result``.

Life cycle: ``create`` / ``connect`` / ``connect_rule`` / ``record_spikes`` while the
network is open; the first ``connections()`` or ``simulate()`` builds it (no
communication), the first ``simulate()`` also initialises the exchange (collective).
After that the network can only be simulated further.
"""

from __future__ import annotations

import contextlib
import json
import math
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from .. import _core
from ..config import KEYS, get, resolved_config
from ..distributions import Distribution
from ..errors import format_value
from ..io.output import canonical_order, spikes_sha256
from ..io.timeline import gather_timeline, timeline_summary
from ..models import (
    CONNECTION_RULE_TYPES,
    CONNECTION_RULES,
    LIST_PARAMETERS,
    MODEL_PARAMETERS,
    MODELS,
    SYNAPSES,
    hpc_benchmark,
    microcircuit,
)
from ..runtime.allocation import auto_threads, thread_limit_problem
from ..runtime.collective import broadcast_text, gather_spikes, int64_per_rank
from ..runtime.watchdog import DEFAULT_STALL_TIMEOUT_S, StallWatchdog, end_stalled_rank
from ..version import __version__
from . import spike_times
from .list_parameters import _cell_lists, _float_array
from .memory_check import check_fits, expected_connections, ranks_on_this_host
from .population import Population
from .result import Result
from .run_control import RunControl, chunk_steps
from .state import gather_states
from .summary import build_summary, population_summary

# Exchange options accepted as keyword arguments of Network (section [exchange]).
EXCHANGE_OPTIONS = tuple(
    key.name for key in KEYS.values() if key.section == "exchange" and key.name != "method"
)
# Number of progress callbacks per simulate() call (chunks are whole intervals).
PROGRESS_CHUNKS = 100
# Relative tolerance when comparing a delay with dt (delays are rounded to steps).
DELAY_TOLERANCE = 1e-9

ProgressCallback = Callable[[float, float], None]


class Network:
    """A spiking network distributed over the MPI ranks of the job.

    Parameters
    ----------
    dt_ms : float
        Time step in ms.
    seed : int
        Seed of every random stream, in [0, 2**32 - 1].
    method : str
        Spike-exchange method (see ``spikex.methods.EXCHANGE_METHODS``).
    distribution : str
        Cell distribution over ranks: ``round_robin``, ``consecutive`` or
        ``random_shuffle``.
    sort_by_source : bool
        Sort each rank's connections by source (NEST 5g-sort); false keeps creation order
        (5g-nosort, used by target-addressed methods only).
    keep_sources : bool
        Keep the source table after initialisation; false frees it (then ``connections()``
        raises).
    threads : int, optional
        Threads per rank: each owns a block of the rank's cells and the connections
        ending there. Spikes do not depend on it. Not given (None): spikex chooses at the
        first ``simulate`` from the rank's share of cells and synapses, the host's cores
        and the user's OMP_NUM_THREADS / OMP_THREAD_LIMIT
        (``spikex.runtime.allocation.auto_threads``); ``net.threads`` then says what it
        chose.
    stall_timeout_s : float
        On several ranks: a rank that completes no spike exchange for this many seconds
        during ``simulate`` (a lost host or link; never less than 20 times its longest gap
        between exchanges) ends itself with exit status 3 and one line naming its rank and
        host, so that the launcher ends the job instead of every rank waiting for ever
        (``spikex.runtime.watchdog``; ``simulation.stall_timeout_s``).
    **exchange_options
        ``allgather_slots``, ``compress``, ``source_lookup``, ``measure_wait``, ... (see the
        ``[exchange]`` section of the configuration reference).

    Raises
    ------
    ValueError
        For any parameter outside its allowed range, naming it and what is allowed.
    """

    def __init__(
        self,
        dt_ms: float = 0.025,
        seed: int = 1,
        method: str = "allgather",
        distribution: str = "round_robin",
        sort_by_source: bool = True,
        keep_sources: bool = True,
        threads: int | None = None,
        stall_timeout_s: float = DEFAULT_STALL_TIMEOUT_S,
        **exchange_options: object,
    ) -> None:
        self.dt_ms = _check("Network", "dt_ms", "simulation.dt_ms", dt_ms)
        self.seed = _check("Network", "seed", "simulation.seed", seed)
        self.method = _check("Network", "method", "exchange.method", method)
        self.distribution = _check("Network", "distribution", "distribution.scheme", distribution)
        self.exchange_options = _exchange_options(exchange_options)
        self.populations: list[Population] = []
        # Populations made of several created ones (a SONATA population of several models):
        # spikes.h5 and summary.json report them under their own name (output_populations).
        self._population_groups: list[Population] = []
        self.config: dict | None = None
        self.sort_by_source = _check(
            "Network", "sort_by_source", "connections.sort_by_source", sort_by_source
        )
        self.keep_sources = _check(
            "Network", "keep_sources", "connections.keep_sources", keep_sources
        )
        if not (self.sort_by_source or self.keep_sources):
            raise ValueError(
                "Network: keep_sources = False needs sort_by_source = True (unsorted connections "
                "need their sources to order the inputs of a step canonically)"
            )
        self._engine = _core.Engine(
            self.dt_ms, self.seed, self.method, self.distribution, dict(self.exchange_options)
        )
        self._engine.set_connection_options(self.sort_by_source, self.keep_sources)
        # Not given: chosen in _build, from the network's size (auto_threads).
        self._threads_given = threads is not None
        self.threads = 1
        if self._threads_given:
            self.threads = _check("Network", "threads", "simulation.threads", threads)
        problem = thread_limit_problem(self.threads)
        if problem:
            raise ValueError(f"Network: threads = {self.threads}: {problem}")
        self._engine.set_threads(self.threads)
        self.stall_timeout_s = _check(
            "Network", "stall_timeout_s", "simulation.stall_timeout_s", stall_timeout_s
        )
        self._cells_total = 0
        self._rules: list[dict] = []
        self._explicit_connections = 0
        self._recorded: list[list[int]] = []
        self._state_recordings: list[dict] = []
        self._record_from_ms = 0.0
        self._state = "open"
        self._wall = {"build": 0.0, "init": 0.0, "simulate": 0.0, "total": 0.0}
        self._requested_ms = 0.0
        self._timeline = False
        self._spike_stream = None  # rank 0's SpikeStream when streaming (stream_spikes)
        self._streaming = False
        self._segments: list[dict] = []  # earlier segments of a resumed run
        self._segment_start_step = 0
        self._changes: list[dict] = []  # Network.set's records (api/changes.py)
        self.sonata = None  # the SONATA circuit it was built from (from_sonata; spikex.sonata)
        # Called once, collectively, when the network is built and its cells are final
        # (each rank's share is known): SONATA edges are read there, per rank.
        self._build_hooks: list[Callable[[], None]] = []

    # ---- construction from a configuration ------------------------------------------

    @classmethod
    def from_config(
        cls, source: str | Path | dict, overrides: list[str] | tuple[str, ...] | None = None
    ) -> Network:
        """Build the network a configuration describes (the same one ``spikex run`` runs).

        Parameters
        ----------
        source : str, Path or dict
            TOML file, or a (partial) configuration dict.
        overrides : list of str, optional
            ``"key=value"`` overrides, as ``--set`` on the command line.

        Returns
        -------
        Network
            With one population (``net.populations[0]``), its connections and, when
            ``record.spikes`` is true, spike recording; not yet simulated.

        Raises
        ------
        spikex.ConfigError
            (a ``ValueError``) for an invalid configuration.
        """
        config = resolved_config(source, tuple(overrides or ()), ranks=_core.comm_size())
        network = cls(
            dt_ms=get(config, "simulation.dt_ms"),
            seed=get(config, "simulation.seed"),
            method=get(config, "exchange.method"),
            distribution=get(config, "distribution.scheme"),
            sort_by_source=get(config, "connections.sort_by_source"),
            keep_sources=get(config, "connections.keep_sources"),
            threads=get(config, "simulation.threads"),
            stall_timeout_s=get(config, "simulation.stall_timeout_s"),
            **{name: config["exchange"][name] for name in EXCHANGE_OPTIONS},
        )
        model = get(config, "network.model")
        if get(config, "network.sonata"):
            from ..sonata import build_from_sonata

            network.sonata = build_from_sonata(
                network, get(config, "network.sonata"), record_spikes=False,
                input_rounding=get(config, "network.sonata_input_rounding"),
                summary_populations=get(config, "network.sonata_summary_populations") or None,
            )  # fmt: skip
            recorded = []  # the circuit's node set: record_node_spikes below
        elif config["populations"]:
            from .config_populations import build as build_populations

            recorded = build_populations(network, config)
        elif model == "hpc_benchmark":
            hpc_benchmark.build(network, config, get)
            recorded = [Population(0, network.cells, "iaf_psc_alpha")]
        elif model == "microcircuit":
            recorded = microcircuit.build(network, config, get)  # the 8 neuron populations
        else:
            params = {name: get(config, path) for name, path in MODEL_PARAMETERS[model].items()}
            cells = network.create(model, get(config, "network.cells"), params=params, name=model)
            network.connect_rule(
                get(config, "network.connectivity"),
                cells,
                cells,
                indegree=get(config, "network.indegree"),
                indegree_spread=get(config, "network.indegree_spread"),
                weight=get(config, "network.weight"),
                weight_spread=get(config, "network.weight_spread"),
                delay_ms=get(config, "network.delay_ms"),
            )
            recorded = [cells]
        network.set_recording_start(get(config, "simulation.presim_ms"))
        own_state = {item["name"]: item for item in config["populations"] if item["record_state"] is not None}
        for population in network.populations:
            item = own_state.get(population.name)
            if item is not None:
                cells = item["record_state_cells"] or population.size
                network.record_state(
                    population[0 : min(cells, population.size)],
                    item["record_state"],
                    interval_ms=get(config, "record.state_interval_ms"),
                    start_ms=get(config, "simulation.presim_ms"),
                )
        state_cells = get(config, "record.state_cells")
        if state_cells:
            for population in network.populations:
                if MODELS[population.model]["kind"] == "neuron" and population.name not in own_state:
                    network.record_state(
                        population[0 : min(state_cells, population.size)],
                        get(config, "record.state_variable"),
                        interval_ms=get(config, "record.state_interval_ms"),
                        start_ms=get(config, "simulation.presim_ms"),
                    )
        if get(config, "record.spikes"):
            for population in recorded:
                network.record_spikes(population)
            if network.sonata is not None:
                from ..sonata.build import record_node_spikes

                record_node_spikes(network, network.sonata)
        if get(config, "record.timeline"):
            network.record_timeline()
        network.config = config
        return network

    @classmethod
    def from_sonata(
        cls,
        path: str | Path,
        dt_ms: float | None = None,
        record_spikes: bool = True,
        input_rounding: str = "nest",
        summary_populations: str | None = None,
        **options: object,
    ) -> Network:
        """Build the network of a SONATA circuit (docs/user/sonata.md).

        Parameters
        ----------
        path : str or Path
            A SONATA simulation config (``run``, ``network``, ``inputs``, ...) or circuit
            config (``networks``, ``components``).
        dt_ms : float, optional
            Time step [default: the simulation config's ``run.dt``, else 0.025].
        record_spikes : bool
            Record the spikes of every population that is not virtual.
        input_rounding : str
            How an input spike time just after a grid point is read: ``"nest"`` as NEST's
            SonataNetwork (a time within 0.5 us of a grid point is on it), ``"bmtk"`` as
            BMTK's pointnet (at the end of its step) (``network.sonata_input_rounding``).
        summary_populations : str, optional
            ``summary["populations"]`` per SONATA population (``"populations"``), per node
            type (``"node_types"``: ``<population>:<node_type_id>``) or per value of a node
            attribute (e.g. ``"pop_name"``: ``<population>:<value>``); default: the
            simulation config's ``"spikex": {"summary_populations": ...}``, else
            ``"populations"`` (``network.sonata_summary_populations``).
        **options
            Further ``Network`` arguments (``seed``, ``method``, ``distribution``,
            ``threads``, ...).

        Returns
        -------
        Network
            One population per SONATA node population, named as it, node ids in order
            (``net.sonata.gids(population, node_ids)``; ``net.sonata.populations``),
            virtual nodes as ``spike_source_array`` fed by the config's spike inputs, the
            edges as connections; still open: ``create`` / ``connect`` may add to it.
            ``net.sonata.tstop_ms`` is the simulation config's ``run.tstop``.

        Raises
        ------
        spikex.sonata.SonataError
            (a ``ValueError``) naming the file, key and value of what is wrong.
        """
        from ..sonata import build_from_sonata, simulation_run

        if dt_ms is None:
            dt_ms = simulation_run(path).get("dt_ms", KEYS["simulation.dt_ms"].default)
        _check("from_sonata", "input_rounding", "network.sonata_input_rounding", input_rounding)
        network = cls(dt_ms=dt_ms, **options)
        network.sonata = build_from_sonata(
            network, path, record_spikes=record_spikes, input_rounding=input_rounding,
            summary_populations=summary_populations,
        )  # fmt: skip
        return network

    # ---- building ---------------------------------------------------------------------

    def create(
        self, model: str, n: int, params: dict | None = None, name: str | None = None
    ) -> Population:
        """Create ``n`` cells of ``model``; their gids follow those created before.

        Parameters
        ----------
        model : str
            A neuron model or device of ``spikex.models.MODELS``: MODEL_NAMES
            (docs/models/).
        n : int
            Number of cells (>= 1).
        params : dict, optional
            Model parameters (NEST's names and units); missing ones take their defaults.
            Each value is a number, an array of ``n`` numbers (one per cell) or a
            distribution (``sx.normal(...)``, ...) drawn per cell from the stream keyed by
            (seed, gid, parameter name). A list parameter (``spike_times`` of
            ``spike_source_array``, ``amplitude_times`` and ``amplitude_values`` of
            ``step_current_generator``, ``rate_times`` and ``rate_values`` of
            ``spike_source_inh_gamma``) is one list for every cell, or a list of ``n`` lists.
        name : str, optional
            Population name (default: the model name, numbered from the second
            population of that model on: ``iaf_psc_exp_2``, ...).

        Returns
        -------
        Population
        """
        self._require_open("create")
        where = f"create({format_value(model)})"
        if model not in MODELS:
            allowed = ", ".join(format_value(m) for m in MODELS)
            raise ValueError(f"create: model = {format_value(model)}: must be one of {allowed}")
        n = _check(where, "n", "network.cells", n)
        params = _flags_as_numbers(model, dict(params or {}))
        lists = {key: params.pop(key) for key in list(params) if key in LIST_PARAMETERS[model]}
        if model in MODEL_PARAMETERS and all(_is_number(v) for v in params.values()):
            core_params = _model_params(where, model, params)
        else:
            core_params = {
                key: _parameter_to_core(where, key, value, n) for key, value in params.items()
            }
        name = self._population_name(where, model, name)
        first_gid = int(self._engine.add_population(model, n, core_params))
        for key, value in lists.items():
            values, offsets = _cell_lists(where, key, value, n)
            if key == "spike_times":
                spike_times.check(name, values, offsets, self.dt_ms)
            self._engine.set_list_parameter(first_gid, key, values, offsets)
        population = Population(first_gid=first_gid, size=n, model=model, name=name)
        self.populations.append(population)
        self._cells_total = population.stop_gid
        return population

    def connect(
        self,
        sources,
        targets,
        weight=0.0,
        delay_ms=1.0,
        synapse: str = "static",
        synapse_params: dict[str, float] | None = None,
        local: bool = False,
        receptor: int = 0,
    ) -> None:
        """Connect ``sources[i]`` to ``targets[i]`` for every i.

        Parameters
        ----------
        sources, targets : Population, array-like of int, or int
            Gids. Scalars (and length-1 arrays) are repeated to the common length.
        weight : float or array-like of float
            Weight of each connection.
        delay_ms : float or array-like of float
            Delay of each connection in ms (>= dt_ms).
        synapse : str
            ``"static"`` or a plastic type of ``spikex.models.SYNAPSES``:
            ``"stdp_pl_synapse_hom"`` (weights >= 0, in pA;
            docs/models/stdp_pl_synapse_hom.md), ``"stdp_synapse"`` (weights between 0
            and ``Wmax``; docs/models/stdp_synapse.md), the short-term types
            ``"tsodyks_synapse"`` and ``"tsodyks2_synapse"`` (any weight, scaled at each
            spike; docs/models/tsodyks_synapse.md, docs/models/tsodyks2_synapse.md), or the
            stochastic types ``"bernoulli_synapse"``, ``"quantal_stp_synapse"`` and
            ``"stochastic_stp_synapse"`` (any weight, crossing by keyed draws;
            docs/models/bernoulli_synapse.md, docs/models/quantal_stp_synapse.md,
            docs/models/stochastic_stp_synapse.md).
        synapse_params : dict, optional
            Parameters of a plastic synapse type (``SYNAPSES[synapse]`` names them and
            their defaults), one number each; connections with equal type and parameters
            share them.

        local : bool
            False (default): give the same arrays on every rank; each rank keeps the
            connections whose target it owns. True: each rank gives only connections
            whose target it owns (``net.local_gids()``; any other is an error), so no
            rank holds arrays of the size of the whole network. The order of a target's
            connections is the order they are given in, rank by rank as given.
        receptor : int
            The targets' receptor port (NEST's ``receptor_type``): 1, 2, ... for models
            with receptor ports (the multisynapse models: one port per value of their port
            lists), which take spikes through a port only; 0 (default) for every other
            model, where the weight's sign chooses the input.
        """
        self._require_open("connect")
        synapse_params = _synapse_params("connect", synapse, synapse_params)
        columns = {
            "sources": self._gid_array("connect", "sources", sources),
            "targets": self._gid_array("connect", "targets", targets),
            "weight": _float_array("connect", "weight", weight),
            "delay_ms": _float_array("connect", "delay_ms", delay_ms),
        }
        columns = _broadcast("connect", columns)
        self._check_delays("connect", columns["delay_ms"])
        self._engine.connect_arrays(
            columns["sources"],
            columns["targets"],
            columns["weight"],
            columns["delay_ms"],
            synapse,
            synapse_params,
            bool(local),
            _receptor("connect", receptor),
        )
        self._explicit_connections += columns["sources"].size

    def connect_rule(
        self,
        rule: str,
        sources: Population,
        targets: Population,
        indegree: int | None = None,
        indegree_spread: int = 0,
        weight: float | Distribution = 0.0,
        weight_spread: float = 0.0,
        delay_ms: float | Distribution = 1.0,
        synapse: str = "static",
        synapse_params: dict[str, float] | None = None,
        *,
        outdegree: int | None = None,
        total_number: int | None = None,
        probability: float | None = None,
        allow_autapses: bool | None = None,
        allow_multapses: bool | None = None,
        receptor: int = 0,
    ) -> None:
        """Connect by a rule; each target's inputs are drawn on the rank that owns it.

        Parameters
        ----------
        rule : str
            NEST's rules (docs/user/connection_rules.md): ``"fixed_indegree"``
            (``indegree``), ``"fixed_outdegree"`` (``outdegree``),
            ``"fixed_total_number"`` (``total_number``), ``"pairwise_bernoulli"``
            (``probability``), ``"one_to_one"``, ``"all_to_all"``; and Hines et al.'s
            ``"random"`` (UniformInt[indegree - spread/2, indegree + spread/2] distinct
            sources, never the target itself) and ``"adjacent"`` (the ``indegree`` gids
            around the target).
        sources, targets : Population
        indegree, indegree_spread, outdegree, total_number, probability
            The rule's count or probability.
        weight : float or Distribution
            Weight of every connection, or a distribution drawn per connection.
        weight_spread : float
            ``random``/``adjacent``/``fixed_indegree`` with a number as weight: weights
            uniform in ``weight +- weight_spread/2``.
        delay_ms : float or Distribution
            Delay (>= dt_ms; rounded to whole steps), or a distribution whose smallest
            value is >= dt_ms.
        synapse, synapse_params
            As in ``connect``.
        allow_autapses, allow_multapses : bool, optional
            NEST's flags; default True for NEST's rules (as NEST). ``random`` and
            ``adjacent`` never connect a cell to itself.
        receptor : int
            As in ``connect``.
        """
        self._require_open("connect_rule")
        where = f"connect_rule({format_value(rule)})"
        if rule not in CONNECTION_RULES:
            allowed = ", ".join(format_value(name) for name in CONNECTION_RULES)
            raise ValueError(f"connect_rule: rule = {format_value(rule)}: must be one of {allowed}")
        self._check_population(where, "sources", sources)
        self._check_population(where, "targets", targets)
        options: dict[str, object] = {}
        entry = CONNECTION_RULE_TYPES[rule]
        needed = entry["parameter_specs"][0]["name"] if entry["parameter_specs"] else None
        given = {
            "indegree": indegree,
            "outdegree": outdegree,
            "total_number": total_number,
            "probability": probability,
        }
        for key, value in given.items():
            if value is None:
                continue
            if needed != key:
                raise ValueError(f"{where}: {key} does not apply to this rule")
        if needed is not None and given[needed] is None:
            raise ValueError(f"{where}: {needed} is required")
        if needed == "probability":
            p = _real(where, "probability", probability)
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"{where}: probability = {p}: must be in [0, 1]")
            options["probability"] = p
        elif needed is not None:
            options[needed] = _count(where, needed, given[needed])
        if entry["takes_indegree_spread"]:
            options["indegree_spread"] = _check(
                where, "indegree_spread", "network.indegree_spread", indegree_spread
            )
        elif indegree_spread:
            raise ValueError(f"{where}: indegree_spread does not apply to this rule")
        for flag, value in (
            ("allow_autapses", allow_autapses),
            ("allow_multapses", allow_multapses),
        ):
            if value is None:
                continue
            if not entry["self_connection_flags"]:
                raise ValueError(
                    f"{where}: {flag} does not apply to this rule (it never connects a cell to itself)"
                )
            options[flag] = bool(value)
        options["weight"] = _value_to_core(where, "weight", weight)
        weight_spread = _real(where, "weight_spread", weight_spread)
        if weight_spread and (isinstance(weight, Distribution) or not entry["takes_weight_spread"]):
            spread_rules = ", ".join(
                name for name, e in CONNECTION_RULE_TYPES.items() if e["takes_weight_spread"]
            )
            raise ValueError(
                f"{where}: weight_spread needs a number as weight and one of the rules {spread_rules}; use a distribution as weight"
            )
        if weight_spread < 0:
            raise ValueError(f"{where}: weight_spread = {weight_spread}: must be >= 0")
        options["weight_spread"] = weight_spread
        if not isinstance(delay_ms, Distribution):
            self._check_delays(where, np.array([_real(where, "delay_ms", delay_ms)]))
        options["delay_ms"] = _value_to_core(where, "delay_ms", delay_ms)
        options["synapse"] = synapse
        options["synapse_params"] = _synapse_params(where, synapse, synapse_params)
        if receptor:
            options["receptor"] = _receptor(where, receptor)
        if rule in ("random", "adjacent"):
            _check_indegree(
                where, rule, sources, targets, options["indegree"], options["indegree_spread"]
            )
        self._engine.connect_rule(
            rule, sources.first_gid, sources.size, targets.first_gid, targets.size, options
        )
        # summary["config"] of an API-built network: the rule as given (JSON-ready).
        record = {"rule": rule, "sources": [sources.first_gid, sources.size],
                  "targets": [targets.first_gid, targets.size], **options}  # fmt: skip
        if not record.get("synapse_params"):
            record.pop("synapse_params", None)
        self._rules.append(record)

    def record_spikes(self, cells) -> None:
        """Record the spikes of ``cells`` (a Population or an array of gids)."""
        self._require_open("record_spikes")
        for first, size in self._gid_runs("record_spikes", cells):
            self._engine.record(first, size)
            self._recorded.append([first, size])

    def record_state(
        self,
        cells,
        variable: str = "V_m",
        interval_ms: float | None = None,
        start_ms: float = 0.0,
    ) -> int:
        """Record a state variable of ``cells`` (a Population or gids) during the run.

        Parameters
        ----------
        cells : Population or array-like of int
        variable : str
            One of the model's ``state_variables`` (``spikex.models.MODELS``), e.g.
            ``"V_m"`` (mV), ``"I_syn_ex"``, ``"I_syn_in"`` (pA).
        interval_ms : float, optional
            Sampling interval, a whole number of steps (default: every step).
        start_ms : float
            Time of the first sample.

        Returns
        -------
        int
            Index of the recording in ``Result.states``. The value sampled at step n is
            the state after the update of step n (NEST's multimeter at (n + 1) * dt).
        """
        self._require_open("record_state")
        where = "record_state"
        runs = self._gid_runs(where, cells)
        interval_ms = (
            self.dt_ms if interval_ms is None else _real(where, "interval_ms", interval_ms)
        )
        steps = interval_ms / self.dt_ms
        if steps < 1 - DELAY_TOLERANCE or abs(steps - round(steps)) > 1e-6:
            raise ValueError(
                f"{where}: interval_ms = {interval_ms}: must be a whole multiple of dt_ms = {self.dt_ms}"
            )
        start_ms = _real(where, "start_ms", start_ms)
        if start_ms < 0:
            raise ValueError(f"{where}: start_ms = {start_ms}: must be >= 0")
        index = self._engine.record_state(
            variable, runs, int(round(steps)), math.floor(start_ms / self.dt_ms + 0.5)
        )
        self._state_recordings.append(
            {
                "variable": variable,
                "cells": [list(r) for r in runs],
                "interval_ms": interval_ms,
                "start_ms": start_ms,
            }
        )
        return int(index)

    def set_recording_start(self, start_ms: float) -> None:
        """Record spikes only from ``start_ms`` on (``simulation.presim_ms``): the time
        before is simulated but not recorded, and rates are taken over the time after it."""
        self._require_open("set_recording_start")
        start_ms = _real("set_recording_start", "start_ms", start_ms)
        if start_ms < 0:
            raise ValueError(f"set_recording_start: start_ms = {start_ms}: must be >= 0")
        self._record_from_ms = start_ms
        self._engine.set_record_from(math.floor(start_ms / self.dt_ms + 0.5))

    def record_timeline(self, enabled: bool = True) -> None:
        """Record per-interval timings and counts (``record.timeline``).

        Every later ``simulate`` result then has ``result.timeline`` (column ->
        ``(ranks, rows)`` array, see ``spikex.io.timeline``) and ``summary["timeline"]``.
        """
        self._timeline = bool(enabled)
        self._engine.record_timeline(self._timeline)

    # ---- inspection -------------------------------------------------------------------

    @property
    def rank(self) -> int:
        """This process's MPI rank."""
        return _core.comm_rank()

    @property
    def ranks(self) -> int:
        """Number of MPI ranks."""
        return _core.comm_size()

    @property
    def cells(self) -> int:
        """Number of cells created so far (all ranks)."""
        return self._cells_total

    def local_gids(self) -> np.ndarray:
        """Gids of the cells this rank owns (builds nothing; for ``connect(local=True)``)."""
        from .. import _core as core

        return np.asarray(
            core.local_gids(self.distribution, self._cells_total, self.seed), dtype=np.int64
        )

    def connections(self) -> dict[str, np.ndarray]:
        """Connections whose target is on this rank (builds the network if needed).

        Returns
        -------
        dict
            ``source`` (int64), ``target`` (int64), ``weight`` (float64, plastic ones as
            they are now), ``delay_ms`` (float64), ``synapse`` (int64, an index into
            ``synapse_types()``) and ``receptor`` (int64, the receptor port; 0: none)
            arrays of equal length.
        """
        self._build()
        return {name: np.asarray(values) for name, values in self._engine.connections().items()}

    def synapse_types(self) -> list[dict]:
        """The synapse types of the network's connections, in the order
        ``connections()["synapse"]`` indexes them: ``{"name", "params"}`` each; index 0 is
        ``static``. Connections of one type and parameter set share an index."""
        return [
            {"name": t["name"], "params": dict(t["params"])} for t in self._engine.synapse_types()
        ]

    # ---- simulation -------------------------------------------------------------------

    def simulate(
        self,
        t_ms: float,
        progress: ProgressCallback | None = None,
        *,
        on_stall: Callable[[float], None] | None = None,
        control: RunControl | None = None,
    ) -> Result:
        """Advance the simulation by ``t_ms`` (collective: every rank calls it).

        Parameters
        ----------
        t_ms : float
            Time to simulate in ms (>= 0). Calls add up: two calls of 100 ms end at the
            same step as one call of 200 ms, ``round(total / dt_ms)``.
        progress : callable, optional
            Called on every rank as ``progress(simulated_ms, until_ms)`` after each chunk
            of whole min-delay intervals (about 100 per call).
        on_stall : callable, optional
            On several ranks, called from a watchdog thread with the stall's length in
            seconds when this rank completes no exchange for ``stall_timeout_s``; it must
            end the process and must not call MPI [default: one line on stderr naming the
            rank and host, then exit status 3].
        control : spikex.api.run_control.RunControl, optional
            Periodic checkpoints and early stops (signals, a deadline); after an early
            stop ``control.stop_reason`` says why and the result covers the time so far.

        Returns
        -------
        Result
            Every spike recorded since the start and the summary, on every rank.
        """
        t_ms = _check("simulate", "t_ms", "simulation.tstop_ms", t_ms)
        return self.simulate_until(self._requested_ms + t_ms, progress, on_stall, control)

    def simulate_until(
        self,
        total_ms: float,
        progress: ProgressCallback | None = None,
        on_stall: Callable[[float], None] | None = None,
        control: RunControl | None = None,
    ) -> Result:
        """Simulate until ``total_ms`` since the start, as ``simulate`` (the same arguments)
        but to a time rather than for a time (PyNN's ``run_until``). ``spikex run`` runs to
        tstop_ms this way, so a resumed run ends at exactly the same step. A time already
        reached simulates nothing."""
        self._initialise()
        call_start = time.perf_counter()
        self._requested_ms = max(self._requested_ms, float(total_ms))
        target = math.floor(self._requested_ms / self.dt_ms + 0.5)
        run_start = time.perf_counter()
        with self._watchdog(on_stall):
            if control is None:
                for step in chunk_ends(self._engine.step, target, self._engine.steps_per_interval):
                    self._engine.run_until(step)
                    self._drain_spikes()
                    if progress is not None:
                        progress(step * self.dt_ms, target * self.dt_ms)
            else:
                with control:
                    self._run_controlled(target, progress, control)
        self._wall["simulate"] += time.perf_counter() - run_start
        return self._result(call_start)

    def _run_controlled(self, target: int, progress, control: RunControl) -> None:
        """Chunks of about CHUNK_WALL_S each; checkpoints every
        ``control.checkpoint_every_ms`` (in whole intervals) and at the end; a stop the
        ranks agree on ends the run after a checkpoint."""
        interval = max(1, int(self._engine.steps_per_interval))
        step = self._engine.step
        cap = max(interval, (target - step) // PROGRESS_CHUNKS // interval * interval)
        every = 0
        if control.checkpoint_every_ms > 0:
            every = math.ceil(control.checkpoint_every_ms / self.dt_ms - 1e-9)
            every = max(interval, -(-every // interval) * interval)
        chunk = interval
        while step < target:
            end = min(target, step + chunk)
            if every:
                end = min(end, (step // every + 1) * every)
            start = time.perf_counter()
            self._engine.run_until(end)
            seconds = time.perf_counter() - start
            self._drain_spikes()
            if progress is not None:
                progress(end * self.dt_ms, target * self.dt_ms)
            reason, chunk = control.agree(chunk_steps(end - step, seconds, interval, cap))
            step = end
            if reason is not None and step < target:  # a run that is done is not stopped
                control.stop_reason = reason
                if control.checkpoint is not None:
                    control.checkpoints_written.append(control.checkpoint(reason))
                return
            if every and control.checkpoint is not None and (step % every == 0 or step == target):
                control.checkpoints_written.append(control.checkpoint("interval"))

    def set(self, cells, **values) -> None:
        """Change parameters or state variables of ``cells`` (collective), before the
        first ``simulate`` or between two: NEST's ``SetStatus`` between ``Simulate``
        calls (docs/user/python_api.md, "Changes between runs").

        Parameters
        ----------
        cells : Population, array-like of int, or int
            The cells (gids) to change; they may span several populations.
        **values
            ``name=value`` per parameter or state variable of the cells' model: a number
            for every cell or one number per cell (in the order of ``cells``); a list
            parameter (``spike_times``, ``amplitude_times``, ...) as for ``create``.
            Between runs a recordable state variable (``V_m``, ``g_ex``, ``w``, ...) is
            set at once, a parameter applies from the next step on (a device's from what
            it emits next); the same changes at the same times give the same spikes on
            any layout, and a checkpoint taken after a change resumes with it.
        """
        from .changes import change

        self._changes += change(self, cells, values)

    def get(self, cells, variable: str) -> np.ndarray:
        """A recordable state variable of ``cells`` now (collective; NEST's ``GetStatus``):
        one value per cell, in the order of ``cells``, on every rank. Builds the network
        if it is not yet built."""
        from ..runtime.collective import float64_per_rank

        self._initialise()
        gids = self._gid_array(
            f"get({variable})",
            "cells",
            np.atleast_1d(cells) if not isinstance(cells, Population) else cells,
        )
        local = np.asarray(self._engine.read_state(variable, gids.tolist()), dtype=float)
        rows = float64_per_rank(local)
        return np.nanmax(rows, axis=0) if rows.shape[0] > 1 else rows[0]

    def save(self, path: str | Path, keep: int = 2) -> Path:
        """Write a checkpoint of the network's state now (collective, between simulate
        calls) into the directory ``path``; ``Network.load`` / ``restore`` go on from it
        on any ranks, threads, method and distribution with the same spikes
        (docs/user/checkpoint.md). Returns the checkpoint's directory."""
        from .checkpointing import save_network

        return save_network(self, path, keep=keep)

    def restore(self, path: str | Path) -> None:
        """Go on from a checkpoint of this same network (collective; before the first
        simulate): the script built the network again, this restores its state, time and
        recorded data. ``ValueError`` when the checkpoint does not match."""
        from .checkpointing import restore_network

        restore_network(self, path)

    @classmethod
    def load(
        cls, path: str | Path, overrides: list[str] | tuple[str, ...] | None = None
    ) -> Network:
        """The network of a checkpoint written by a configuration-built run (``spikex run``
        or ``Network.from_config``), rebuilt on this job's ranks and restored. `overrides`
        (``"key=value"``) may change only the layout and tstop_ms (threads, exchange,
        distribution, ...); any key that defines the network is refused, naming it."""
        from .checkpointing import load_network

        return load_network(cls, path, overrides)

    def stream_spikes(self, stream) -> None:
        """Send the recorded spikes to `stream` (rank 0; None on the others) chunk by chunk
        while simulating, instead of keeping them: memory stays bounded by one chunk.
        `stream` has ``append(steps, gids)`` (canonical order), ``population_rows`` and
        ``sha256()``, as ``spikex.io.spike_log.SpikeLog`` and ``spike_stream.SpikeStream``. ``Result.spikes`` is then empty; the summary
        counts and hashes every spike streamed (collective)."""
        self._spike_stream = stream
        self._streaming = True

    def _drain_spikes(self) -> None:
        """Hand the spikes of the last chunk to the stream (every rank calls it)."""
        if not self._streaming:
            return
        local_steps, local_gids = self._engine.take_local_spikes()
        steps, gids = gather_spikes(local_steps, local_gids, in_run=True)
        if self._spike_stream is not None:
            order = canonical_order(steps, gids)
            self._spike_stream.append(steps[order], gids[order])

    # ---- internals --------------------------------------------------------------------

    def _watchdog(self, on_stall: Callable[[float], None] | None):
        """The stall watchdog around a run on several ranks (one rank waits for no one)."""
        if _core.comm_size() == 1:
            return contextlib.nullcontext()
        return StallWatchdog(self.stall_timeout_s, on_stall or end_stalled_rank)

    def _run_build_hooks(self) -> None:
        hooks, self._build_hooks = self._build_hooks, []
        for hook in hooks:
            hook()

    def _build(self) -> None:
        if self._state != "open":
            return
        start = time.perf_counter()
        self._run_build_hooks()  # reading SONATA edges counts as building
        if self._cells_total == 0:
            raise ValueError("the network has no cells: call create() before simulate()")
        # Before anything of the network's size is allocated or drawn.
        check_fits(self._rules, _core.comm_size(), _core, cells=self._cells_by_model())
        if not self._threads_given:
            self._choose_threads()
        self._engine.build()
        self._wall["build"] = time.perf_counter() - start
        self._wall["total"] += self._wall["build"]
        self._state = "built"

    def build(self) -> None:
        """Build the network now (collective): cells, connections and the exchange's
        set-up, as the first ``simulate`` would. After it nothing can be added; a network
        that cannot be built (too large for memory, a bad parameter) raises here."""
        self._initialise()

    def dry_run_partition(self, ranks: int, sampled=()):
        """The network partitioned for ``ranks`` virtual ranks without simulating or MPI
        (``spikex model dryrun``): a ``_core.DryRunPartition`` holding the ranks listed in
        ``sampled`` (all when empty)."""
        if self._state == "open":
            self._run_build_hooks()
        return _core.DryRunPartition(self._engine, ranks, list(sampled))

    def _choose_threads(self) -> None:
        """``threads`` not given: spikex's rule (auto_threads) on this rank's share of
        the network's cells (devices excepted) and synapses; the same on every rank."""
        size = _core.comm_size()
        cells = sum(n for model, n in self._cells_by_model().items() if MODELS[model]["kind"] == "neuron")
        synapses = sum(expected_connections(rule) for rule in self._rules)
        synapses += self._explicit_connections
        chosen = auto_threads(cells / size, synapses / size, ranks_on_this_host(size))
        # Ranks of one job may see different hosts: the smallest choice holds everywhere.
        chosen = int(int64_per_rank([chosen]).min())
        self.threads = chosen
        self._engine.set_threads(chosen)

    def _cells_by_model(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for population in self.populations:
            counts[population.model] = counts.get(population.model, 0) + population.size
        return counts

    def _initialise(self) -> None:
        self._build()
        if self._state != "built":
            return
        start = time.perf_counter()
        self._engine.init()
        self._wall["init"] = time.perf_counter() - start
        self._wall["total"] += self._wall["init"]
        self._state = "initialised"

    def _result(self, call_start: float) -> Result:
        local_steps, local_gids = self._engine.local_spikes()
        steps, gids = gather_spikes(local_steps, local_gids)
        order = canonical_order(steps, gids)
        steps, gids = steps[order], gids[order]
        sha256 = spikes_sha256(steps, gids)
        counts = None
        populations = self.output_populations()
        if self._streaming:
            sha256, counts = _streamed_totals(self._spike_stream, populations)
        # "total" covers the whole call, gathering included; the summary's own
        # reductions are the only thing left out.
        self._wall["total"] += time.perf_counter() - call_start
        recorded_ms = max(0.0, self._engine.step * self.dt_ms - self._record_from_ms)
        summary = build_summary(
            self._engine,
            version=__version__,
            config=self.config if self.config is not None else self._description(),
            method=self.method,
            spike_count=steps.size if counts is None else sum(counts.values()),
            spikes_sha256=sha256,
            wall_seconds=self._wall,
            dt_ms=self.dt_ms,
        )
        summary["populations"] = population_summary(
            populations, self._recorded, gids, recorded_ms, counts
        )
        if self.sonata is not None and counts is None:
            summary["populations"] = self.sonata.grouped_summary(
                summary["populations"], gids, recorded_ms
            )
        if self._segments:
            summary["segments"] = self._segments
        timeline = None
        if self._timeline:
            timeline = gather_timeline(self._engine)
            summary["timeline"] = timeline_summary(timeline)
        states = gather_states(self._engine, self._state_recordings, self.dt_ms)
        return Result(
            spikes=(gids, steps * self.dt_ms),
            spike_steps=steps,
            summary=summary,
            timeline=timeline,
            states=states,
            populations=populations,
        )

    def output_populations(self) -> list[Population]:
        """The populations as ``spikes.h5`` and ``summary.json`` report them: the created
        ones, except that those inside a group (a SONATA population of several models,
        created as one population per model) are reported as that group, under its name."""
        if not self._population_groups:
            return list(self.populations)
        out, seen = [], set()
        for pop in self.populations:
            group = next(
                (g for g in self._population_groups
                 if g.first_gid <= pop.first_gid and pop.stop_gid <= g.stop_gid),
                None,
            )  # fmt: skip
            if group is None:
                out.append(pop)
            elif group.name not in seen:
                seen.add(group.name)
                out.append(group)
        return out

    def _description(self) -> dict:
        """What ``summary["config"]`` holds for a network built through the API."""
        return {
            "source": "python_api",
            "simulation": {"dt_ms": self.dt_ms, "seed": self.seed, "threads": self.threads},
            "distribution": {"scheme": self.distribution},
            "exchange": {"method": self.method, **self.exchange_options},
            "connections": {
                "sort_by_source": self.sort_by_source,
                "keep_sources": self.keep_sources,
            },
            "populations": [
                {"name": pop.name, "model": pop.model, "first_gid": pop.first_gid, "size": pop.size}
                for pop in self.populations
            ],
            "connect_rules": self._rules,
            "explicit_connections": self._explicit_connections,
            "recorded": self._recorded,
            "record_from_ms": self._record_from_ms,
            "state_recordings": self._state_recordings,
        }

    def _require_open(self, what: str) -> None:
        if self._state != "open":
            raise RuntimeError(
                f"{what}: the network is already built (by simulate() or connections()); "
                "create, connect and record everything before that"
            )

    def _gid_runs(self, where: str, cells) -> list[tuple[int, int]]:
        """``cells`` (a Population or gids) as sorted runs (first gid, count) of distinct
        gids; a Population is its own run, without an array of its gids (a network of
        10^8 cells is checked against memory before anything of that size exists)."""
        if isinstance(cells, Population):
            self._gid_array(where, "cells", np.array([cells.first_gid, cells.stop_gid - 1]))
            return [(cells.first_gid, cells.size)]
        return list(_contiguous_runs(np.unique(self._gid_array(where, "cells", cells))))

    def _gid_array(self, where: str, name: str, values) -> np.ndarray:
        if isinstance(values, Population):
            gids = values.gids
        else:
            gids = _integer_array(where, name, values)
        outside = gids[(gids < 0) | (gids >= self._cells_total)]
        if outside.size:
            raise ValueError(
                f"{where}: {name} contains gid {int(outside[0])}, outside "
                f"0..{self._cells_total - 1} (the network has {self._cells_total} cells)"
            )
        return gids

    def _population_name(self, where: str, model: str, name: str | None) -> str:
        taken = {pop.name for pop in self.populations + self._population_groups}
        if name is None:
            count = sum(1 for pop in self.populations if pop.model == model)
            name = model if count == 0 else f"{model}_{count + 1}"
            while name in taken:
                count += 1
                name = f"{model}_{count + 1}"
            return name
        if not isinstance(name, str) or not name or "/" in name:
            raise ValueError(
                f"{where}: name = {format_value(name)}: must be a non-empty string without '/'"
            )
        if name in taken:
            raise ValueError(
                f"{where}: name = {format_value(name)}: a population of that name exists already"
            )
        return name

    def _check_population(self, where: str, name: str, population) -> None:
        if not isinstance(population, Population):
            raise ValueError(  # noqa: TRY004 - the API reports every bad parameter as ValueError
                f"{where}: {name} must be a Population (a contiguous gid range), "
                f"not {type(population).__name__}"
            )
        if population.size < 1 or population.stop_gid > self._cells_total:
            raise ValueError(f"{where}: {name} = {population} is not a population of this network")

    def _check_delays(self, where: str, delays_ms: np.ndarray) -> None:
        if delays_ms.size and delays_ms.min() < self.dt_ms * (1.0 - DELAY_TOLERANCE):
            raise ValueError(
                f"{where}: delay_ms = {float(delays_ms.min())}: delay shorter than dt; "
                f"must be >= dt_ms = {self.dt_ms}"
            )


# ---- validation helpers ---------------------------------------------------------------


def _check(where: str, name: str, key_path: str, value: object) -> object:
    """Check ``value`` against the registry key that documents it; ValueError if bad."""
    if isinstance(value, np.generic):
        value = value.item()
    key = KEYS[key_path]
    try:
        return key.check(value)
    except ValueError:
        raise ValueError(f"{where}: {name} = {format_value(value)}: {key.allowed_text()}") from None


def _exchange_options(options: dict[str, object]) -> dict[str, object]:
    unknown = sorted(set(options) - set(EXCHANGE_OPTIONS))
    if unknown:
        raise ValueError(
            f"Network: unknown exchange option {unknown[0]!r}; allowed: "
            + ", ".join(EXCHANGE_OPTIONS)
        )
    resolved = {}
    for name in EXCHANGE_OPTIONS:
        key = KEYS[f"exchange.{name}"]
        resolved[name] = _check("Network", name, key.path, options.get(name, key.default))
    return resolved


def _model_params(where: str, model: str, params: dict) -> dict[str, float]:
    known = MODEL_PARAMETERS[model]
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise ValueError(f"{where}: unknown parameter {unknown[0]!r}; allowed: " + ", ".join(known))
    values = {
        name: _check(where, f"params[{name!r}]", path, params.get(name, KEYS[path].default))
        for name, path in known.items()
    }
    if model == "interval_fire" and values["invl_high_ms"] < values["invl_low_ms"]:
        raise ValueError(
            f"{where}: params['invl_high_ms'] = {values['invl_high_ms']}: must be >= "
            f"params['invl_low_ms'] = {values['invl_low_ms']}"
        )
    return {name: float(value) for name, value in values.items()}


def _flags_as_numbers(model: str, params: dict) -> dict:
    """``True``/``False`` of a flag parameter (allowed: 0 or 1; glif_psc's
    ``after_spike_currents``, ...) as 1.0/0.0, as NEST's booleans."""
    specs = MODELS[model]["parameter_specs"]
    flags = {s["name"] for s in specs if sorted(s["range"]["choices"]) == [0.0, 1.0]}

    def as_number(value):
        if isinstance(value, (bool, np.bool_)):
            return float(value)
        if isinstance(value, (list, tuple, np.ndarray)):  # one per cell
            return [float(v) if isinstance(v, (bool, np.bool_)) else v for v in value]
        return value

    return {key: as_number(value) if key in flags else value for key, value in params.items()}


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


def _real(where: str, name: str, value: object) -> float:
    if not _is_number(value) or not math.isfinite(float(value)):
        raise ValueError(f"{where}: {name} = {format_value(value)}: must be a finite number")
    return float(value)


def _count(where: str, name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{where}: {name} = {format_value(value)}: must be an integer >= 0")
    return int(value)


def _value_to_core(where: str, name: str, value: object) -> object:
    """A number or a Distribution, as the core takes it."""
    if isinstance(value, Distribution):
        return value.to_core()
    return _real(where, name, value)


def _parameter_to_core(where: str, name: str, value: object, n: int) -> object:
    """A per-cell parameter: number, Distribution or array of ``n`` numbers."""
    if isinstance(value, Distribution):
        return value.to_core()
    if _is_number(value):
        return _real(where, f"params[{name!r}]", value)
    array = _float_array(where, f"params[{name!r}]", value)
    if array.size != n:
        raise ValueError(
            f"{where}: params[{name!r}] has {array.size} values for {n} cells: give one per cell, "
            "a number or a distribution"
        )
    return np.ascontiguousarray(array)


def _receptor(where: str, receptor) -> int:
    """A receptor port number (whether the target model has it, the core checks)."""
    if (
        isinstance(receptor, bool)
        or not isinstance(receptor, (int, np.integer))
        or not 0 <= receptor <= 0x7FFF
    ):
        raise ValueError(
            f"{where}: receptor = {format_value(receptor)}: must be a whole number in [0, 32767] (a receptor port; 0: none)"
        )
    return int(receptor)


def _synapse_params(where: str, synapse: str, params: dict | None) -> dict[str, float]:
    """Checked parameters of a synapse type (the core checks the values)."""
    if synapse not in SYNAPSES:
        allowed = ", ".join(format_value(name) for name in SYNAPSES)
        raise ValueError(f"{where}: synapse = {format_value(synapse)}: must be one of {allowed}")
    params = dict(params or {})
    known = SYNAPSES[synapse]
    unknown = sorted(set(params) - set(known))
    if unknown:
        allowed = ", ".join(known) if known else "none"
        raise ValueError(
            f"{where}: synapse_params[{unknown[0]!r}] is unknown for {format_value(synapse)}; "
            f"allowed: {allowed}"
        )
    for name, value in params.items():
        if isinstance(value, Distribution) or np.ndim(value) != 0 or isinstance(value, (bool, str)):
            shown = "a distribution" if isinstance(value, Distribution) else format_value(value)
            raise ValueError(
                f"{where}: synapse_params[{name!r}] = {shown}: must be one number; a synapse type's "
                f"parameters hold for every connection of the call (connections of one source and "
                f"delay share their plastic state), not per connection"
            )
    return {name: float(params.get(name, default)) for name, default in known.items()}


def _check_indegree(where, rule, sources, targets, indegree, spread) -> None:
    overlap = sources.first_gid < targets.stop_gid and targets.first_gid < sources.stop_gid
    available = sources.size - (1 if overlap else 0)  # a cell never connects to itself
    if rule == "fixed_indegree":
        if indegree > 0 and available < 1:
            raise ValueError(f"{where}: sources has no cell other than the target itself")
        return
    if rule == "random" and spread // 2 > indegree:
        raise ValueError(
            f"{where}: indegree_spread = {spread}: must be <= 2 * indegree = {2 * indegree}"
        )
    needed = indegree + (spread // 2 if rule == "random" else 0)
    if needed > available:
        raise ValueError(
            f"{where}: indegree = {indegree}: needs up to {needed} distinct sources but only "
            f"{available} are available (sources has {sources.size} cells)"
        )


def _integer_array(where: str, name: str, values) -> np.ndarray:
    array = np.atleast_1d(np.asarray(values))
    if array.size == 0:
        return np.zeros(0, dtype=np.int64)
    if array.dtype == bool or not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"{where}: {name} must be integer gids, got dtype {array.dtype}")
    if array.ndim != 1:
        raise ValueError(f"{where}: {name} must be one-dimensional, got shape {array.shape}")
    return array.astype(np.int64, copy=False)  # connect hands it on at once: no copy needed


def _broadcast(where: str, columns: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Repeat length-1 columns to the common length; all others must agree."""
    lengths = {array.size for array in columns.values()} - {1}
    if len(lengths) > 1:
        sizes = ", ".join(f"{name} has {array.size}" for name, array in columns.items())
        raise ValueError(
            f"{where}: {sizes} elements: give arrays of one common length (or scalars)"
        )
    length = lengths.pop() if lengths else 1
    return {
        name: np.ascontiguousarray(np.broadcast_to(array, (length,)))
        for name, array in columns.items()
    }


def _streamed_totals(stream, populations) -> tuple[str, dict[str, int]]:
    """Rank 0's stream's hash and spikes per population, on every rank."""
    text = ""
    if stream is not None:
        text = json.dumps({"sha256": stream.sha256(), "counts": stream.population_rows})
    content = json.loads(broadcast_text(text))
    return content["sha256"], {name: int(n) for name, n in content["counts"].items()}


def _contiguous_runs(sorted_gids: np.ndarray) -> list[tuple[int, int]]:
    """(first, size) of each run of consecutive gids in a sorted unique array."""
    if sorted_gids.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(sorted_gids) != 1) + 1
    return [(int(run[0]), int(run.size)) for run in np.split(sorted_gids, breaks)]


def chunk_ends(current: int, target: int, steps_per_interval: int) -> list[int]:
    """Steps to run to: whole multiples of the chunk size, then exactly ``target``.

    The chunk is a whole number of min-delay intervals, about 1/PROGRESS_CHUNKS of the
    call, so progress can be reported between chunks.
    """
    if target <= current:
        return []
    interval = max(int(steps_per_interval), 1)
    chunk = interval * max(1, -(-(target - current) // (interval * PROGRESS_CHUNKS)))
    ends = list(range((current // chunk + 1) * chunk, target, chunk))
    return [*ends, target]


# The model list of create()'s docstring, from the registry.
if Network.create.__doc__:
    Network.create.__doc__ = Network.create.__doc__.replace(
        "MODEL_NAMES", ", ".join(f"``{name!r}``" for name in MODELS).replace("'", '"')
    )
