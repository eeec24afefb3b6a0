"""A population: a contiguous range of global cell ids (gids) of one model."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Population:
    """Cells ``first_gid .. first_gid + size - 1``, created by ``Network.create``.

    Parameters
    ----------
    first_gid : int
        Global id of the first cell.
    size : int
        Number of cells.
    model : str
        Neuron model name.
    name : str
        The population's name (``summary.json`` ``populations``, SONATA population of its
        spikes); ``Network.create`` gives one when none is given. A slice keeps it.

    Examples
    --------
    >>> pop = Population(first_gid=100, size=10, model="interval_fire")
    >>> pop[2:5]
    Population(first_gid=102, size=3, model='interval_fire', name='')
    >>> int(pop[-1])
    109
    """

    first_gid: int
    size: int
    model: str
    name: str = field(default="", compare=False)

    @property
    def gids(self) -> np.ndarray:
        """The gids of the population as an int64 array."""
        return np.arange(self.first_gid, self.first_gid + self.size, dtype=np.int64)

    @property
    def stop_gid(self) -> int:
        """One past the last gid."""
        return self.first_gid + self.size

    def __len__(self) -> int:
        return self.size

    def __iter__(self):
        return iter(range(self.first_gid, self.stop_gid))

    def __contains__(self, gid: object) -> bool:
        return isinstance(gid, (int, np.integer)) and self.first_gid <= gid < self.stop_gid

    def __getitem__(self, index: int | slice) -> int | Population:
        if isinstance(index, slice):
            start, stop, step = index.indices(self.size)
            if step != 1:
                raise ValueError(
                    f"population slices must be contiguous (step 1), got step {step}; "
                    "use pop.gids[start:stop:step] for a gid array"
                )
            return Population(self.first_gid + start, max(stop - start, 0), self.model, self.name)
        if isinstance(index, (int, np.integer)) and not isinstance(index, bool):
            position = int(index) + (self.size if index < 0 else 0)
            if not 0 <= position < self.size:
                raise IndexError(f"index {index} out of range for a population of {self.size}")
            return self.first_gid + position
        raise TypeError(f"population indices must be integers or slices, not {type(index)}")
