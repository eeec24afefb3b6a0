"""Projection: PyNN's connectors draw the connections that end on this rank's cells
(``_convergent_connect`` is called for local targets only), and spikex receives exactly
those (``connect(..., local=True)``): nothing of the size of all connections is
replicated. Weights and delays are kept in native units (pA, or mV for IF_curr_delta;
ms) and given back in PyNN's.

An STDPMechanism projection becomes spikex ``stdp_synapse`` connections with one
parameter set (the rule's parameters must be the same for every connection); its
``tau_minus`` is set on the postsynaptic cells at build (populations.py). After a run,
``get("weight")`` reads the plastic weights as they are now from the network.

A connector drawing from a ``NativeRNG`` becomes a spikex rule (native_rules.py): the
network draws the connections when it is built, and the projection reads its local
connections back from it when asked (``len``, ``get``, ``set``, ``save``). Setting
weights or delays then turns them into explicit arrays (the same connections).
"""

from __future__ import annotations

import warnings
from collections import Counter

import numpy as np
from pyNN import common, connectors, errors
from pyNN.space import Space

import spikex as sx
from spikex import _core
from spikex.models import SYNAPSES
from spikex.runtime.collective import gather_int64

from . import simulator
from .native_rules import defaulted_rng, native_rule, native_value, negated
from .standardmodels import (
    STDP_RULE_PARAMETERS,
    MultiQuantalSynapse,
    SimpleStochasticSynapse,
    StaticSynapse,
    STDPMechanism,
    StochasticTsodyksMarkramSynapse,
    TsodyksMarkramSynapse,
)

STOCHASTIC = (SimpleStochasticSynapse, MultiQuantalSynapse, StochasticTsodyksMarkramSynapse)
SUPPORTED = (StaticSynapse, STDPMechanism, TsodyksMarkramSynapse, *STOCHASTIC)


class Connection(common.Connection):
    """One local connection, as PyNN's ``Projection.__getitem__`` hands it out."""

    def __init__(self, projection, i):
        self.projection, self.i = projection, i
        self.presynaptic_index = int(projection._pre_index[i])
        self.postsynaptic_index = int(projection._post_index[i])

    def _get_weight(self):
        return float(self.projection._current_weights()[self.i] / self.projection._weight_factor)

    def _get_delay(self):
        return float(self.projection._delays[self.i])

    def _set_weight(self, value):
        projection = self.projection
        projection._own_connections()
        weights = np.array(projection._weights, dtype=float)
        weights[self.i] = float(value) * projection._weight_factor
        projection._weights = weights

    def _set_delay(self, value):
        projection = self.projection
        projection._own_connections()
        delays = np.array(projection._delays, dtype=float)
        delays[self.i] = _simulated(np.asarray([float(value)]))[0]
        projection._delays = delays

    weight = property(_get_weight, _set_weight)
    delay = property(_get_delay, _set_delay)

    def as_tuple(self, *names):
        return tuple(getattr(self, name) for name in names)


def _receptor_ports(post, receptor_type) -> np.ndarray:
    """The spikex receptor port of each cell of `post` (its all_cells order) for PyNN's
    `receptor_type`: 0 for the standard cell types (the weight's sign chooses the input), a
    PointNeuron's port of that response otherwise."""
    parts = post.populations if hasattr(post, "populations") else [post]
    ports = []
    for part in parts:
        celltype = part.celltype
        port = celltype.get_receptor_type(receptor_type) if getattr(celltype, "has_receptor_ports", False) else 0
        ports.append(np.full(part.size, port, dtype=np.int64))
    return np.concatenate(ports)


