"""Registry of neuron models and of the parameters each accepts.

Each model maps its parameter names (as given to ``Network.create`` and to the C++
engine) to the configuration key that documents and validates the same quantity, so a
parameter has one type, one range and one sentence wherever it is set.
"""

from __future__ import annotations

MODEL_PARAMETERS: dict[str, dict[str, str]] = {
    "interval_fire": {
        "tau_ms": "network.interval_fire.tau_ms",
        "invl_low_ms": "network.interval_fire.invl_low_ms",
        "invl_high_ms": "network.interval_fire.invl_high_ms",
        "burst_groups": "network.burst.groups",
        "burst_factor": "network.burst.factor",
        "burst_period_ms": "network.burst.period_ms",
    },
}

MODEL_DOCS: dict[str, str] = {
    "interval_fire": (
        "the artificial cell of Hines, Kumar & Schürmann 2011: fires after a random "
        "interval, inputs move its next firing time"
    ),
}

# Synapse types accepted by Network.connect; later issues add plastic ones.
SYNAPSES: tuple[str, ...] = ("static",)

# Connection rules accepted by Network.connect_rule (and network.connectivity).
CONNECTION_RULES: tuple[str, ...] = ("random", "adjacent")
