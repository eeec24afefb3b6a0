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
    """

    spikes: tuple[np.ndarray, np.ndarray]
    spike_steps: np.ndarray
    summary: dict = field(repr=False)
    timeline: dict | None = field(default=None, repr=False)

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
