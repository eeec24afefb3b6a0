"""PyNN's procedural API (create, connect, record) on this backend's classes."""

from pyNN import common
from pyNN.connectors import FixedProbabilityConnector

from . import simulator
from .populations import Population
from .projections import Projection
from .standardmodels import StaticSynapse

create = common.build_create(Population)
connect = common.build_connect(Projection, FixedProbabilityConnector, StaticSynapse)
record = common.build_record(simulator)


def record_v(source, filename):
    return record(["v"], source, filename)
