"""The PyNN backend's simulator state: what the script described, and the spikex network
built from it.

PyNN lets a script change anything at any time; a spikex ``Network`` is fixed once built.
So this state keeps the description (populations, projections, current sources,
recordings) and builds a ``spikex.Network`` from it at the first ``run``. ``reset()``
drops the network, and the next ``run`` builds it again from the (possibly changed)
description, with the same seed: time 0, initial state, the same draws. A change after
time 0 that a built network cannot take (new cells, connections, recordings or parameter
values) raises ``NotImplementedError`` naming it (docs/user/pynn.md).

Changes of parameter values, initial values (the state now) and current sources after a
run go into the running network (``Network.set``): NEST's ``SetStatus`` between
``Simulate`` calls, which pyNN.nest does; PyNN's ``run(..., callbacks=...)`` makes them at
the callbacks' times.

PyNN ids are spikex gids: populations take consecutive gids in creation order; current
sources become ``dc_generator`` cells after all of them. Cells are distributed round robin
(gid % ranks), which is what ``Population._mask_local`` says.
"""

from __future__ import annotations

import numpy as np
from pyNN import common, errors

from .. import _core

name = "spikex"


class ID(int, common.IDMixin):
    def __init__(self, n):
        int.__init__(n)
        common.IDMixin.__init__(self)


class State(common.control.BaseState):
    def __init__(self):
        super().__init__()
        self.mpi_rank = _core.comm_rank()
        self.num_processes = _core.comm_size()
        self.dt = 0.1
        self._min_delay = 0.1
        self.min_delay_auto = False
        self.max_delay = 10.0
        self.seed = 1
        self.spikex_options: dict = {}
        self.segment_counter = -1
        self.generation = 0  # counts changes of the description (what a built network depends on)
        self.clear()

    @property
    def min_delay(self) -> float:
        """setup's min_delay; with min_delay="auto", once built, the smallest delay of
        the network's connections (the exchange interval, as NEST's kernel computes it)."""
        if self.min_delay_auto and self.network is not None and self.network._state == "initialised":
            return float(self.network._engine.steps_per_interval) * self.dt
        return self._min_delay

    @min_delay.setter
    def min_delay(self, value: float) -> None:
        self._min_delay = float(value)

    # ---- the description -------------------------------------------------------------

    def clear(self):
        """Forget the whole network (``setup``)."""
        self.populations = []
        self.projections = []
        self.current_sources = []
        self.recorders = set()
        self.id_counter = 0
        self.generation += 1
        self.network = None
        self.result = None
        self.segment_counter = -1
        self.reset()

    def reset(self):
        """Back to time 0 (``reset``): the next run builds the network again."""
        self.running = False
        self.t = 0.0
        self.t_start = 0.0
        self.network = None
        self.result = None
        self.segment_counter += 1
        for recorder in self.recorders:
            recorder._cleared_at = 0.0

    def changed(self, what: str) -> None:
        """The description changed: drop a network built at time 0, refuse after it."""
        if self.network is not None and self.t > 0:
            raise NotImplementedError(
                f"spikex.pynn: {what} after run(): a spikex network cannot change while it "
                "runs; call reset() first, then change it (parameter values, initial values and current sources may change)"
            )
        self.generation += 1
        self.network = None
        self.result = None

    def change_running(self, cells, values: dict) -> bool:
        """A change of `cells` after a run: into the running network (``Network.set``),
        True; before any run the network is built again from the description, False."""
        if self.network is None or self.t <= 0:
            self.changed("changing parameters")
            return False
        self.network.set(np.asarray(cells, dtype=np.int64), **values)
        return True

    # ---- building and running --------------------------------------------------------

    def build(self):
        """The spikex network of the description (built once per segment)."""
        if self.network is not None:
            return self.network
        import spikex as sx

        if not self.populations:
            raise errors.NothingToWriteError(
                "spikex.pynn: the network has no cells: create a Population first"
            )
        options = dict(self.spikex_options)
        net = sx.Network(dt_ms=self.dt, seed=self.seed, distribution="round_robin", **options)
        for population in self.populations:
            population._create_in(net)
        for source in self.current_sources:
            source._create_in(net)
        for projection in self.projections:
            projection._connect_in(net)
        for recorder in self.recorders:
            recorder._record_in(net)
        local = set(net.local_gids().tolist())
        mine = {int(i) for p in self.populations for i in p.all_cells[p._mask_local]}
        assert mine <= local, "spikex.pynn: PyNN's local cells differ from spikex's distribution"
        self.network = net
        for projection in self.projections:
            if projection._synapse != "static":  # a plastic rule projection's initial weights
                try:
                    projection._read_rule_connections()
                except NotImplementedError:
                    pass  # cannot be told apart: refused when asked for, not here
        return net

    def run_until(self, tstop):
        net = self.build()
        if tstop > self.t:
            self.result = net.simulate(tstop - self.t)
        elif self.result is None:
            self.result = net.simulate(0.0)
        self.t = tstop
        self.running = True

    def run(self, simtime):
        self.run_until(self.t + simtime)

    def spike_times_ms(self):
        """(gids, times) of every recorded spike so far, NEST's stamps: (step + 1) * dt."""
        if self.result is None:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        return self.result.spikes[0], (self.result.spike_steps + 1) * self.dt


state = State()
