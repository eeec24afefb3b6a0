"""Population, PopulationView and Assembly on PyNN's common base classes.

A population keeps its native parameters (NEST's names and units) and initial values as
full-size arrays, the same on every rank when the values come from numbers, arrays or a
parallel-safe RNG; spikex receives them when the network is built (simulator.py).
"""

from __future__ import annotations

import warnings

import numpy as np
from pyNN import common, errors
from pyNN.parameters import ParameterSpace, Sequence, simplify
from pyNN.standardmodels import StandardCellType

from . import simulator
from .recording import Recorder
from .standardmodels import STANDARD_CELL_TYPES


def _evaluated(value, size: int) -> np.ndarray:
    """A lazy parameter value as an array of `size` entries (objects for sequences)."""
    value.shape = (size,)
    result = np.asarray(value.evaluate(simplify=False))
    if result.ndim == 0:  # a one-cell population's value
        result = np.full(size, result.item(), dtype=result.dtype)
    return result


def _check_spike_times(values) -> None:
    for times in values:
        times = np.asarray(times.value if isinstance(times, Sequence) else times, dtype=float)
        if np.any(np.diff(times) < 0):
            raise errors.InvalidParameterValueError(
                f"spikex.pynn: SpikeSourceArray spike_times must be in increasing order: {times.tolist()}"
            )


def _warn_merged_events(label: str, rate_hz: float, dt_ms: float) -> None:
    """spike_source_poisson emits at most one spike per step (docs/models/devices.md): of
    Poisson events with mean m per step, 1 - (1 - e^-m) / m are lost (about m/2)."""
    mean = rate_hz * dt_ms * 1e-3
    lost = 1.0 - (1.0 - np.exp(-mean)) / mean if mean > 0 else 0.0
    if lost > 0.005:
        warnings.warn(
            f"spikex.pynn: SpikeSourcePoisson {label!r} at {rate_hz:g} Hz: spikex emits at most one spike "
            f"per source and step, so about {100 * lost:.1f} % of the events (those sharing a step with "
            f"another) are lost at dt = {dt_ms:g} ms; pyNN.nest passes them all. Split the rate over more "
            "sources (or use a smaller timestep) to stay below 1 %; a population whose cells each feed "
            "one target and are not recorded passes every event",
            stacklevel=2,
        )


class Assembly(common.Assembly):
    _simulator = simulator


class PopulationView(common.PopulationView):
    _assembly_class = Assembly
    _simulator = simulator

    def _get_parameters(self, *names):
        local = self.grandparent.id_to_index(self.local_cells)
        return _parameters_of(self.grandparent, self.celltype, names, local)

    def _set_parameters(self, parameter_space):
        self.grandparent._store_native(parameter_space, self._root_indices())

    def _set_initial_value_array(self, variable, initial_values):
        self.grandparent._store_initial(variable, initial_values, self._root_indices())

    def _get_view(self, selector, label=None):
        return PopulationView(self, selector, label)

    def _root_indices(self) -> np.ndarray:
        return self.grandparent.id_to_index(self.all_cells)


def _parameters_of(root, celltype, names, indices) -> ParameterSpace:
    """PyNN-named parameters of cells `indices` of population `root` (a PointNeuron's
    response parameters, "GABAA.e_syn", as given)."""
    responses = [name for name in names if "." in name]
    if responses:
        space = _parameters_of(root, celltype, [n for n in names if "." not in n], indices) if len(responses) < len(names) else ParameterSpace({}, shape=(len(indices),))
        space.update(**{n: simplify(celltype.response_parameter(n, root.size)[indices]) for n in responses})
        return space
    if any(name in celltype.computed_parameters() for name in names):
        native_names = celltype.get_native_names()
    else:
        native_names = celltype.get_native_names(*names)
    native = {name: simplify(root._native[name][indices]) for name in native_names}
    space = ParameterSpace(native, shape=(len(indices),))
    return celltype.reverse_translate(space)


