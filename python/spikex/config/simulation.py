"""``[simulation]``: time grid, duration, seed and threads of a run."""

from __future__ import annotations

from collections.abc import Callable

from ..errors import ConfigError
from .key import UINT32_MAX, Key, format_number

SECTION_DOCS: dict[str, str] = {
    "simulation": "Time grid, duration and random seed of the run.",
}

REGISTRY: tuple[Key, ...] = (
    Key("simulation.tstop_ms", "float", 200.0, "Simulated time in ms.", minimum=0.0),
    Key(
        "simulation.dt_ms",
        "float",
        0.025,
        "Fixed time step in ms; every spike lies on a step.",
        minimum=0.0,
        exclusive_minimum=True,
    ),
    Key(
        "simulation.seed",
        "int",
        1,
        "Seed of every random stream (Philox key = (seed, gid)); same seed, same spikes.",
        minimum=0,
        maximum=UINT32_MAX,
    ),
    Key(
        "simulation.threads",
        "int",
        1,
        "Threads per rank (OpenMP; `spikex run --threads T` sets it). Spikes do not depend on it.",
        minimum=1,
        maximum=1024,
    ),
    Key(
        "simulation.presim_ms",
        "float",
        0.0,
        "Time simulated before recording starts (NEST's presimulation): the run covers "
        "[0, tstop_ms) and spikes are recorded, and rates taken, over [presim_ms, tstop_ms).",
        minimum=0.0,
    ),
    Key(
        "simulation.stall_timeout_s",
        "float",
        10.0,
        "A rank that completes no spike exchange for this many seconds of wall time (and "
        "for 20 times its longest gap between exchanges so far) ends the job with exit "
        "status 3, naming itself and its host: a lost host or network link would otherwise "
        "hang every rank (docs/user/cluster.md). Does not change the spikes.",
        minimum=0.0,
        exclusive_minimum=True,
    ),
)

CROSS_RULES: tuple[str, ...] = ("simulation.presim_ms must be < simulation.tstop_ms (or 0)",)


def _check_presim(config: dict, ranks: int) -> None:
    presim = config["simulation"]["presim_ms"]
    tstop = config["simulation"]["tstop_ms"]
    if presim > 0 and presim >= tstop:
        raise ConfigError(
            "simulation.presim_ms", presim, f"must be < simulation.tstop_ms = {format_number(tstop)} (or 0)"
        )


CROSS_CHECKS: tuple[Callable[[dict, int], None], ...] = (_check_presim,)
