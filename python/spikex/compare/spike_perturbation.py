"""TEST-ONLY: make one run of a comparison lose a spike, to test the mismatch report.

``spikex compare`` must say loudly when two runs disagree on ``spikes_sha256``. No
correct method ever does, so the test suite needs a run that does: with the environment
variable ``SPIKEX_TEST_DROP_ONE_SPIKE=METHOD@RANKS`` (e.g. ``alltoall@2``), the first run
of that method variant label on that rank count loses its last spike after it finished:
its ``spikes.h5`` is rewritten without it and its ``summary.json`` gets the
``spikes_total`` and ``spikes_sha256`` of what is left, exactly as if the exchange had
lost the spike. Nothing else reads the variable; without it this module does nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..io.output import (
    SPIKES_FILE,
    SUMMARY_FILE,
    read_sonata_spikes,
    sonata_population,
    spikes_sha256,
    write_sonata_spikes,
    write_summary,
)

DROP_ONE_SPIKE_VARIABLE = "SPIKEX_TEST_DROP_ONE_SPIKE"


def drop_requested(method_label: str, ranks: int, repeat: int) -> bool:
    """Whether the test-only variable asks to perturb this run (first repeat only)."""
    target = os.environ.get(DROP_ONE_SPIKE_VARIABLE, "")
    return bool(target) and repeat == 1 and target == f"{method_label}@{ranks}"


def drop_last_spike(outdir: Path, summary: dict) -> dict:
    """Remove the last spike of a finished run from its files; return the new summary.

    Parameters
    ----------
    outdir : Path
        The run's output directory (``spikes.h5``, ``summary.json``).
    summary : dict
        Its summary as read after the run.

    Returns
    -------
    dict
        The summary with ``spikes_total`` and ``spikes_sha256`` of the remaining spikes
        and ``test_dropped_spikes = 1`` (written back to ``summary.json``).
    """
    population = sonata_population(outdir / SPIKES_FILE)
    gids, times_ms = read_sonata_spikes(outdir / SPIKES_FILE, population)
    if gids.size == 0:
        return summary
    gids, times_ms = gids[:-1], times_ms[:-1]
    steps = np.rint(times_ms / float(summary["dt_ms"])).astype(np.int64)
    write_sonata_spikes(outdir / SPIKES_FILE, population, gids, times_ms)
    summary = {
        **summary,
        "spikes_total": int(gids.size),
        "spikes_sha256": spikes_sha256(steps, gids.astype(np.int64)),
        "test_dropped_spikes": 1,
    }
    write_summary(outdir / SUMMARY_FILE, summary)
    return summary
