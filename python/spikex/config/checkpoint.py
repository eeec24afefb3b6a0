"""``[checkpoint]``: periodic checkpoints of a run, and what a resume may change."""

from __future__ import annotations

from collections.abc import Callable

from ..errors import ConfigError
from .key import Key

SECTION_DOCS: dict[str, str] = {
    "checkpoint": "Periodic checkpoints: a run can go on from one on any ranks, threads and "
    "exchange method, with the same spikes (docs/user/checkpoint.md).",
}

REGISTRY: tuple[Key, ...] = (
    Key(
        "checkpoint.every_ms",
        "float",
        0.0,
        "Write a checkpoint every this many ms of simulated time, rounded up to whole "
        "min-delay intervals (`spikex run --checkpoint-every MS`); 0: only when the run is "
        "stopped by a signal or --stop-after.",
        minimum=0.0,
    ),
    Key(
        "checkpoint.dir",
        "path",
        "",
        'Directory of the checkpoints; "": OUTDIR/checkpoints.',
    ),
    Key(
        "checkpoint.keep",
        "int",
        2,
        "Checkpoints kept; an older one is deleted only after a newer one is complete.",
        minimum=1,
    ),
)

# Keys a resumed run may set differently from the checkpoint's run (a prefix ending in
# "." covers a section): the layout and how long to run. Every other key defines the
# network, and a difference is refused naming the key.
RESUMABLE: tuple[str, ...] = (
    "simulation.tstop_ms",
    "simulation.threads",
    "simulation.stall_timeout_s",
    "distribution.",
    "exchange.",
    "connections.sort_by_source",
    "connections.keep_sources",
    "record.timeline",
    "checkpoint.",
)


def resumable(path: str) -> bool:
    """Whether the dotted key `path` may differ between a checkpoint and its resume."""
    return any(path == key or (key.endswith(".") and path.startswith(key)) for key in RESUMABLE)


CROSS_RULES: tuple[str, ...] = (
    (
        "checkpoint.every_ms > 0 with plastic synapses (network.plastic) needs "
        "connections.keep_sources = true (the source table identifies them)"
    ),
)


def _check_plastic_sources(config: dict, ranks: int) -> None:
    plastic = config["network"].get("plastic", False) and config["network"]["model"] == "hpc_benchmark"
    if config["checkpoint"]["every_ms"] > 0 and plastic and not config["connections"]["keep_sources"]:
        raise ConfigError(
            "connections.keep_sources",
            False,
            "must be true with checkpoint.every_ms > 0 and network.plastic = true (the source "
            "table identifies the plastic synapses in a checkpoint)",
        )


CROSS_CHECKS: tuple[Callable[[dict, int], None], ...] = (_check_plastic_sources,)
