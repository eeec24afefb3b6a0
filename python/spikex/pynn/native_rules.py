"""PyNN connectors whose ``rng`` is a ``NativeRNG``, drawn by spikex's own rules.

PyNN's connectors run in Python and draw from the RNG they are given; with a
``NativeRNG`` the simulator draws instead (pyNN.nest hands them to NEST's ``Connect``).
spikex maps them onto its rules (docs/user/connection_rules.md), drawn on the target's
rank from Philox streams keyed by ``setup(seed=...)``: the same connections for any
number of ranks and threads. Weights and delays may be numbers or ``RandomDistribution``s
that also use a ``NativeRNG`` (drawn by spikex per connection). ``NativeRNG(seed)`` does
not reseed anything: every spikex stream comes from the one seed of ``setup``. A
connector given no rng at all is drawn the same way when it can be (a spikex rule for
it, weights and delays spikex can draw, populations of consecutive ids), else by PyNN
with PyNN's default NumpyRNG.
"""

from __future__ import annotations

import operator

import numpy as np
from pyNN import connectors, random
from pyNN.random import RandomDistribution

import spikex as sx


class NativeRNG(random.NativeRNG):
    """PyNN's NativeRNG for spikex: values from it are drawn by spikex, never in Python.
    Asked for numbers in Python (PyNN guessing a receptor type from a weight), it gives a
    placeholder that refuses comparisons with TypeError, which PyNN catches."""

    def next(self, n=None, distribution=None, parameters=None, mask=None):
        return _DrawnBySpikex(distribution)


class _DrawnBySpikex:
    def __init__(self, distribution):
        self.distribution = distribution

    def reshape(self, *shape):
        return self

    def _refuse(self, other):
        raise TypeError(
            f"a {self.distribution} value of a NativeRNG is drawn by spikex, not in Python"
        )

    __lt__ = __le__ = __gt__ = __ge__ = _refuse


def _count(connector, what: str) -> int:
    if not isinstance(connector.n, (int, np.integer)):
        raise NotImplementedError(
            f"spikex.pynn: {type(connector).__name__} with a NativeRNG needs a whole number {what}, "
            f"got {connector.n!r}"
        )
    return int(connector.n)


def _autapses(connector) -> bool:
    if connector.allow_self_connections not in (True, False):
        raise NotImplementedError(
            f"spikex.pynn: {type(connector).__name__}(allow_self_connections={connector.allow_self_connections!r}) "
            "with a NativeRNG: spikex's rules take True or False"
        )
    return bool(connector.allow_self_connections)


# connector class -> (spikex rule, its keyword arguments from the connector)
_RULES = {
    connectors.FixedProbabilityConnector: (
        "pairwise_bernoulli", lambda c: {"probability": float(c.p_connect), "allow_autapses": _autapses(c)},
    ),
    connectors.FixedNumberPreConnector: (
        "fixed_indegree",
        lambda c: {"indegree": _count(c, "n"), "allow_autapses": _autapses(c), "allow_multapses": bool(c.with_replacement)},
    ),
    connectors.FixedNumberPostConnector: (
        "fixed_outdegree",
        lambda c: {"outdegree": _count(c, "n"), "allow_autapses": _autapses(c), "allow_multapses": bool(c.with_replacement)},
    ),
    connectors.FixedTotalNumberConnector: (
        "fixed_total_number",
        lambda c: {"total_number": _count(c, "n"), "allow_autapses": _autapses(c), "allow_multapses": bool(c.with_replacement)},
    ),
}  # fmt: skip


def native_rule(connector) -> tuple[str, dict] | None:
    """(rule, keyword arguments) when `connector` draws from a NativeRNG, else None
    (PyNN's own implementation runs). Connectors without a spikex rule are refused."""
    if not (
        isinstance(getattr(connector, "rng", None), random.NativeRNG) or defaulted_rng(connector)
    ):
        return None
    rule = next((_RULES[cls] for cls in type(connector).__mro__ if cls in _RULES), None)
    if rule is None:
        allowed = ", ".join(cls.__name__ for cls in _RULES)
        raise NotImplementedError(
            f"spikex.pynn: {type(connector).__name__} with a NativeRNG has no spikex rule (rules exist for "
            f"{allowed}); give it a NumpyRNG to run PyNN's own implementation"
        )
    name, arguments = rule
    return name, arguments(connector)


