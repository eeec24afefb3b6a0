"""PyNN 0.13 under numpy 2: what spikex.pynn mends so that a user's script does not crash
inside PyNN (docs/user/pynn.md, "Installing").

* A one-cell presynaptic population with a map-based connector (``OneToOneConnector``,
  ``AllToAllConnector``, ``FromListConnector``, ...): PyNN's ``by_column`` simplifies a
  column of one value to a numpy scalar (0-d), and ``MapConnector._standard_connect`` calls
  ``.nonzero()`` on it, which numpy 2 refuses ("Calling nonzero on 0d arrays is not
  allowed"; pyNN.nest stops there too). Such a mask is handed on as a 1-d array of one
  value, which is what numpy 1 did.

Applied once, on ``import spikex.pynn``; a PyNN that already handles these is left as it is.
"""

from __future__ import annotations

import functools

import numpy as np
from pyNN import connectors


def _one_dimensional_masks(generator):
    """`generator` (PyNN's connection-map generator, called with or without a mask) with
    every 0-d source mask made 1-d."""

    @functools.wraps(generator)
    def masks(*args):
        for mask in generator(*args):
            zero_d = isinstance(mask, np.generic) or (isinstance(mask, np.ndarray) and mask.ndim == 0)
            yield np.atleast_1d(mask) if zero_d else mask

    return masks


def apply() -> None:
    standard_connect = connectors.MapConnector._standard_connect
    if getattr(standard_connect, "_spikex_numpy2", False):
        return

    @functools.wraps(standard_connect)
    def patched(self, projection, connection_map_generator, distance_map=None):
        return standard_connect(
            self, projection, _one_dimensional_masks(connection_map_generator), distance_map
        )

    patched._spikex_numpy2 = True
    connectors.MapConnector._standard_connect = patched
