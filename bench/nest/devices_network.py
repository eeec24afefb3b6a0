"""The small device network both simulators build (NEST: nest_devices.py; spikex:
tests/python/nest_validation/test_nest_devices.py): iaf_psc_exp neurons, a dc_generator
with a start and a stop, a spike source with times on several delays, one neuron with
tau_syn == tau_m."""

from __future__ import annotations

DT = 0.1
T_SIM = 60.0
NEURONS = [
    {"I_e": 0.0},
    {"I_e": 200.0},
    {"I_e": 120.0, "tau_syn_ex": 10.0, "tau_syn_in": 10.0},  # NEST's singular propagator
    {"I_e": 0.0, "V_th": -60.0, "t_ref": 1.5},
]
DC = {"amplitude": 380.0, "start": 5.0, "stop": 25.3}
DC_FROM_START = {"amplitude": 150.0}  # start = 0: NEST's first update (step 0) sends first
SOURCE_TIMES = [2.0, 3.1, 7.5, 12.0, 12.1, 30.0, 41.7]


def connections() -> list[tuple[str, int, float, float]]:
    """(device, target neuron, weight, delay ms) in creation order (dc0: DC_FROM_START)."""
    return [
        ("dc", 0, 1.5, 0.3),
        ("dc", 2, 1.0, 1.1),
        ("dc", 3, 0.4, 0.1),
        ("source", 1, 600.0, 0.7),
        ("source", 2, -300.0, 0.2),
        ("source", 3, 900.0, 2.0),
        ("source", 0, 1500.0, 1.3),
        ("dc0", 1, 1.0, 0.4),
        ("dc0", 3, 2.0, 0.1),
    ]
