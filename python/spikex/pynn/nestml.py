"""``spikex.pynn.nestml``: where PyNN 0.13 has ``pyNN.nest.nestml.nestml_cell_type``
(also ``spikex.pynn.nestml_cell_type``; native_types.py)."""

from .native_types import nestml_cell_type

__all__ = ["nestml_cell_type"]
