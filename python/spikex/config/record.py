"""``[record]``: what a run records."""

from __future__ import annotations

from collections.abc import Callable

from .key import Key

SECTION_DOCS: dict[str, str] = {
    "record": "What is recorded.",
}

REGISTRY: tuple[Key, ...] = (
    Key("record.spikes", "bool", True, "Record the spikes of every cell."),
    Key(
        "record.timeline",
        "bool",
        False,
        "Write timeline.h5: per rank and (sub-)interval computation, send-initiation, wait "
        "and exchange time, conservation rounds, spikes generated / sent / received.",
    ),
    Key(
        "record.state_cells",
        "int",
        0,
        "Record a state variable of the first N cells of every neuron population into "
        "state.h5 (a SONATA report, one population per population); 0: none.",
        minimum=0,
    ),
    Key(
        "record.state_variable",
        "choice",
        "V_m",
        "The state variable record.state_cells records: V_m (mV), I_syn_ex or I_syn_in (pA) "
        "(docs/models/: what each model has).",
        choices=("V_m", "I_syn_ex", "I_syn_in"),
    ),
    Key(
        "record.state_interval_ms",
        "float",
        1.0,
        "Sampling interval of record.state_cells in ms (a whole number of steps).",
        minimum=0.0,
        exclusive_minimum=True,
    ),
)

CROSS_RULES: tuple[str, ...] = ()

CROSS_CHECKS: tuple[Callable[[dict, int], None], ...] = ()
