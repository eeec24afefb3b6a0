"""The ac_generator and noise_generator networks both simulators build (NEST:
nest_current_devices.py; spikex: tests/python/nest_validation/test_nest_current_devices.py).

AC: iaf_psc_exp neurons driven by ac_generators (every parameter, windows with start, stop
and origin, several delays and weights, two generators on one neuron, one generator on
neurons at three delays), long enough for the sine's recurrence to drift from a closed-form
sine by many ulps.

NOISE: subthreshold iaf_psc_exp neurons driven by noise_generators: one from t = 0 with
NEST's default dt (1 ms) to many targets (statistics: mean, std, independence, the
membrane's mean and variance), one with a start, a stop, an origin and dt = 3 steps on
several delays (the steps of the redraws), one with a sine-modulated variance."""

from __future__ import annotations

DT = 0.1

# --- ac_generator --------------------------------------------------------------------
AC_T_SIM = 1000.0
AC_NEURONS = [
    {"I_e": 0.0},
    {"I_e": 100.0},
    {"I_e": 200.0, "tau_syn_ex": 10.0, "tau_syn_in": 10.0},
    {"I_e": 0.0, "V_th": -60.0, "t_ref": 1.5},
    {"I_e": 50.0, "tau_m": 20.0},
]
AC = [
    {"amplitude": 300.0, "offset": 100.0, "phase": 30.0, "frequency": 50.0},
    {
        "amplitude": 500.0,
        "offset": -50.0,
        "phase": -45.0,
        "frequency": 7.3,
        "start": 50.0,
        "stop": 700.0,
        "origin": 20.0,
    },
    {"amplitude": 200.0, "offset": 0.0, "phase": 90.0, "frequency": 1000.0 / 3.0},
    {
        "amplitude": 40.0,
        "offset": 250.0,
        "phase": 200.0,
        "frequency": 0.0,
        "start": 0.3,
        "stop": 0.9,
    },
]


def ac_connections() -> list[tuple[int, int, float, float]]:
    """(generator, target neuron, weight, delay ms) in creation order."""
    return [
        (0, 0, 1.0, 0.1),
        (0, 4, 0.8, 0.7),
        (0, 3, 1.2, 2.3),
        (1, 1, 1.0, 1.3),
        (1, 4, -0.5, 0.2),
        (2, 2, 2.5, 0.4),
        (2, 0, 0.5, 1.0),
        (3, 3, 1.0, 0.1),
        (3, 1, -2.0, 0.5),
    ]


# --- noise_generator -----------------------------------------------------------------
NOISE_T_SIM = 5000.0
NOISE_NEURON = {"I_e": 0.0}  # far below threshold: V_m is a filtered copy of the current
NOISE = [
    {"mean": 50.0, "std": 200.0},  # NEST's default dt = 1 ms
    {"mean": -20.0, "std": 100.0, "dt": 0.3, "start": 10.0, "stop": 4000.0, "origin": 5.0},
    {
        "mean": 0.0,
        "std": 150.0,
        "std_mod": 120.0,
        "frequency": 5.0,
        "phase": 60.0,
        "dt": 0.5,
        "start": 23.0,
    },
]
# (generator, number of targets, weight, delays in ms cycled over the targets)
NOISE_GROUPS = [
    (0, 24, 1.0, [0.1]),
    (1, 6, 1.0, [0.1, 0.2, 0.7]),
    (2, 8, 1.0, [0.3]),
]


def noise_targets() -> list[tuple[int, int, float, float]]:
    """(generator, target neuron, weight, delay ms) in creation order; neurons numbered
    group by group."""
    out, first = [], 0
    for generator, count, weight, delays in NOISE_GROUPS:
        for k in range(count):
            out.append((generator, first + k, weight, delays[k % len(delays)]))
        first += count
    return out


NOISE_NEURONS = sum(count for _, count, _, _ in NOISE_GROUPS)