class Population(common.Population):
    __doc__ = common.Population.__doc__
    _simulator = simulator
    _recorder_class = Recorder
    _assembly_class = Assembly

    def _create_cells(self):
        if not isinstance(self.celltype, StandardCellType) or not hasattr(
            self.celltype, "spikex_model"
        ):
            raise errors.InvalidModelError(
                f"spikex.pynn: cell type {type(self.celltype).__name__} is not supported "
                f"(supported: {', '.join(t.__name__ for t in STANDARD_CELL_TYPES)}; docs/user/pynn.md)"
            )
        state = simulator.state
        state.changed("creating a Population")
        ids = np.arange(state.id_counter, state.id_counter + self.size)
        self.all_cells = np.array([simulator.ID(i) for i in ids], dtype=simulator.ID)
        self._mask_local = ids % state.num_processes == state.mpi_rank
        for cell in self.all_cells:
            cell.parent = self
        native = self.celltype.native_parameters
        native.shape = (self.size,)
        self._native = {name: _evaluated(value, self.size) for name, value in native.items()}
        if "spike_times" in self._native:
            _check_spike_times(self._native["spike_times"])
        self._initial = {}
        state.id_counter += self.size
        state.populations.append(self)

    def _store_native(self, parameter_space, indices) -> None:
        stored = {}
        for name, value in parameter_space.items():
            self._native[name][indices] = _evaluated(value, len(indices))
            if name == "spike_times":
                _check_spike_times(self._native[name])
                stored[name] = [np.asarray(s.value if isinstance(s, Sequence) else s, dtype=float)
                                for s in self._native[name][indices]]  # fmt: skip
            else:
                stored[name] = np.asarray(self._native[name][indices], dtype=float)
        simulator.state.change_running(self.all_cells[indices], stored)

    def _store_initial(self, variable, initial_values, indices) -> None:
        from ..models import MODELS

        native = self.celltype.variable_map.get(variable)
        if native not in MODELS[self.celltype.spikex_model]["parameters"]:
            # isyn_exc, isyn_inh: spikex's models start without synaptic current
            if np.any(np.asarray(initial_values.evaluate(simplify=False)) != 0):
                raise NotImplementedError(
                    f"spikex.pynn: initial value of {variable}: {self.celltype.spikex_model} starts at 0"
                )
            return
        values = self._initial.setdefault(native, np.full(self.size, np.nan))
        initial_values.shape = (len(indices),)
        values[indices] = np.asarray(initial_values.evaluate(simplify=False), dtype=float)
        # after a run: the state now (pyNN.nest sets it with SetStatus)
        simulator.state.change_running(self.all_cells[indices], {native: values[indices]})

    def _set_initial_value_array(self, variable, initial_values):
        self._store_initial(variable, initial_values, np.arange(self.size))

    def _get_view(self, selector, label=None):
        return PopulationView(self, selector, label)

    def _get_parameters(self, *names):
        return _parameters_of(self, self.celltype, names, np.arange(self.size)[self._mask_local])

    def _get_native_parameters(self, *names):
        local = np.arange(self.size)[self._mask_local]
        return ParameterSpace(
            {name: simplify(self._native[name][local]) for name in names}, shape=(local.size,)
        )

    def _set_parameters(self, parameter_space):
        self._store_native(parameter_space, np.arange(self.size))

    def _stdp_tau_minus(self):
        """tau_minus of the cells that STDP projections end on (SpikePairRule's, set on the
        postsynaptic cells as in NEST); None without any. Other cells never read it and
        take the same value."""
        values = np.full(self.size, np.nan)
        for projection in simulator.state.projections:
            if projection.tau_minus is None:
                continue
            ids = np.asarray(projection.post.all_cells, dtype=np.int64) - int(self.all_cells[0])
            values[ids[(ids >= 0) & (ids < self.size)]] = projection.tau_minus
        known = values[~np.isnan(values)]
        if known.size == 0:
            return None
        values[np.isnan(values)] = known[0]
        return float(known[0]) if np.all(values == known[0]) else values

    def _each_source_feeds_one_target(self) -> bool:
        """Whether this SpikeSourcePoisson population can be spikex's poisson_generator: no
        cell of it is recorded and each has at most one connection, given as arrays (PyNN's
        background-noise idiom, OneToOneConnector). A train that reaches one target is then a
        Poisson train into that target, which a generator draws on the target's rank and
        with every event of a step (spike_source_poisson merges events sharing a step)."""
        if any(self.recorder.recorded.values()):
            return False
        first, size = int(self.all_cells[0]), self.size
        uses = np.zeros(size, dtype=np.int64)
        for projection in simulator.state.projections:
            pre = np.asarray(projection.pre.all_cells, dtype=np.int64) - first
            if not np.any((pre >= 0) & (pre < size)):
                continue
            if projection._rule is not None or projection._synapse != "static":
                return False
            sources = pre[projection._store["pre"]]
            np.add.at(uses, sources[(sources >= 0) & (sources < size)], 1)
        return bool(uses.max(initial=0) <= 1)

    def _create_in(self, net) -> None:
        """Create this population's cells in spikex network `net` (gids = PyNN ids)."""
        params = {}
        from ..models import LIST_PARAMETERS

        for name, values in self._native.items():
            if name in LIST_PARAMETERS[self.celltype.spikex_model]:
                params[name] = [np.asarray(getattr(s, "value", s), dtype=float).ravel() for s in values]
            else:
                values = np.asarray(values, dtype=float)
                params[name] = float(values[0]) if np.all(values == values[0]) else values
        for name, values in self._initial.items():
            params[name] = values
        tau_minus = self._stdp_tau_minus()
        if tau_minus is not None:
            params["tau_minus"] = tau_minus
        model = self.celltype.spikex_model
        if model == "spike_source_poisson":
            if self._each_source_feeds_one_target():
                model = "poisson_generator"  # the same trains in law, and it passes every event
            else:
                rate = np.max(np.asarray(self._native["rate"], dtype=float))
                _warn_merged_events(self.label, rate, net.dt_ms)
        created = net.create(model, self.size, params=params, name=self.label)
        assert created.first_gid == int(self.all_cells[0]), (
            "spikex.pynn: gids out of step with PyNN ids"
        )
