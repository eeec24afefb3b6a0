"""The networks of bench/brian2 (issue 60), as plain numbers that every runner reads.

Shared by the spikex runners (Python 3.11, the package's venv) and the Brian2 runner
(Python >= 3.13, bench/brian2/.venv): no imports beyond the standard library.

``brunel``: the issue's Brunel-style current-based network. N = 5,000 IF_curr_exp cells at
``scale`` 1 (80 % excitatory), each cell's inputs drawn with probability p = 500 / N from
all cells (2.5 M synapses at N = 5,000; a scaled network keeps the in-degree, so that its
dynamics stay the same and only the work grows), delays uniform in [0.5, 2] ms, an
independent 1,100 Hz Poisson drive per cell, dt = 0.1 ms, 1 s.

``cuba``: the Vogels & Abbott (2005) CUBA benchmark as Brian2's example ``CUBA.py`` has it
(and PyNN's VAbenchmarks): 4,000 cells, 3,200 excitatory, p = 0.02, delay 0 in Brian2
(one step here: spikex's smallest delay is dt), E_L = -49 mV, dt = 0.1 ms, 1 s.
"""

from __future__ import annotations

BRUNEL = {
    "cells": 5000,
    "excitatory_fraction": 0.8,
    "indegree": 500,  # p = indegree / cells
    "tau_m_ms": 20.0,
    "cm_nF": 0.25,
    "v_rest_mV": -70.0,
    "v_reset_mV": -60.0,
    "v_thresh_mV": -50.0,
    "tau_refrac_ms": 2.0,
    "tau_syn_E_ms": 2.0,
    "tau_syn_I_ms": 2.0,
    "j_exc_nA": 0.1,  # excitatory weight, also the drive's
    "g": 5.0,  # inhibitory weight = -g * j_exc (E ~11 Hz, as in the issue)
    "drive_hz": 1100.0,
    "delay_min_ms": 0.5,
    "delay_max_ms": 2.0,
    "dt_ms": 0.1,
    "tstop_ms": 1000.0,
}

CUBA = {
    "cells": 4000,
    "excitatory": 3200,
    "probability": 0.02,
    "tau_m_ms": 20.0,
    "cm_nF": 0.2,  # any: weights are given as voltage jumps times cm / tau_syn (below)
    "v_rest_mV": -49.0,
    "v_reset_mV": -60.0,
    "v_thresh_mV": -50.0,
    "tau_refrac_ms": 5.0,
    "tau_syn_E_ms": 5.0,
    "tau_syn_I_ms": 10.0,
    # Brian2's CUBA.py: ge jumps by we = 60 * 0.27 / 10 mV, gi by wi = -20 * 4.5 / 10 mV,
    # and dv/dt = (ge + gi - (v - El)) / taum. As a current I = C * ge / tau_m: a jump of
    # we mV is a jump of cm * we / tau_m nA.
    "we_mV": 60 * 0.27 / 10,
    "wi_mV": -20 * 4.5 / 10,
    "dt_ms": 0.1,
    "tstop_ms": 1000.0,
}


def brunel(scale: float = 1.0) -> dict:
    """The Brunel network's parameters at ``scale`` (cells = 5,000 * scale)."""
    p = dict(BRUNEL)
    p["cells"] = int(round(BRUNEL["cells"] * scale))
    p["excitatory"] = int(round(p["cells"] * BRUNEL["excitatory_fraction"]))
    p["probability"] = BRUNEL["indegree"] / p["cells"]
    return p


def cuba_current_nA(jump_mV: float) -> float:
    """CUBA's weight as a current step (nA) that gives Brian2's jump of the input."""
    return CUBA["cm_nF"] * jump_mV / CUBA["tau_m_ms"]


NETWORKS = {
    "brunel5k": lambda: ("brunel", brunel(1.0)),
    "brunel20k": lambda: ("brunel", brunel(4.0)),
    "cuba": lambda: ("cuba", dict(CUBA)),
}
