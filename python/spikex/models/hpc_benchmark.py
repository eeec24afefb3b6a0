"""NEST's hpc_benchmark network (Jordan et al. 2018, section 2.1) built with spikex.

Every number comes from ``spec/hpc_benchmark.md``: NE = 9000·scale excitatory and
NI = 2250·scale inhibitory ``iaf_psc_alpha`` neurons; each neuron receives ``indegree_e``
excitatory and ``indegree_i`` inhibitory inputs (fixed in-degree, multapses allowed, no
autapses); excitatory weight JE from a 0.14 mV PSP peak, inhibitory g·JE; delay 1.5 ms;
E→E synapses ``stdp_pl_synapse_hom`` when plastic; an independent Poisson drive per
neuron at eta·nu_thresh·CE·1000 Hz; initial V_m ~ normal(5.7, 7.2) mV.

Connection sets are made in NEST's order: E→E, E→I, I→(E ∪ I).
"""

from __future__ import annotations

import dataclasses
import math

from ..errors import ConfigError

TAU_SYN_MS = 0.32582722403722841

NEURON_PARAMS: dict[str, float] = {
    "E_L": 0.0,
    "C_m": 250.0,
    "tau_m": 10.0,
    "t_ref": 0.5,
    "V_th": 20.0,
    "V_reset": 0.0,
    "tau_syn_ex": TAU_SYN_MS,
    "tau_syn_in": TAU_SYN_MS,
    "I_e": 0.0,
    "V_m": 5.7,
    "V_m_sd": 7.2,
}


def lambert_w_minus_one(x: float) -> float:
    """The lower branch W_{-1}(x) for -1/e <= x < 0 (Halley's iteration).

    >>> round(lambert_w_minus_one(-0.1), 6)
    -3.577152
    """
    if not -1.0 / math.e <= x < 0.0:
        raise ValueError(f"lambert_w_minus_one: x = {x}: must be in [-1/e, 0)")
    if x == -1.0 / math.e:
        return -1.0
    # Start near the branch point or from the asymptotic form, then converge.
    w = -1.0 - math.sqrt(2.0 * (1.0 + math.e * x)) if x < -0.25 else math.log(-x) - math.log(-math.log(-x))
    for _ in range(100):
        ew = math.exp(w)
        f = w * ew - x
        step = f / (ew * (w + 1.0) - (w + 2.0) * f / (2.0 * w + 2.0))
        w -= step
        if abs(step) <= 1e-15 * abs(w):
            break
    return w


def psc_amplitude_pA(psp_mV: float, tau_m: float, tau_syn: float, c_m: float) -> float:
    """PSC amplitude (pA) whose alpha-shaped current gives a PSP peak of ``psp_mV``.

    The PSP of a unit alpha current peaks at t_rise, found with the Lambert W function.

    >>> round(psc_amplitude_pA(0.14, 10.0, TAU_SYN_MS, 250.0), 4)
    45.6096
    """
    a = tau_m / tau_syn
    b = 1.0 / tau_syn - 1.0 / tau_m
    t_rise = (1.0 / b) * (-lambert_w_minus_one(-math.exp(-1.0 / a) / a) - 1.0 / a)
    v_max = (
        math.e
        / (tau_syn * c_m * b)
        * (
            (math.exp(-t_rise / tau_m) - math.exp(-t_rise / tau_syn)) / b
            - t_rise * math.exp(-t_rise / tau_syn)
        )
    )
    return psp_mV / v_max


def poisson_rate_hz(eta: float, indegree_e: int, je_pA: float) -> float:
    """Drive rate per neuron: eta · nu_thresh · CE · 1000 (about 20,856 Hz)."""
    p = NEURON_PARAMS
    nu_thresh = p["V_th"] * p["C_m"] / (je_pA * indegree_e * math.e * p["tau_m"] * TAU_SYN_MS)
    return 1000.0 * eta * nu_thresh * indegree_e


def build(network, config: dict, get) -> tuple:
    """Create the populations and connections in ``network``; returns (E, I)."""
    scale = get(config, "network.scale")
    n_e, n_i = int(9000 * scale), int(2250 * scale)
    if n_e < 1 or n_i < 1:
        raise ConfigError(
            "network.scale", scale, "too small: needs at least one excitatory and one inhibitory neuron"
        )
    section = "network.hpc_benchmark"
    je = psc_amplitude_pA(get(config, f"{section}.psp_mV"), NEURON_PARAMS["tau_m"], TAU_SYN_MS, NEURON_PARAMS["C_m"])
    ce, ci = get(config, "network.indegree_e"), get(config, "network.indegree_i")
    params = dict(NEURON_PARAMS)
    params["tau_minus"] = get(config, f"{section}.tau_minus_ms")
    params["poisson_rate_hz"] = poisson_rate_hz(get(config, f"{section}.eta"), ce, je)
    params["poisson_weight"] = je
    exc = network.create("iaf_psc_alpha", n_e, params=params, name="E")
    inh = network.create("iaf_psc_alpha", n_i, params=params, name="I")
    # E and I are consecutive: one population of both (the network's own type, so that
    # this builder needs nothing from the API layer above it).
    everyone = dataclasses.replace(exc, size=n_e + n_i, name="E+I")
    delay = get(config, f"{section}.delay_ms")
    plastic = get(config, "network.plastic")
    stdp = {
        "alpha": get(config, f"{section}.stdp_alpha"),
        "lambda": get(config, f"{section}.stdp_lambda"),
        "mu": get(config, f"{section}.stdp_mu"),
        "tau_plus": get(config, f"{section}.stdp_tau_plus_ms"),
    }
    # NEST's hpc_benchmark: multapses allowed, autapses not.
    flags = {"allow_autapses": False, "allow_multapses": True}
    network.connect_rule(
        "fixed_indegree", exc, exc, indegree=ce, weight=je, delay_ms=delay,
        synapse="stdp_pl_synapse_hom" if plastic else "static",
        synapse_params=stdp if plastic else None, **flags,
    )
    network.connect_rule("fixed_indegree", exc, inh, indegree=ce, weight=je, delay_ms=delay, **flags)
    g = get(config, f"{section}.g")
    network.connect_rule("fixed_indegree", inh, everyone, indegree=ci, weight=g * je, delay_ms=delay, **flags)
    return exc, inh
