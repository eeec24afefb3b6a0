"""The single-neuron protocols of aeif_cond_alpha_multisynapse and
aeif_cond_beta_multisynapse that both simulators run (NEST: nest_aeif_multisynapse.py;
spikex: tests/python/nest_validation/test_nest_aeif_multisynapse.py), 2 s each: neurons
with three receptor ports (an excitatory fast one, an inhibitory slower one, a shunting
slow one; beta's third has tau_rise = tau_decay, NEST's alpha limit), a spike train through
each port (spike_generator / spike_source_array: the same spikes in both), and on top a
constant, a step (step_current_generator) or a windowed (dc_generator) current, Delta_T = 0,
a refractory period, Naud et al. (2008)'s regular bursting; one neuron without synaptic
input."""

from __future__ import annotations

import numpy as np

from aeif_protocols import NEURONS as AEIF_NEURONS

DT = 0.1
T_SIM = 2000.0
MODELS = ("aeif_cond_alpha_multisynapse", "aeif_cond_beta_multisynapse")
PORTS = 3
VARIABLES = ("V_m", "w", "g_1", "g_2", "g_3")
LISTS = {
    "aeif_cond_alpha_multisynapse": {"E_rev": [0.0, -85.0, -30.0], "tau_syn": [0.2, 2.0, 6.0]},
    "aeif_cond_beta_multisynapse": {
        "E_rev": [0.0, -85.0, -30.0],
        "tau_rise": [0.2, 1.0, 3.0],
        "tau_decay": [1.0, 6.0, 3.0],
    },
}
NAUD_REGULAR_BURSTING = AEIF_NEURONS[8]  # Naud et al. (2008), Table 1
NEURONS = [
    {"I_e": 0.0},  # 0: the three trains alone
    {"I_e": 200.0},  # 1: trains and a step current
    {"I_e": 0.0, "t_ref": 2.0, "a": 2.0, "b": 40.0},  # 2: trains, a dc_generator window, refractory
    {"I_e": 300.0, "Delta_T": 0.0},  # 3: no exponential term, threshold V_th
    {**NAUD_REGULAR_BURSTING, "I_e": 150.0},  # 4: regular bursting, half-weight trains on top
    {"I_e": 800.0},  # 5: a constant current, no synaptic input
]
STEP_CURRENT = {
    "amplitude_times": [100.0, 600.0, 900.0, 1300.5],
    "amplitude_values": [500.0, 900.0, -300.0, 700.0],
    "start": 50.0,
    "stop": 1800.0,
}
DC = {"amplitude": 600.0, "start": 400.0, "stop": 1400.0}
RATES_HZ = (2000.0, 1000.0, 500.0)  # of the trains through ports 1, 2, 3
WEIGHTS = (12.0, 4.0, 2.0)  # nS, through ports 1, 2, 3
DELAYS = (1.0, 1.5, 0.3)  # ms


def port_trains(seed: int = 17) -> list[list[float]]:
    """One train per port, spike times on the grid at distinct steps (a source spikes at
    most once per step), like Poisson trains at RATES_HZ."""
    rng = np.random.default_rng(seed)
    steps = round(T_SIM / DT)
    trains = []
    for rate in RATES_HZ:
        count = round(rate * T_SIM / 1000.0)
        chosen = np.sort(rng.choice(np.arange(1, steps - 20), size=count, replace=False))
        trains.append([round(float(s) * DT, 10) for s in chosen])
    return trains


def connections() -> list[tuple[str, int, float, float, int]]:
    """(source, target neuron, weight nS or current factor, delay ms, receptor port; 0 for a
    current) in creation order: every train to neurons 0-4 (half the weight to 4), the step
    current to 1, the dc_generator to 2."""
    out = [("step", 1, 1.0, 0.1, 0), ("dc", 2, 1.0, 0.5, 0)]
    for target in range(5):
        for port in range(PORTS):
            scale = 0.5 if target == 4 else 1.0
            out.append((f"train{port + 1}", target, WEIGHTS[port] * scale, DELAYS[port], port + 1))
    return out
