"""Summaries over ranks (or cells) of dry-run counts: maximum, mean, distribution."""

from __future__ import annotations

import numpy as np

PERCENTILES = (50, 90, 99)
HISTOGRAM_BINS = 10


def over_ranks(values, ranks: list[int] | None = None) -> dict:
    """Max / mean / min / sum / percentiles and a 10-bin histogram of ``values``.

    Parameters
    ----------
    values : array-like
        One value per rank (or cell).
    ranks : list of int, optional
        Rank of each value, to name where the maximum is.
    """
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return {"count": 0}
    out = {
        "count": int(data.size),
        "max": _number(data.max()),
        "mean": _number(data.mean()),
        "min": _number(data.min()),
        "sum": _number(data.sum()),
    }
    for p in PERCENTILES:
        out[f"p{p}"] = _number(np.percentile(data, p))
    if ranks is not None:
        out["max_rank"] = int(ranks[int(np.argmax(data))])
    counts, edges = np.histogram(data, bins=HISTOGRAM_BINS)
    out["histogram"] = {"edges": [_number(e) for e in edges], "counts": counts.tolist()}
    return out


def _number(value) -> float | int:
    value = float(value)
    return int(value) if value.is_integer() and abs(value) < 2**53 else round(value, 6)
