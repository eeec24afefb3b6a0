"""NEST 3.10 side of the renewal spike sources' comparison
(tests/python/nest_validation/test_nest_spike_source_trains.py): for each case of
spike_source_trains_cases.py, one generator per parrot_neuron (delay dt), the parrots'
spikes recorded; writes an .npz with, per case, the cells and the emission steps (a
generator's spike of update step s reaches the parrot at stamp s + 1 + 1 and the parrot
spikes at that stamp: step = round(t/dt) - 2, spikex's step of it). Run with NEST's
interpreter: nest_spike_source_trains.py OUTPUT.npz [SEED] [CASE ...]."""

from __future__ import annotations

import sys

import nest
import numpy as np
from spike_source_trains_cases import CASES, DT


def run_case(name: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    model, params, _, _, cells, t_sim = CASES[name]
    nest.ResetKernel()
    nest.set_verbosity("M_ERROR")
    nest.resolution = DT
    nest.rng_seed = seed
    generators = nest.Create(model, cells, params=params)
    parrots = nest.Create("parrot_neuron", cells)
    nest.Connect(generators, parrots, "one_to_one", syn_spec={"delay": DT})
    recorder = nest.Create("spike_recorder")
    nest.Connect(parrots, recorder)
    nest.Simulate(t_sim)
    events = recorder.get("events")
    cell = np.asarray(events["senders"], dtype=np.int64) - parrots[0].global_id
    step = np.rint(np.asarray(events["times"]) / DT).astype(np.int64) - 2
    return cell, step


def main() -> None:
    output = sys.argv[1]
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 12345
    names = sys.argv[3:] or list(CASES)
    arrays = {}
    for name in names:
        arrays[f"{name}/cell"], arrays[f"{name}/step"] = run_case(name, seed)
    np.savez_compressed(output, **arrays)
    print("wrote", output)


if __name__ == "__main__":
    main()
