"""Changes between runs that both simulators make (NEST: nest_changes.py with SetStatus
between Simulate calls; spikex: tests/python/nest_validation/test_nest_changes.py with
Network.set between simulate calls): iaf_psc_exp neurons fed by a dc_generator, a
poisson-free spike train and their own currents; after each segment a parameter, an
initial value (V_m now), E_L (V_m kept), a device's amplitude or a source's times change.
numpy-free, so both venvs import it."""

from __future__ import annotations

DT = 0.1
NEURONS = [{"I_e": 300.0}, {"I_e": 200.0}, {"I_e": 390.0, "tau_syn_ex": 10.0}, {"I_e": 0.0}]
DC = {"amplitude": 120.0}
SOURCE_TIMES = [3.0, 17.5, 40.2, 81.0, 130.3, 160.0, 222.2]
SEGMENTS_MS = [100.0, 80.0, 120.0]
# (after segment k, what, neuron index or None for a device, {name: value})
CHANGES = [
    (0, "neuron", 0, {"I_e": 450.0}),
    (0, "neuron", 1, {"E_L": -65.0}),  # V_m stays where it is (NEST's rule)
    (0, "neuron", 3, {"V_m": -56.0}),  # a state, set at once
    (0, "dc", None, {"amplitude": -80.0}),
    (1, "neuron", 2, {"tau_m": 15.0, "V_th": -52.0}),
    (1, "source", None, {"spike_times": [222.2, 240.0, 251.3]}),
    (1, "dc", None, {"amplitude": 260.0}),
]


def connections() -> list[tuple[str, int, float, float]]:
    """(device, target neuron, weight, delay ms) in creation order."""
    return [
        ("dc", 0, 1.0, 1.0),
        ("dc", 1, 1.5, 0.3),
        ("dc", 3, 1.0, 2.5),
        ("source", 1, 700.0, 0.5),
        ("source", 2, -400.0, 1.2),
        ("source", 3, 1200.0, 0.1),
    ]
