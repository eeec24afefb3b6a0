"""Recording: PyNN's Recorder on spikex's spike and state recordings.

Spike times are NEST's stamps, (step + 1)·dt, as pyNN.nest reports them. A state signal
starts with the initial value at t = 0 and then has a sample every sampling interval: the
value after the step that ends there (spikex's ``record_state``), so PyNN's n·interval
sample is the state at that time.
"""

from __future__ import annotations

import numpy as np
from pyNN import errors, recording

from . import simulator


class Recorder(recording.Recorder):
    _simulator = simulator

    def __init__(self, population, file=None):
        super().__init__(population, file)
        self._state_index: dict[str, int] = {}
        self._cleared_at = 0.0

    def _record(self, variable, new_ids, sampling_interval=None):
        if variable.name != "spikes" and variable.name not in self.population.celltype.variable_map:
            raise errors.RecordingError(variable.name, self.population.celltype)
        if sampling_interval is not None:
            self.sampling_interval = sampling_interval
        if new_ids:
            simulator.state.changed("recording more cells or variables")

    def _record_in(self, net) -> None:
        """Declare this recorder's recordings in spikex network `net` (at build)."""
        self._state_index = {}
        dt = simulator.state.dt
        steps = self.sampling_interval / dt
        if abs(steps - round(steps)) > 1e-9 or round(steps) < 1:
            raise errors.InvalidParameterValueError(
                f"spikex.pynn: sampling_interval = {self.sampling_interval} ms: must be a multiple of dt = {dt} ms"
            )
        for variable, ids in self.recorded.items():
            gids = sorted(int(i) for i in ids)
            if not gids:
                continue
            if variable.name == "spikes":
                net.record_spikes(np.asarray(gids, dtype=np.int64))
            else:
                native = self.population.celltype.variable_map[variable.name]
                self._state_index[variable.name] = net.record_state(
                    np.asarray(gids, dtype=np.int64), native, interval_ms=self.sampling_interval
                )

    def _get_spiketimes(self, ids, clear=False):
        gids, times = simulator.state.spike_times_ms()
        keep = np.isin(gids, np.asarray([int(i) for i in ids], dtype=np.int64)) & (
            times > self._cleared_at
        )
        if clear:
            self._cleared_at = simulator.state.t
        return gids[keep].astype(int), times[keep].astype(float)

    def _get_all_signals(self, variable, ids, clear=False):
        celltype = self.population.celltype
        native = celltype.variable_map[variable.name]
        scale = celltype.scale_factors.get(variable.name, 1.0)
        gids = [int(i) for i in ids]
        result = simulator.state.result
        if not gids:
            return np.zeros((0, 0)), None
        initial = self._initial_values(native, gids)
        if result is None or variable.name not in self._state_index:
            return (initial * scale)[np.newaxis, :], None
        recorded = result.states[self._state_index[variable.name]]
        columns = [list(recorded["gids"]).index(g) for g in gids]
        values = np.asarray(recorded["values"], dtype=float)[:, columns]
        times = np.asarray(recorded["times_ms"], dtype=float)
        # the samples at n * interval <= t (spikex's are taken after each step)
        interval = self.sampling_interval
        on_grid = np.abs(times / interval - np.round(times / interval)) < 1e-6
        values = values[on_grid & (times <= simulator.state.t + 1e-9)]
        return np.vstack([initial, values]) * scale, None

    def _initial_values(self, native: str, gids: list[int]) -> np.ndarray:
        population = self.population
        root = population.grandparent if hasattr(population, "grandparent") else population
        if native in root._initial:
            index = root.id_to_index(np.asarray(gids))
            return np.asarray(root._initial[native], dtype=float)[index]
        return np.zeros(len(gids))

    def _local_count(self, variable, filter_ids=None):
        if variable.name != "spikes":
            raise NotImplementedError("spikex.pynn: count() is for spikes only")
        ids = sorted(int(i) for i in self.filter_recorded(variable, filter_ids))
        gids, _ = self._get_spiketimes(ids)
        counts = dict.fromkeys(ids, 0)
        for gid, count in zip(*np.unique(gids, return_counts=True)):
            counts[int(gid)] = int(count)
        return counts

    def _clear_simulator(self):
        self._cleared_at = simulator.state.t

    def _reset(self):
        self._cleared_at = 0.0
