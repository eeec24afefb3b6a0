"""Random distributions for per-cell parameters, initial values, weights and delays.

Names and parameters follow NEST's ``nest.random`` and PyNN's ``RandomDistribution``.
A value drawn from a distribution depends only on (seed, cell or connection, what is
drawn): never on the number of ranks, threads, the exchange method or the cell
distribution. The draws themselves are made by the C++ core
(cpp/spikex/network/random_distribution.cpp documents the bits-to-number mapping).

    import spikex as sx
    net.create("iaf_psc_exp", 100, params={"V_m": sx.normal(-58.0, 10.0)})
    net.connect_rule("fixed_indegree", a, b, indegree=10,
                     weight=sx.normal_clipped(87.8, 8.78, low=0.0),
                     delay_ms=sx.normal_clipped(1.5, 0.75, low=0.1))
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Distribution:
    """A distribution by name with its parameters (see the functions below)."""

    name: str
    parameters: dict[str, float] = field(default_factory=dict)

    def to_core(self) -> dict[str, object]:
        """The form the C++ core takes: ``{"distribution": name, parameter: value}``."""
        return {"distribution": self.name, **{k: float(v) for k, v in self.parameters.items()}}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.parameters.items())
        return f"{self.name}({args})"


def normal(mean: float, std: float) -> Distribution:
    """Normal distribution (``std >= 0``)."""
    return Distribution("normal", {"mean": mean, "std": std})


def normal_clipped(
    mean: float, std: float, low: float = -math.inf, high: float = math.inf
) -> Distribution:
    """Normal distribution redrawn until the value lies in ``[low, high]`` (NEST's
    ``math.redraw(random.normal(...))``, PyNN's ``normal_clipped``)."""
    return Distribution("normal_clipped", {"mean": mean, "std": std, "low": low, "high": high})


def uniform(low: float, high: float) -> Distribution:
    """Uniform distribution on ``[low, high)``."""
    return Distribution("uniform", {"low": low, "high": high})


def lognormal(mean: float, std: float) -> Distribution:
    """``exp(X)`` with ``X`` normal(mean, std) (NEST's ``random.lognormal``)."""
    return Distribution("lognormal", {"mean": mean, "std": std})


def exponential(beta: float) -> Distribution:
    """Exponential distribution with scale (mean) ``beta > 0``."""
    return Distribution("exponential", {"beta": beta})


DISTRIBUTIONS = {
    "normal": normal,
    "normal_clipped": normal_clipped,
    "uniform": uniform,
    "lognormal": lognormal,
    "exponential": exponential,
}