def defaulted_rng(connector) -> bool:
    """Whether the script gave this connector no rng (spikex's connector classes below):
    then spikex's rule draws when it can, as with a NativeRNG, and PyNN's implementation
    with PyNN's default NumpyRNG otherwise."""
    return getattr(connector, "_spikex_rng_defaulted", False)


def _defaulting(base):
    """`base` that remembers whether it was given an rng (PyNN replaces None with its
    default NumpyRNG(seed=151985012) at once, so the connector cannot tell afterwards)."""

    def __init__(self, *args, rng=None, **kwargs):
        base.__init__(self, *args, rng=rng, **kwargs)
        self._spikex_rng_defaulted = rng is None

    return type(base.__name__, (base,), {"__init__": __init__, "__doc__": base.__doc__})


FixedProbabilityConnector = _defaulting(connectors.FixedProbabilityConnector)
FixedNumberPreConnector = _defaulting(connectors.FixedNumberPreConnector)
FixedNumberPostConnector = _defaulting(connectors.FixedNumberPostConnector)
FixedTotalNumberConnector = _defaulting(connectors.FixedTotalNumberConnector)


_DISTRIBUTIONS = {  # PyNN name -> spikex distribution of (parameters, scale factor)
    "uniform": lambda p, f: sx.uniform(p["low"] * f, p["high"] * f),
    "normal": lambda p, f: sx.normal(p["mu"] * f, p["sigma"] * f),
    "normal_clipped": lambda p, f: sx.normal_clipped(
        p["mu"] * f, p["sigma"] * f, p["low"] * f, p["high"] * f
    ),
    "exponential": lambda p, f: sx.exponential(p["beta"] * f),
    "lognormal": lambda p, f: sx.lognormal(p["mu"] + np.log(f), p["sigma"]),
}


def native_value(name: str, value, factor: float):
    """A weight or delay for a spikex rule: a number, or a spikex distribution for a
    RandomDistribution drawn from a NativeRNG; `value` is PyNN's lazy array in native
    units, `factor` a further scale (IF_curr_delta's weights)."""
    base = value.base_value
    if not isinstance(base, RandomDistribution):
        if not value.is_homogeneous:
            raise NotImplementedError(
                f"spikex.pynn: {name} given as an array or function with a NativeRNG connector: spikex's rules "
                "take a number or a RandomDistribution (or give the connector a NumpyRNG)"
            )
        value.shape = (1,)
        return float(value.evaluate(simplify=True)) * factor
    if not isinstance(base.rng, random.NativeRNG):
        raise NotImplementedError(
            f"spikex.pynn: {name} = RandomDistribution with {base.rng} on a NativeRNG connector: give both a NativeRNG "
            "(spikex draws) or both a NumpyRNG (PyNN draws)"
        )
    for op, operand in value.operations:
        if op is not operator.mul or not np.isscalar(operand) or operand <= 0:
            raise NotImplementedError(
                f"spikex.pynn: {name}: a RandomDistribution transformed by {op} cannot be drawn natively"
            )
        factor *= float(operand)
    make = _DISTRIBUTIONS.get(base.name)
    if make is None:
        raise NotImplementedError(
            f"spikex.pynn: {name} = RandomDistribution({base.name!r}) with a NativeRNG: spikex draws "
            f"{', '.join(_DISTRIBUTIONS)}"
        )
    return make(base.parameters, factor)


_NEGATED = {  # spikex distribution of X -> that of -X, by its parameters
    "normal": lambda p: sx.normal(-p["mean"], p["std"]),
    "normal_clipped": lambda p: sx.normal_clipped(-p["mean"], p["std"], -p["high"], -p["low"]),
    "uniform": lambda p: sx.uniform(-p["high"], -p["low"]),
}


def negated(name: str, value):
    """-`value` for a spikex rule (a number or a distribution from native_value): the
    inhibitory conductance weights, positive in PyNN, negative in spikex's models."""
    if isinstance(value, float):
        return -value
    negate = _NEGATED.get(value.name)
    if negate is None:
        raise NotImplementedError(
            f"spikex.pynn: {name} = RandomDistribution({value.name!r}) with a NativeRNG on an inhibitory "
            "conductance receptor: spikex takes these weights negative and draws the negative of "
            f"{', '.join(_NEGATED)} only (or give the connector a NumpyRNG)"
        )
    return negate(value.parameters)