class Projection(common.Projection):
    __doc__ = common.Projection.__doc__
    _simulator = simulator
    _static_synapse_class = StaticSynapse

    def __init__(self, presynaptic_population, postsynaptic_population, connector, synapse_type=None,
                 source=None, receptor_type=None, space=Space(), label=None):  # fmt: skip
        common.Projection.__init__(self, presynaptic_population, postsynaptic_population, connector,
                                   synapse_type, source, receptor_type, space, label)  # fmt: skip
        if not isinstance(self.synapse_type, SUPPORTED):
            raise NotImplementedError(
                f"spikex.pynn: synapse type {type(self.synapse_type).__name__} is not supported yet "
                f"(supported: {', '.join(t.__name__ for t in SUPPORTED)}; docs/user/pynn.md)"
            )
        if source is not None:
            raise NotImplementedError("spikex.pynn: Projection(source=...) is not supported")
        simulator.state.changed("creating a Projection")
        post_type = (
            self.post.celltype
            if hasattr(self.post, "celltype")
            else self.post.populations[0].celltype
        )
        # Connectors hand over translated weights (x 1000: nA -> pA); IF_curr_delta's are
        # mV, so its weight_scale undoes that (the units only: PyNN's sign checks see
        # weights scaled by it, never by the sign below).
        self._weight_scale = getattr(post_type, "weight_scale", 1.0)
        self._ports = _receptor_ports(self.post, self.receptor_type)
        # PyNN's conductance weights are positive; spikex's conductance models take the
        # inhibitory ones negative (NEST's convention, as pyNN.nest does). The sign is
        # applied only where spikex's weights are made from PyNN's (_native_weight_scale).
        self._weight_sign = (
            -1.0
            if getattr(post_type, "conductance_based", False)
            and self.receptor_type == "inhibitory"
            and not getattr(post_type, "has_receptor_ports", False)
            else 1.0
        )
        # translated PyNN weight x _native_weight_scale = spikex weight;
        # PyNN weight x _weight_factor = spikex weight
        self._native_weight_scale = self._weight_sign * self._weight_scale
        self._weight_factor = 1000.0 * self._native_weight_scale
        self._synapse, self._synapse_params, self._rule_native, self.tau_minus = (
            "static",
            {},
            {},
            None,
        )
        if isinstance(self.synapse_type, STDPMechanism):
            self._take_stdp_rule()
        elif isinstance(self.synapse_type, TsodyksMarkramSynapse):
            self._take_tsodyks_rule()
        elif isinstance(self.synapse_type, STOCHASTIC):
            self._synapse = self.synapse_type.spikex_synapse
            self._synapse_params = self._homogeneous_parameters(varying_allowed=True)
        # Parameters of a stochastic type given per connection: name -> values of the
        # connections (as the store), one synapse type per distinct set at connect.
        self._varying = {name: np.zeros(0) for name in getattr(self, "_varying_names", ())}
        self._store = {
            "pre": np.zeros(0, dtype=np.int64), "post": np.zeros(0, dtype=np.int64),
            "weight": np.zeros(0), "delay": np.zeros(0),
        }  # fmt: skip
        self._parts: list[tuple] = []
        self._rule = self._native_rule(connector)
        if self._rule is None:
            if (
                isinstance(connector, connectors.FixedTotalNumberConnector)
                and simulator.state.num_processes > 1
            ):
                warnings.warn(
                    "spikex.pynn: PyNN's FixedTotalNumberConnector is not parallel-safe: with a NumpyRNG its "
                    "connections depend on the number of ranks and it leaves the RNG in a different state on "
                    "each rank; give it rng=sim.NativeRNG() for the same network on any number of ranks",
                    stacklevel=2,
                )
            connector.connect(self)
            self._gather_parts()
            self._check_plastic_weights()
        simulator.state.projections.append(self)

    def _check_plastic_weights(self) -> None:
        """STDP weights must lie between 0 and w_max (spikex's stdp_synapse, as NEST's
        weight-dependence rules assume): refused here, by PyNN's exception, not at run."""
        if "Wmax" not in self._synapse_params or len(self._store["weight"]) == 0:
            return
        bound = self._synapse_params["Wmax"]
        low, high = sorted((0.0, bound))
        weights = self._store["weight"]
        if weights.min() < low or weights.max() > high:
            factor = self._weight_factor
            given = weights / factor  # PyNN's weights
            raise errors.InvalidWeightError(
                f"spikex.pynn: STDP weights must lie between 0 and w_max = {abs(bound / factor):g}"
                f"{' (negative on inhibitory current receptors)' if bound / factor < 0 else ''}; "
                f"got weights from {given.min():g} to {given.max():g}"
            )

    def _native_rule(self, connector):
        """The spikex rule for a NativeRNG connector (or one given no rng, when spikex can
        draw it), with its weight and delay; None: PyNN's connector runs."""
        try:
            rule = native_rule(connector)
            if rule is None:
                return None
            if self._varying:
                raise NotImplementedError(
                    f"spikex.pynn: {type(self.synapse_type).__name__} parameters per connection "
                    f"({', '.join(self._varying)}) with a NativeRNG connector; give it a NumpyRNG"
                )
            if defaulted_rng(connector) and any(
                other._rule is not None for other in self._rivals()
            ):
                return None  # its connections could not be told from that projection's
            native = self.synapse_type.native_parameters
            weight = native_value("weight", native["weight"], self._weight_scale)
            self._rule_delay = native_value("delay", native["delay"], 1.0)
            self._rule_populations()  # checks that pre and post are gid ranges
            check = getattr(self.synapse_type, "parameter_checks", {}).get("weight")
            if check is not None and isinstance(weight, float):
                check(np.array([weight]), self)  # PyNN's sign rule on PyNN's weight
            self._rule_weight = weight if self._weight_sign > 0 else negated("weight", weight)
        except NotImplementedError:
            if defaulted_rng(connector):
                return None  # PyNN's implementation with PyNN's default NumpyRNG
            raise
        self._read_generation = None  # the description generation the store was read in
        return rule

    # This rank's connections (indices into pre and post, native weights, delays in ms);
    # for a rule projection read from the built network on first use.
    def _stored(name):
        def get(self):
            self._read_rule_connections()
            return self._store[name]

        def put(self, value):
            self._store[name] = value

        return property(get, put)

    _pre_index = _stored("pre")
    _post_index = _stored("post")
    _weights = _stored("weight")
    _delays = _stored("delay")
    del _stored

    def _rule_populations(self):
        """spikex Populations for connect_rule: pre and post as ranges of gids."""
        ranges = []
        for side, cells in (("presynaptic", self.pre), ("postsynaptic", self.post)):
            ids = np.asarray(cells.all_cells, dtype=np.int64)
            if ids.size == 0 or np.any(np.diff(ids) != 1):
                raise NotImplementedError(
                    f"spikex.pynn: a NativeRNG connector needs a {side} population whose cells have consecutive "
                    "ids (a Population, a slice of one, or an Assembly of consecutive ones); give it a NumpyRNG"
                )
            ranges.append(sx.Population(int(ids[0]), int(ids.size), "pynn"))
        return ranges

    def _rivals(self) -> list:
        """Other projections whose connections spikex cannot tell from this one's: the
        same synapse type and parameters, overlapping pre- and postsynaptic cells."""
        state = simulator.state
        pre_ids = np.asarray(self.pre.all_cells, dtype=np.int64)
        post_ids = np.asarray(self.post.all_cells, dtype=np.int64)
        return [
            other for other in state.projections
            if other is not self and other._synapse == self._synapse
            and other._synapse_params == self._synapse_params
            and np.intersect1d(pre_ids, np.asarray(other.pre.all_cells, dtype=np.int64)).size
            and np.intersect1d(post_ids, np.asarray(other.post.all_cells, dtype=np.int64)).size
        ]  # fmt: skip

    def _read_rule_connections(self) -> None:
        """The local connections a rule projection's network drew, read back once per
        description (the network is built for it if needed): the network's connections
        of this synapse type between these cells, less those of other projections given
        as arrays. Two rule projections there cannot be told apart (refused)."""
        state = simulator.state
        if self._rule is None or self._read_generation == state.generation:
            return
        rivals = self._rivals()
        if any(other._rule is not None for other in rivals):
            raise NotImplementedError(
                "spikex.pynn: the connections of two NativeRNG projections between the same cells with the "
                "same synapse type cannot be told apart; query the network (net.connections()) instead, or "
                "give one of them a NumpyRNG"
            )
        net = state.build()
        index = [k for k, t in enumerate(net.synapse_types())
                 if t["name"] == self._synapse and t["params"] == self._synapse_params]  # fmt: skip
        pre_ids = np.asarray(self.pre.all_cells, dtype=np.int64)
        post_ids = np.asarray(self.post.all_cells, dtype=np.int64)
        c = net.connections()
        rows = np.flatnonzero(
            np.isin(c["synapse"], index)
            & np.isin(c["source"], pre_ids)
            & np.isin(c["target"], post_ids)
        )
        steps = np.rint(c["delay_ms"] / state.dt).astype(np.int64)
        # Static weights stay as given, so they tell multapses apart; plastic ones move.
        plastic = self._synapse != "static"

        def key(source, target, step, weight):
            return (int(source), int(target), int(step)) + (() if plastic else (float(weight),))

        if rivals:
            taken = Counter()
            for other in rivals:
                store = other._store
                taken.update(
                    key(s, t, d, w)
                    for s, t, d, w in zip(
                        np.asarray(other.pre.all_cells, dtype=np.int64)[store["pre"]],
                        np.asarray(other.post.all_cells, dtype=np.int64)[store["post"]],
                        np.rint(store["delay"] / state.dt).astype(np.int64), store["weight"],
                    )
                )  # fmt: skip
            mine = []
            for r in rows:
                k = key(c["source"][r], c["target"][r], steps[r], c["weight"][r])
                if taken[k] > 0:
                    taken[k] -= 1
                else:
                    mine.append(r)
            rows = np.asarray(mine, dtype=np.int64)
        rows = rows[np.lexsort((steps[rows], c["source"][rows], c["target"][rows]))]
        self._store = {
            "pre": (c["source"][rows] - pre_ids[0]).astype(np.int64),
            "post": (c["target"][rows] - post_ids[0]).astype(np.int64),
            "weight": np.asarray(c["weight"][rows], dtype=float),
            "delay": np.asarray(c["delay_ms"][rows], dtype=float),
        }
        self._read_generation = state.generation

    def _take_tsodyks_rule(self) -> None:
        """The tsodyks_synapse parameters of this projection: U, tau_rec, tau_fac, and, as
        pyNN.nest sets it, tau_psc = the targets' tau_syn of this receptor."""
        native = self.synapse_type.native_parameters
        values = {}
        for name in ("U", "tau_rec", "tau_fac"):
            value = native[name]
            if not value.is_homogeneous:
                raise NotImplementedError(
                    f"spikex.pynn: TsodyksMarkramSynapse parameter {name} differs between connections: spikex's "
                    "tsodyks_synapse takes one value per projection"
                )
            value.shape = (1,)
            values[name] = float(value.evaluate(simplify=True))
        # tau_psc: the target's tau_syn of this receptor (pyNN.nest's rule), per target cell;
        # connections onto cells of different tau_syn go in one connect call per value.
        tau_name = "tau_syn_I" if self.receptor_type == "inhibitory" else "tau_syn_E"
        self._tau_psc = None
        if tau_name in self.post.celltype.get_parameter_names():
            self._tau_psc = np.asarray(self.post.get(tau_name, gather=True), dtype=float).reshape(-1)
            if np.unique(self._tau_psc).size == 1:
                values["tau_psc"] = float(self._tau_psc[0])
                self._tau_psc = None
        self._synapse, self._synapse_params = TsodyksMarkramSynapse.spikex_synapse, values

    def _homogeneous_parameters(self, varying_allowed=False) -> dict:
        """The native parameters of the synapse type but weight and delay: one value each
        per projection, as spikex's synapse types take them (else refused by name; or, when
        varying_allowed, noted in _varying_names and taken per connection)."""
        native, values = self.synapse_type.native_parameters, {}
        self._varying_names = []
        for name in native.keys():
            if name in ("weight", "delay"):
                continue
            if not native[name].is_homogeneous and varying_allowed:
                self._varying_names.append(name)
                continue
            if not native[name].is_homogeneous:
                raise NotImplementedError(
                    f"spikex.pynn: {type(self.synapse_type).__name__} parameter {name} differs between "
                    f"connections: spikex's {self.synapse_type.spikex_synapse} takes one value per projection"
                )
            native[name].shape = (1,)
            values[name] = float(native[name].evaluate(simplify=True))
        return values

    def _set_initial_value_array(self, variable, value):
        """Projection.initialize: an initial state of the synapse type (quantal_stp_synapse's
        a and u, as pyNN.nest sets them), one value per projection."""
        if variable in ("weight", "delay") or variable not in SYNAPSES.get(self._synapse, {}):
            raise errors.NonExistentParameterError(variable, self.synapse_type, ("weight", "delay"))
        values = np.unique(np.asarray(value.evaluate(simplify=True), dtype=float))
        if values.size != 1:
            raise NotImplementedError(
                f"spikex.pynn: initial {variable} per connection: spikex's {self._synapse} takes one value per "
                "projection"
            )
        simulator.state.changed("initializing a projection")
        self._synapse_params[variable] = float(values[0])

    def _take_stdp_rule(self) -> None:
        """The stdp_synapse parameter set of this projection, and its tau_minus."""
        native = self.synapse_type.native_parameters
        values = {}
        for name in (*STDP_RULE_PARAMETERS, "tau_minus"):
            value = native[name]
            if not value.is_homogeneous:
                raise NotImplementedError(
                    f"spikex.pynn: STDP parameter {name} (native name) differs between connections: spikex's "
                    "stdp_synapse takes one value per projection"
                )
            value.shape = (1,)
            values[name] = float(value.evaluate(simplify=True))
        self.tau_minus = values.pop("tau_minus")
        self._rule_native = dict(values)  # as the connectors hand them over, for checking
        # Wmax in the weights' units; inhibitory current synapses have negative weights
        # (PyNN's rule), so their bound is -w_max: |w| stays within [0, w_max].
        values["Wmax"] = abs(values["Wmax"] * self._weight_scale)
        if self.receptor_type == "inhibitory":
            values["Wmax"] = -values["Wmax"]
        self._synapse, self._synapse_params = STDPMechanism.spikex_synapse, values
        targets = {int(i) for i in self.post.all_cells}
        for other in simulator.state.projections:
            if other.tau_minus is not None and other.tau_minus != self.tau_minus:
                if targets & {int(i) for i in other.post.all_cells}:
                    raise errors.InvalidParameterValueError(
                        f"spikex.pynn: STDP tau_minus = {self.tau_minus} ms, but cells of this projection's "
                        f"postsynaptic population already have tau_minus = {other.tau_minus} ms from another "
                        "projection: a neuron has one tau_minus"
                    )

    def __len__(self):
        return int(self._pre_index.size)

    def __getitem__(self, i):
        return Connection(self, i)

    @property
    def connections(self):
        return [Connection(self, i) for i in range(len(self))]

    def _convergent_connect(self, presynaptic_indices, postsynaptic_index, location_selector=None,
                            **connection_parameters):  # fmt: skip
        if location_selector is not None:
            raise NotImplementedError("spikex.pynn: multicompartment locations are not supported")
        pre = np.asarray(presynaptic_indices, dtype=np.int64).reshape(-1)
        n = pre.size
        weight = np.broadcast_to(
            np.asarray(connection_parameters.get("weight", 0.0), dtype=float), (n,)
        )
        delay = connection_parameters.get("delay")
        if delay is None:
            delay = simulator.state.min_delay
        delay = np.broadcast_to(np.asarray(delay, dtype=float), (n,))
        for name, expected in self._rule_native.items():
            given = connection_parameters.get(name)
            if given is not None and np.any(np.asarray(given, dtype=float) != expected):
                raise NotImplementedError(
                    f"spikex.pynn: STDP parameter {name} differs between connections (the connector gives "
                    "per-connection values): spikex's stdp_synapse takes one value per projection"
                )
        post = int(postsynaptic_index)  # an index into self.post
        varying = [
            np.broadcast_to(np.asarray(connection_parameters[name], dtype=float), (n,))
            for name in self._varying
        ]
        weight = weight * self._native_weight_scale
        self._parts.append((pre, np.full(n, post, dtype=np.int64), weight, delay, *varying))

    def _gather_parts(self):
        if not self._parts:
            return
        pre, post, weight, delay, *varying = (np.concatenate(column) for column in zip(*self._parts))
        self._parts = []
        for name, values in zip(self._varying, varying):
            self._varying[name] = np.concatenate([self._varying[name], values])
        self._pre_index = np.concatenate([self._pre_index, pre])
        self._post_index = np.concatenate([self._post_index, post])
        self._weights = np.concatenate([self._weights, weight])
        self._delays = np.concatenate([self._delays, _simulated(delay)])

    def _own_connections(self) -> None:
        """The connections as this projection's arrays from now on, about to change."""
        self._read_rule_connections()
        self._rule = None
        simulator.state.changed("changing weights or delays")

    def _set_attributes(self, parameter_space):
        self._own_connections()
        parameter_space.evaluate(mask=(slice(None), self.post._mask_local))
        for name, value in parameter_space.items():
            # value: (pre.size, local post) array of native values
            matrix = np.asarray(value, dtype=float)
            local_post = np.arange(self.post.size)[self.post._mask_local]
            column = np.searchsorted(local_post, self._post_index)
            new = (
                matrix[self._pre_index, column]
                if matrix.ndim == 2
                else np.broadcast_to(matrix, self._pre_index.shape)
            )
            if name == "weight":
                self._weights = np.array(new * self._native_weight_scale, dtype=float)
            elif name == "delay":
                self._delays = _simulated(new)
            elif name in self._varying:  # a stochastic type's parameter given per connection
                self._varying[name] = np.array(new, dtype=float)
            elif name in self._synapse_params:  # a parameter of the synapse type
                values = np.unique(np.asarray(new, dtype=float))
                if values.size > 1:
                    raise NotImplementedError(
                        f"spikex.pynn: {type(self.synapse_type).__name__} parameter {name} per connection: spikex's "
                        f"{self._synapse} takes one value per projection"
                    )
                self._synapse_params[name] = float(values[0])
            else:
                raise errors.NonExistentParameterError(name, self.synapse_type, ("weight", "delay"))

    def _column(self, name: str) -> np.ndarray:
        """One native attribute per local connection: weight, delay, or a parameter of
        the synapse type (one value per projection, as spikex's synapse types take it)."""
        if name == "weight":
            return self._current_weights() / self._weight_factor
        if name == "delay":
            return np.asarray(self._delays, dtype=float)
        if name in self._synapse_params:
            return np.full(len(self._pre_index), float(self._synapse_params[name]))
        if name in self._varying:
            return self._varying[name]
        native = self.synapse_type.native_parameters
        if name in native.keys():
            native.shape = (1,)
            value = np.asarray(native[name].evaluate(simplify=True), dtype=float).ravel()[0]
            return np.full(len(self._pre_index), value)
        raise errors.NonExistentParameterError(name, self.synapse_type, ("weight", "delay"))

    def _get_attributes_as_list(self, names):
        columns = []
        for name in names:
            if name == "presynaptic_index":
                columns.append(self._pre_index)
            elif name == "postsynaptic_index":
                columns.append(self._post_index)
            else:
                columns.append(self._column(name))
        return [tuple(row) for row in zip(*(c.tolist() for c in columns))]

    def _get_attributes_as_arrays(self, names, multiple_synapses="sum"):
        combine = common.Projection.MULTI_SYNAPSE_OPERATIONS[multiple_synapses]
        result = []
        for name in names:
            name = name.removesuffix("s") if name in ("weights", "delays") else name
            values = self._column(name)
            matrix = np.full((self.pre.size, self.post.size), np.nan)
            for i, j, v in zip(
                self._pre_index.tolist(), self._post_index.tolist(), values.tolist()
            ):
                matrix[i, j] = v if np.isnan(matrix[i, j]) else combine(matrix[i, j], v)
            result.append(matrix)
        return result

    def _connect_in(self, net) -> None:
        """Hand this rank's connections to spikex (targets are local by construction), or
        this projection's rule."""
        if self._rule is not None:
            if getattr(self, "_tau_psc", None) is not None:
                raise NotImplementedError(
                    "spikex.pynn: a TsodyksMarkramSynapse drawn by spikex's rule onto cells of different tau_syn; "
                    "give the connector a NumpyRNG"
                )
            rule, arguments = self._rule
            pre, post = self._rule_populations()
            ports = np.unique(self._ports)
            if len(ports) > 1:
                raise NotImplementedError(
                    "spikex.pynn: a connector drawn by spikex's rule onto cells of different receptor ports; "
                    "give the connector a NumpyRNG"
                )
            net.connect_rule(rule, pre, post, weight=self._rule_weight, delay_ms=self._rule_delay,
                             synapse=self._synapse, synapse_params=self._synapse_params,
                             receptor=int(ports[0]), **arguments)  # fmt: skip
            return
        if len(self._store["pre"]) == 0:
            return
        sources = np.asarray(self.pre.all_cells, dtype=np.int64)[self._store["pre"]]
        targets = np.asarray(self.post.all_cells, dtype=np.int64)[self._store["post"]]
        taus = getattr(self, "_tau_psc", None)
        if self._varying:
            self._connect_varying(net, sources, targets)
            return
        if taus is None:
            ports = np.unique(self._ports)
            if ports.size == 1:  # the common case: the whole arrays, no selection
                net.connect(sources, targets, weight=self._store["weight"], delay_ms=self._store["delay"],
                            synapse=self._synapse, synapse_params=self._synapse_params, local=True,
                            receptor=int(ports[0]))  # fmt: skip
                return
            port_of = self._ports[self._store["post"]]
            for port in ports:  # every value, so that every rank makes the same calls
                rows = port_of == port
                net.connect(sources[rows], targets[rows], weight=self._store["weight"][rows],
                            delay_ms=self._store["delay"][rows], synapse=self._synapse,
                            synapse_params=self._synapse_params, local=True, receptor=int(port))  # fmt: skip
            return
        tau_of = taus[self._store["post"]]
        for tau in np.unique(taus):  # every value, so that every rank makes the same calls
            rows = tau_of == tau
            net.connect(sources[rows], targets[rows], weight=self._store["weight"][rows],
                        delay_ms=self._store["delay"][rows], synapse=self._synapse,
                        synapse_params={**self._synapse_params, "tau_psc": float(tau)}, local=True)  # fmt: skip

    def _connect_varying(self, net, sources, targets) -> None:
        """A stochastic type with parameters per connection: one connect call (one spikex
        synapse type) per distinct set of values, every rank the same calls (the sets of all
        ranks, in one order)."""
        names = list(self._varying)
        rows = np.stack([self._varying[name] for name in names], axis=1)
        mine = np.unique(rows, axis=0)
        everyone = gather_int64(mine.view(np.int64).ravel()).view(np.float64).reshape(-1, len(names))
        sets = np.unique(everyone, axis=0)
        if len(sets) > 1000:
            raise NotImplementedError(
                f"spikex.pynn: {type(self.synapse_type).__name__} with {len(sets)} distinct values of "
                f"{', '.join(names)}: spikex makes one synapse type per value (at most 1000 per projection)"
            )
        for values in sets:
            chosen = np.all(rows == values, axis=1)
            net.connect(sources[chosen], targets[chosen], weight=self._store["weight"][chosen],
                        delay_ms=self._store["delay"][chosen], synapse=self._synapse,
                        synapse_params={**self._synapse_params, **dict(zip(names, values.tolist()))},
                        local=True)  # fmt: skip

    def _current_weights(self) -> np.ndarray:
        """Native weights of this rank's connections: as given, or for STDP after a run as
        the network has them now (matched by source, target and delay)."""
        state = simulator.state
        if self._synapse != STDPMechanism.spikex_synapse or state.result is None or len(self) == 0:
            return self._weights  # static and short-term synapses keep their stored weights
        net = state.network
        kind = [k for k, t in enumerate(net.synapse_types())
                if t["name"] == self._synapse and t["params"] == self._synapse_params]  # fmt: skip
        c = net.connections()
        sources = np.asarray(self.pre.all_cells, dtype=np.int64)[self._pre_index]
        targets = np.asarray(self.post.all_cells, dtype=np.int64)[self._post_index]
        rows = (
            np.isin(c["synapse"], kind)
            & np.isin(c["source"], sources)
            & np.isin(c["target"], targets)
        )
        steps = np.rint(self._delays / state.dt).astype(np.int64)
        theirs = np.lexsort((np.rint(c["delay_ms"][rows] / state.dt).astype(np.int64), c["target"][rows],
                             c["source"][rows]))  # fmt: skip
        mine = np.lexsort((steps, targets, sources))
        if theirs.size != mine.size:
            raise NotImplementedError(
                "spikex.pynn: the weights of two STDP projections with the same cells and parameters cannot "
                "be told apart; give them different parameters"
            )
        weights = np.empty_like(self._weights)
        weights[mine] = c["weight"][rows][theirs]
        return weights


def _simulated(delays_ms) -> np.ndarray:
    """The delays the network simulates: whole steps of dt, the nearest step with halves
    rounded up (as NEST rounds them; docs/user/pynn.md, "Delays")."""
    return np.asarray(_core.simulated_delays_ms(np.ascontiguousarray(delays_ms, dtype=float), simulator.state.dt))
