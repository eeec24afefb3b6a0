"""SONATA circuits as input: read a SONATA simulation or circuit config and build a spikex
network from it (docs/user/sonata.md).

=================  ======================================================================
module             holds
=================  ======================================================================
``config``         the JSON configs: manifest variables, paths, ``SonataConfig``
``types_table``    node-type and edge-type CSV tables (space separated)
``nodes``          node populations: node types, models, parameters (``NodePopulation``)
``edges``          edge populations, ``read_edges`` (the edges of given targets) and
                   ``edge_windows`` (the same, one window of the file's rows at a time)
``node_sets``      node sets (names, conditions, unions)
``inputs``         spike-train inputs of virtual nodes, current clamps
``build``          ``build_from_sonata``: the network (``SonataCircuit``)
``outputs``        report files, the config's spike files, summary populations by node type
``errors``         ``SonataError``: one line naming the file, key and value
=================  ======================================================================

Reading uses h5py (HDF5) and the standard library (JSON, CSV).
"""

from .build import SonataCircuit, build_from_sonata, simulation_run
from .config import SonataConfig, load_config
from .edges import EdgePopulation, EdgeTable, edge_populations, edge_windows, read_edges
from .errors import SonataError
from .nodes import NodePopulation, read_node_populations

__all__ = [
    "EdgePopulation",
    "EdgeTable",
    "NodePopulation",
    "SonataCircuit",
    "SonataConfig",
    "SonataError",
    "build_from_sonata",
    "edge_populations",
    "edge_windows",
    "load_config",
    "read_edges",
    "read_node_populations",
    "simulation_run",
]
