"""setup, run, reset, end and the state queries of the PyNN API.

``setup(timestep, min_delay, max_delay, **extra)`` takes spikex's own options as extra
keyword arguments: ``seed`` (every random stream; default 1), ``method`` (the exchange
method), ``threads`` and any ``[exchange]`` option of spikex.Network (docs/user/pynn.md).
"""

from __future__ import annotations

from pyNN import common, errors
from pyNN.common.control import DEFAULT_MAX_DELAY, DEFAULT_MIN_DELAY, DEFAULT_TIMESTEP
from pyNN.recording import get_io

import inspect
import logging

import spikex as sx

from . import simulator

logger = logging.getLogger("PyNN")


def _exchange_option_names() -> list[str]:
    from ..api.network import EXCHANGE_OPTIONS

    return list(EXCHANGE_OPTIONS)


# setup()'s keyword arguments that are PyNN's, not spikex options
_PYNN_KEYWORDS = {"max_delay", "rng_seeds", "rng_seeds_seed", "verbosity", "spike_precision"}


def setup(timestep=DEFAULT_TIMESTEP, min_delay=DEFAULT_MIN_DELAY, **extra_params):
    """Start a simulation with spikex as PyNN's backend (PyNN's ``setup``).

    Parameters
    ----------
    timestep : float
        The time step in ms (spikex's ``dt_ms``).
    min_delay : float or "auto"
        The smallest delay in ms; ``"auto"``: the smallest delay of the built network's
        connections, as NEST computes it.
    **extra_params
        PyNN's ``max_delay`` (``"auto"``: 10 ms) and ``spike_precision`` (only
        ``"on_grid"``); ``seed`` or pyNN.nest's ``rng_seed`` (one seed for every stream);
        any argument of ``spikex.Network`` (``threads``, ``method``, ...; the distribution
        stays ``round_robin``) and any ``[exchange]`` option. Other simulators' options
        are logged and ignored, as PyNN's backends ignore each other's.

    Returns
    -------
    int
        This process's MPI rank.
    """
    common.setup(timestep, min_delay, **extra_params)
    state = simulator.state
    state.clear()
    state.dt = float(timestep)
    # "auto": the smallest delay of the built network's connections (as NEST computes it)
    state.min_delay_auto = min_delay == "auto"
    state.min_delay = float(timestep) if min_delay == "auto" else float(min_delay)
    max_delay = extra_params.get("max_delay", DEFAULT_MAX_DELAY)
    state.max_delay = 10.0 if max_delay == "auto" else float(max_delay)
    if extra_params.get("spike_precision", "on_grid") != "on_grid":
        raise NotImplementedError(
            "spikex.pynn: spike_precision must be 'on_grid' (spikes are on the time grid)"
        )
    options = {k: v for k, v in extra_params.items() if k not in _PYNN_KEYWORDS}
    # pyNN.nest's name for the kernel seed, so a script written for it seeds spikex too
    rng_seed = options.pop("rng_seed", None)
    seed = options.pop("seed", None)
    if seed is not None and rng_seed is not None and int(seed) != int(rng_seed):
        raise errors.InvalidParameterValueError(
            f"spikex.pynn: setup(seed={seed}, rng_seed={rng_seed}): give one seed (rng_seed is pyNN.nest's name for it)"
        )
    state.seed = int(seed if seed is not None else rng_seed if rng_seed is not None else 1)
    if options.pop("distribution", "round_robin") != "round_robin":
        raise NotImplementedError(
            "spikex.pynn: distribution must be 'round_robin' (PyNN's local cells are gid % ranks)"
        )
    # Options of other simulators (NEST's t_flush, ...) are ignored, as PyNN's backends
    # ignore each other's; spikex's own go to spikex.Network.
    known = set(inspect.signature(sx.Network).parameters) | set(_exchange_option_names())
    for name in sorted(set(options) - known):
        logger.warning("spikex.pynn: setup(%s=...) is not a spikex option; ignored", name)
    state.spikex_options = {
        k: v for k, v in options.items() if k in known and k not in ("dt_ms", "seed")
    }
    return state.mpi_rank


def end(compatible_output=True):
    """Write what record(..., to_file=...) asked for; keep nothing else."""
    for population, variables, filename in simulator.state.write_on_end:
        population.write_data(get_io(filename), variables)
    simulator.state.write_on_end = []


run, run_until = common.build_run(simulator)
run_for = run
reset = common.build_reset(simulator)
initialize = common.initialize
get_current_time, get_time_step, get_min_delay, get_max_delay, num_processes, rank = (
    common.build_state_queries(simulator)
)


def write_sonata(spikes_file, report_file=None) -> None:
    """The recorded spikes of every population as a SONATA spike file, and with
    `report_file` the recorded state variables as a SONATA report (the layout of
    ``spikex run``'s spikes.h5 and state.h5, docs/user/cli.md). Collective: call it on
    every rank; rank 0 writes, atomically.
    Spike times are PyNN's (NEST's stamps, as ``get_data`` gives them)."""
    import numpy as np

    from ..io.output import write_sonata_report, write_sonata_spikes

    state = simulator.state
    if state.result is None:
        raise errors.NothingToWriteError(
            "spikex.pynn: write_sonata: nothing recorded yet; call run() first"
        )
    if state.mpi_rank != 0:
        return
    gids, times = state.spike_times_ms()
    order = np.lexsort((gids, times))
    write_sonata_spikes(spikes_file, state.result.populations, gids[order], times[order])
    if report_file is not None:
        write_sonata_report(report_file, state.result.states, state.result.populations, state.dt)
