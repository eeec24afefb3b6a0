"""spikex as a PyNN 0.13 backend: ``import spikex.pynn as sim`` (docs/user/pynn.md).

Built on PyNN's common base classes like PyNN's own backends. Supported: IF_curr_alpha,
IF_curr_exp, IF_curr_delta, IF_cond_exp, SpikeSourcePoisson, SpikeSourceArray, DCSource,
StepCurrentSource,
StaticSynapse, STDPMechanism with SpikePairRule and the additive, multiplicative, mixed
and Guetig weight dependences, PyNN's connectors. Every other standard model PyNN defines is refused
with PyNN's NotImplementedError naming it.
"""

from pyNN import errors, random, space  # noqa: F401
from pyNN.connectors import *  # noqa: F401,F403
from pyNN.network import Network  # noqa: F401
from pyNN.random import GSLRNG, NumpyRNG, RandomDistribution  # noqa: F401
from pyNN.recording import *  # noqa: F401,F403
from pyNN.space import Space  # noqa: F401
from pyNN.standardmodels import StandardCellType, cells, electrodes, synapses

from . import numpy2_fixes
from .control import (  # noqa: F401
    end,
    get_current_time,
    get_max_delay,
    get_min_delay,
    get_time_step,
    initialize,
    num_processes,
    rank,
    reset,
    run,
    run_for,
    run_until,
    setup,
    write_sonata,
)
from .native_rules import (  # noqa: F401 (these connectors remember whether they got an rng)
    FixedNumberPostConnector,
    FixedNumberPreConnector,
    FixedProbabilityConnector,
    FixedTotalNumberConnector,
    NativeRNG,
)
from .populations import Assembly, Population, PopulationView  # noqa: F401
from .procedural_api import connect, create, record, record_v  # noqa: F401
from .projections import Projection  # noqa: F401
from .standardmodels import (  # noqa: F401
    STANDARD_CELL_TYPES,
    AdditivePotentiationMultiplicativeDepression,
    AdditiveWeightDependence,
    DCSource,
    GutigWeightDependence,
    IF_curr_alpha,
    IF_curr_delta,
    IF_curr_exp,
    IF_cond_alpha,
    IF_cond_exp,
    Izhikevich,
    MultiplicativeWeightDependence,
    SpikePairRule,
    SpikeSourceArray,
    SpikeSourcePoisson,
    StaticSynapse,
    StepCurrentSource,
    STDPMechanism,
)


def _unsupported(base):
    """A stand-in for a PyNN standard type spikex does not have: refuses by name."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(
            f"spikex.pynn: {base.__name__} is not supported by spikex (docs/user/pynn.md lists what is)"
        )

    return type(base.__name__, (base,), {"__init__": __init__, "__doc__": base.__doc__})


def _refuse_the_rest():
    have = set(globals())
    for module in (cells, synapses, electrodes):
        for name, obj in vars(module).items():
            if isinstance(obj, type) and obj.__module__ == module.__name__ and name not in have:
                if not name.startswith("_") and hasattr(obj, "default_parameters"):
                    globals()[name] = _unsupported(obj)


_refuse_the_rest()


def list_standard_models():
    """The standard cell types this backend runs."""
    return [cls.__name__ for cls in STANDARD_CELL_TYPES]

numpy2_fixes.apply()
