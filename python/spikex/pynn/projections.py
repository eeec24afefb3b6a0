"""Projection: PyNN's connectors draw the connections that end on this rank's cells
(``_convergent_connect`` is called for local targets only), and spikex receives exactly
those (``connect(..., local=True)``): nothing of the size of all connections is
replicated. Weights and delays are kept in native units (pA, or mV for IF_curr_delta;
ms) and given back in PyNN's.
"""

from __future__ import annotations

import numpy as np
from pyNN import common, errors
from pyNN.space import Space

from . import simulator
from .standardmodels import StaticSynapse


class Connection(common.Connection):
    """One local connection, as PyNN's ``Projection.__getitem__`` hands it out."""

    def __init__(self, projection, i):
        self.projection, self.i = projection, i
        self.presynaptic_index = int(projection._pre_index[i])
        self.postsynaptic_index = int(projection._post_index[i])

    def _get_weight(self):
        return float(self.projection._weights[self.i] / self.projection._weight_factor)

    def _get_delay(self):
        return float(self.projection._delays[self.i])

    weight = property(_get_weight)
    delay = property(_get_delay)

    def as_tuple(self, *names):
        return tuple(getattr(self, name) for name in names)


class Projection(common.Projection):
    __doc__ = common.Projection.__doc__
    _simulator = simulator
    _static_synapse_class = StaticSynapse

    def __init__(self, presynaptic_population, postsynaptic_population, connector, synapse_type=None,
                 source=None, receptor_type=None, space=Space(), label=None):  # fmt: skip
        common.Projection.__init__(self, presynaptic_population, postsynaptic_population, connector,
                                   synapse_type, source, receptor_type, space, label)  # fmt: skip
        if not isinstance(self.synapse_type, StaticSynapse):
            raise NotImplementedError(
                f"spikex.pynn: synapse type {type(self.synapse_type).__name__} is not supported yet "
                "(supported: StaticSynapse; docs/user/pynn.md)"
            )
        if source is not None:
            raise NotImplementedError("spikex.pynn: Projection(source=...) is not supported")
        simulator.state.changed("creating a Projection")
        post_type = self.post.celltype if hasattr(self.post, "celltype") else self.post.populations[0].celltype
        # Connectors hand over translated weights (x 1000: nA -> pA); IF_curr_delta's are
        # mV, so its weight_scale undoes that. native = PyNN weight x _weight_factor.
        self._weight_scale = getattr(post_type, "weight_scale", 1.0)
        self._weight_factor = 1000.0 * self._weight_scale
        self._pre_index = np.zeros(0, dtype=np.int64)
        self._post_index = np.zeros(0, dtype=np.int64)
        self._weights = np.zeros(0)
        self._delays = np.zeros(0)
        self._parts: list[tuple] = []
        connector.connect(self)
        self._gather_parts()
        simulator.state.projections.append(self)

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
        weight = np.broadcast_to(np.asarray(connection_parameters.get("weight", 0.0), dtype=float), (n,))
        delay = connection_parameters.get("delay")
        if delay is None:
            delay = simulator.state.min_delay
        delay = np.broadcast_to(np.asarray(delay, dtype=float), (n,))
        post = int(postsynaptic_index)  # an index into self.post
        self._parts.append((pre, np.full(n, post, dtype=np.int64), weight * self._weight_scale, delay))

    def _gather_parts(self):
        if not self._parts:
            return
        pre, post, weight, delay = (np.concatenate(column) for column in zip(*self._parts))
        self._parts = []
        self._pre_index = np.concatenate([self._pre_index, pre])
        self._post_index = np.concatenate([self._post_index, post])
        self._weights = np.concatenate([self._weights, weight])
        self._delays = np.concatenate([self._delays, delay])

    def _set_attributes(self, parameter_space):
        simulator.state.changed("changing weights or delays")
        parameter_space.evaluate(mask=(slice(None), self.post._mask_local))
        for name, value in parameter_space.items():
            # value: (pre.size, local post) array of native values
            matrix = np.asarray(value, dtype=float)
            local_post = np.arange(self.post.size)[self.post._mask_local]
            column = np.searchsorted(local_post, self._post_index)
            new = matrix[self._pre_index, column] if matrix.ndim == 2 else np.broadcast_to(matrix, self._pre_index.shape)
            if name == "weight":
                self._weights = np.array(new * self._weight_scale, dtype=float)
            elif name == "delay":
                self._delays = np.array(new, dtype=float)
            else:
                raise errors.NonExistentParameterError(name, self.synapse_type, ("weight", "delay"))

    def _get_attributes_as_list(self, names):
        columns = []
        for name in names:
            if name == "presynaptic_index":
                columns.append(self._pre_index)
            elif name == "postsynaptic_index":
                columns.append(self._post_index)
            elif name == "weight":
                columns.append(self._weights / self._weight_factor)
            elif name == "delay":
                columns.append(self._delays)
            else:
                raise errors.NonExistentParameterError(name, self.synapse_type, ("weight", "delay"))
        return [tuple(row) for row in zip(*(c.tolist() for c in columns))]

    def _get_attributes_as_arrays(self, names, multiple_synapses="sum"):
        combine = common.Projection.MULTI_SYNAPSE_OPERATIONS[multiple_synapses]
        result = []
        for name in names:
            name = name[:-1] if name.endswith("s") else name
            values = {"weight": self._weights / self._weight_factor, "delay": self._delays}.get(name)
            if values is None:
                raise errors.NonExistentParameterError(name, self.synapse_type, ("weight", "delay"))
            matrix = np.full((self.pre.size, self.post.size), np.nan)
            for i, j, v in zip(self._pre_index.tolist(), self._post_index.tolist(), values.tolist()):
                matrix[i, j] = v if np.isnan(matrix[i, j]) else combine(matrix[i, j], v)
            result.append(matrix)
        return result

    def _connect_in(self, net) -> None:
        """Hand this rank's connections to spikex (targets are local by construction)."""
        if len(self) == 0:
            return
        sources = np.asarray(self.pre.all_cells, dtype=np.int64)[self._pre_index]
        targets = np.asarray(self.post.all_cells, dtype=np.int64)[self._post_index]
        net.connect(sources, targets, weight=self._weights, delay_ms=self._delays, local=True)
