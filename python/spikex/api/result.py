"""What ``Network.simulate`` returns."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Result:
    """Spikes and summary of a run so far, identical on every rank.

    Attributes
    ----------
    spikes : tuple of numpy.ndarray
        ``(gids, times_ms)`` of every recorded spike of every rank, sorted by time then
        gid (int64 and float64).
    spike_steps : numpy.ndarray
        Integer step of each spike (``times_ms == spike_steps * dt_ms``), same order.
    summary : dict
        The ``summary.json`` fields (see the contract).
    timeline : dict or None
        With ``record.timeline``: column -> ``(ranks, rows)`` array, one row per
        (sub-)interval (``spikex.io.timeline``); otherwise None.
    states : list of dict
        One per ``Network.record_state`` call, in call order: ``variable``, ``gids``
        (int64, ascending), ``times_ms`` (float64, the start of each sampled step) and
        ``values`` (float64, one row per time, one column per gid), gathered from every
        rank.
    populations : list of Population
        The network's populations, in creation order.
    """

    spikes: tuple[np.ndarray, np.ndarray]
    spike_steps: np.ndarray
    summary: dict = field(repr=False)
    timeline: dict | None = field(default=None, repr=False)
    states: list = field(default_factory=list, repr=False)
    populations: list = field(default_factory=list, repr=False)

    def population_spikes(self, population) -> tuple[np.ndarray, np.ndarray]:
        """``(gids, times_ms)`` of the recorded spikes of one population (or its name)."""
        if isinstance(population, str):
            matches = [p for p in self.populations if p.name == population]
            if not matches:
                names = ", ".join(p.name for p in self.populations)
                raise ValueError(f"population {population!r} does not exist; populations: {names}")
            population = matches[0]
        gids, times = self.spikes
        keep = (gids >= population.first_gid) & (gids < population.stop_gid)
        return gids[keep], times[keep]

    @property
    def spikes_sha256(self) -> str:
        """Canonical hash of the spikes (same as ``summary["spikes_sha256"]``)."""
        return self.summary["spikes_sha256"]

    def __repr__(self) -> str:
        return (
            f"Result(spikes={self.spike_steps.size}, "
            f"spikes_sha256={self.summary['spikes_sha256'][:12]}..., "
            f"ranks={self.summary['ranks']})"
        )
