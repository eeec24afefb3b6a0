"""The network of a configuration's ``[[populations]]`` and ``[[projections]]``
(config/populations.py checked them): ``Network.create`` per population and
``Network.connect_rule`` per projection, in the order given."""

from __future__ import annotations

from ..distributions import DISTRIBUTIONS
from ..models import MODELS
from .population import Population


def build(network, config: dict) -> list[Population]:
    """Create the populations and connect the projections; returns the populations whose
    spikes are recorded (``record_spikes``, default: the neuron models')."""
    created: dict[str, Population] = {}
    recorded = []
    for item in config["populations"]:
        params = {name: _value(value) for name, value in item["params"].items()}
        population = network.create(item["model"], item["cells"], params=params, name=item["name"])
        created[item["name"]] = population
        record = item["record_spikes"]
        if record is None:
            record = MODELS[item["model"]]["kind"] == "neuron"
        if record:
            recorded.append(population)
    for item in config["projections"]:
        counts = {
            name: item[name]
            for name in ("indegree", "outdegree", "total_number", "probability")
            if item[name] is not None
        }
        flags = {
            name: item[name] for name in ("allow_autapses", "allow_multapses") if item[name] is not None
        }
        network.connect_rule(
            item["rule"],
            created[item["source"]],
            created[item["target"]],
            indegree_spread=item["indegree_spread"],
            weight=_value(item["weight"]),
            weight_spread=item["weight_spread"],
            delay_ms=_value(item["delay_ms"]),
            synapse=item["synapse"],
            synapse_params=item["synapse_params"] or None,
            receptor=item["receptor"],
            **counts,
            **flags,
        )
    return recorded


def _value(value):
    """A configuration value as Network.create and connect_rule take it: a table
    ``{distribution = name, ...}`` becomes the Distribution."""
    if isinstance(value, dict):
        parameters = {k: v for k, v in value.items() if k != "distribution"}
        return DISTRIBUTIONS[value["distribution"]](**parameters)
    return value
