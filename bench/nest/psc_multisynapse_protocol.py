"""The iaf_psc_exp_multisynapse protocol both simulators run (NEST: psc_multisynapse.py;
spikex: tests/python/nest_validation/test_nest_psc_multisynapse.py)."""

from __future__ import annotations

import numpy as np

DT = 0.1
T_SIM = 2000.0
TAU_SYN = [0.5, 3.0, 12.0]  # three ports
CASES = [
    {"I_e": 350.0},  # 0: below rheobase (375 pA): the trains' fluctuations make it fire
    {"I_e": 420.0},  # 1: above rheobase, trains on top
    {"I_e": 0.0, "t_ref": 5.0, "E_L": -65.0, "V_th": -52.0},  # 2: dc and step currents, other membrane
    {"I_e": 250.0, "tau_m": 20.0, "C_m": 200.0, "V_m": -60.0},  # 3: another membrane and start
]


def input_trains(seed: int = 5) -> dict[str, list[float]]:
    """Spike times on the grid, at most one per step and train (Poisson-like, 0.5 to 1.5 kHz)."""
    rng = np.random.default_rng(seed)
    steps = round(T_SIM / DT)
    trains = {}
    for name, count in (("a", 3000), ("b", 1500), ("c", 1000)):
        chosen = np.sort(rng.choice(np.arange(1, steps - 30), size=count, replace=False))
        trains[name] = [round(float(s) * DT, 10) for s in chosen]
    return trains


def connections() -> list[tuple[str, int, float, float, int]]:
    """(source, target case, weight pA, delay ms, receptor port; 0 for a current) in
    creation order: every train through every port of some cell, both signs."""
    out = []
    for cell in range(len(CASES)):
        out += [("a", cell, 400.0, 1.0, 1), ("b", cell, -60.0, 1.5, 2), ("c", cell, 40.0, 0.3, 3),
                ("a", cell, -20.0, 2.0, 3)]  # fmt: skip
    out += [("dc", 2, 1.0, 0.5, 0), ("step", 2, 1.0, 0.1, 0), ("step", 3, 0.5, 1.0, 0)]
    return out
