"""spikex: a distributed spiking-network simulator built around spike exchange.

SPMD like PyNEST: under ``mpiexec`` every rank runs the same script::

    import spikex as sx
    net = sx.Network.from_config("examples/hines2011_demo.toml")
    result = net.simulate(200.0)

Importing the package initialises communication (MPI when launched by ``mpiexec``,
a serial backend otherwise) and finalises it at interpreter exit.
"""

from __future__ import annotations

import atexit
import importlib
import sys

# Threads of a rank are spikex's own (core/worker_team.hpp: spin briefly, then yield, then
# sleep), not an OpenMP team: how they wait is chosen by spikex for its own loop, and no
# OMP_* variable is set here. A process-wide setting would reach the user's numpy and every
# other library loaded into this interpreter. (OpenMP remains only in the parallel build
# of the connection table; the user's OMP_* settings apply there, docs/user/python_api.md.)
try:
    # import_module, not "from . import": its error names the missing module plainly.
    _core = importlib.import_module("spikex._core")
except ImportError as _error:  # pragma: no cover - depends on the build
    raise ImportError(
        "spikex: the compiled extension spikex._core is missing or cannot be loaded "
        f"({_error}). Build and install the package first: `make build` or `pip install .`"
    ) from _error

from .version import __version__


def _install_abort_on_uncaught_exception() -> None:
    """Make an uncaught exception on one rank end the whole MPI job.

    Without this, the failing rank would exit while the others wait forever in the
    next collective. The hook prints the error with the rank and calls MPI_Abort.
    """
    rank = _core.comm_rank()
    previous_hook = sys.excepthook

    def abort_job(exc_type, exc_value, exc_traceback):
        previous_hook(exc_type, exc_value, exc_traceback)
        print(
            f"spikex: rank {rank} failed: {exc_type.__name__}: {exc_value}; aborting the job",
            file=sys.stderr,
            flush=True,
        )
        _core.comm_abort(3)

    sys.excepthook = abort_job


try:
    _core.comm_init()
except RuntimeError as _error:  # MPI unusable as spikex needs it (e.g. its thread level)
    # Every rank finds the same: each ends with status 3 (an internal/MPI failure).
    print(f"spikex: cannot start MPI: {_error}", file=sys.stderr, flush=True)
    _core.comm_abort(3)
atexit.register(_core.comm_finalize)
if _core.comm_size() > 1:
    _install_abort_on_uncaught_exception()

from .errors import ConfigError
from .distributions import (
    Distribution,
    exponential,
    lognormal,
    normal,
    normal_clipped,
    uniform,
)
from .api.population import Population
from .api.result import Result

__all__ = [
    "ConfigError",
    "Distribution",
    "Network",
    "Population",
    "Result",
    "__version__",
    "exponential",
    "lognormal",
    "normal",
    "normal_clipped",
    "uniform",
]


def __getattr__(name: str):
    # Network is imported on first use so that `python -m spikex.config` can run the
    # configuration module as a script without it being imported twice.
    if name == "Network":
        from .api.network import Network

        return Network
    if name == "models":  # sx.models.load_nestml(...) without importing spikex.models first
        import importlib

        return importlib.import_module(".models", __name__)
    raise AttributeError(f"module 'spikex' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | {"Network"})
