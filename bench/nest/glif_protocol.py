"""The glif_psc / glif_cond protocol both simulators run (NEST: glif.py; spikex:
tests/python/nest_validation/test_nest_glif.py): one cell per case, the five GLIF levels
with NEST's defaults and with other parameters, three receptor ports (and NEST's default
ports in one case), spike trains of both signs through every port, a dc and a step
current; 2 s at dt = 0.1 ms."""

from __future__ import annotations

import numpy as np

DT = 0.1
T_SIM = 2000.0

LEVELS = {  # (spike_dependent_threshold, after_spike_currents, adapting_threshold)
    "GLIF1": (False, False, False),
    "GLIF2": (True, False, False),
    "GLIF3": (False, True, False),
    "GLIF4": (True, True, False),
    "GLIF5": (True, True, True),
}
PORTS = {
    "glif_psc": {"tau_syn": [0.5, 3.0, 12.0]},
    "glif_cond": {"tau_syn": [0.5, 2.0, 8.0], "E_rev": [0.0, -80.0, -10.0]},
}
OTHER = {  # another membrane, threshold and after-spike currents
    "E_L": -70.0,
    "V_th": -50.0,
    "V_reset": -68.0,
    "g": 5.0,
    "C_m": 80.0,
    "t_ref": 2.0,
    "th_spike_add": 2.0,
    "th_spike_decay": 0.05,
    "voltage_reset_fraction": 0.5,
    "voltage_reset_add": 5.0,
    "th_voltage_index": 0.02,
    "th_voltage_decay": 0.2,
    "asc_decay": [0.01, 0.2],
    "asc_amps": [-20.0, -60.0],
    "asc_r": [0.5, 0.8],
    "V_m": -65.0,
}
# (level, parameters beyond the level's flags and the ports, baseline current pA)
CASES = [
    ("GLIF1", {}, 240.0),
    ("GLIF2", {}, 240.0),
    ("GLIF3", {}, 300.0),
    ("GLIF4", {}, 300.0),
    ("GLIF5", {}, 300.0),
    ("GLIF5", OTHER, 120.0),
    ("GLIF2", OTHER, 120.0),
    ("GLIF3", {"E_L": -70.0}, 150.0),  # V_th, V_reset and V_m not given: NEST keeps them, E_L moves
    (
        "GLIF4",
        {"default_ports": True},
        360.0,
    ),  # NEST's default tau_syn (and E_rev): every train through them
]


def cases(model: str) -> list[dict]:
    """Each cell's NEST parameters."""
    out = []
    for level, extra, _ in CASES:
        flags = dict(
            zip(
                ("spike_dependent_threshold", "after_spike_currents", "adapting_threshold"),
                LEVELS[level],
                strict=True,
            )
        )
        params = {**flags, **({} if extra.get("default_ports") else PORTS[model])}
        for name, value in extra.items():
            if name == "default_ports":
                continue
            params["g_m" if name == "g" and model == "glif_cond" else name] = value
        out.append(params)
    return out


def ports(case: dict, model: str) -> int:
    return len(case.get("tau_syn", [2.0] if model == "glif_psc" else [0.2, 2.0]))


def variables(case: dict, model: str) -> list[str]:
    common = ["V_m", "threshold", "threshold_spike", "threshold_voltage", "ASCurrents_sum", "I"]
    if model == "glif_psc":
        return common + ["I_syn"]
    return common + [f"g_{k}" for k in range(1, ports(case, model) + 1)]


def input_trains(seed: int = 11) -> dict[str, list[float]]:
    """Spike times on the grid, at most one per step and train (0.5 to 1.5 kHz)."""
    rng = np.random.default_rng(seed)
    steps = round(T_SIM / DT)
    trains = {}
    for name, count in (("a", 3000), ("b", 1500), ("c", 1000)):
        chosen = np.sort(rng.choice(np.arange(1, steps - 30), size=count, replace=False))
        trains[name] = [round(float(s) * DT, 10) for s in chosen]
    return trains


def connections(model: str) -> list[tuple[str, int, float, float, int]]:
    """(source, target case, weight, delay ms, receptor port; 0 for a current) in creation
    order: every train through every port of each cell (pA for glif_psc, nS for glif_cond;
    a cell with fewer ports takes them through its last), the baseline dc current (its
    weight the pA) and a step current."""
    w = {"glif_psc": (60.0, -40.0, 50.0, -15.0), "glif_cond": (0.8, 1.0, 0.6, 0.3)}[model]
    out = []
    for cell, case in enumerate(cases(model)):
        last = ports(case, model)
        out += [("a", cell, w[0], 1.0, 1), ("b", cell, w[1], 1.5, min(2, last)), ("c", cell, w[2], 0.3, min(3, last)),
                ("a", cell, w[3], 2.0, min(3, last))]  # fmt: skip
        out += [("dc", cell, CASES[cell][2], 0.5, 0), ("step", cell, 1.0, 0.1 * (1 + cell % 3), 0)]
    return out


# dc: 1 pA from 0 to T (the weight makes each cell's baseline); step: on top of it
DC = {"amplitude": 1.0}
STEP = {
    "amplitude_times": [100.0, 700.0, 1300.0, 1600.0],
    "amplitude_values": [80.0, -100.0, 150.0, 0.0],
}
