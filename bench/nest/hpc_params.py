"""Parameters of NEST's hpc_benchmark (shared/spec/hpc_benchmark.md), numpy only.

Shared by the NEST side (``nest_hpc_benchmark.py``) and the spikex side
(``spikex_hpc.py``) so both build the same network.
"""

from __future__ import annotations

import math

NE_FULL = 9000
NI_FULL = 2250
EXCITATORY_SHARE = 0.8  # CE = 0.8 K, CI = 0.2 K
DELAY_MS = 1.5
RESOLUTION_MS = 0.1
G = -5.0
ETA = 1.685
J_PSP_MV = 0.14  # excitatory PSP peak
V0_MEAN_MV = 5.7
V0_STD_MV = 7.2

NEURON = {
    "E_L": 0.0,
    "C_m": 250.0,
    "tau_m": 10.0,
    "t_ref": 0.5,
    "V_th": 20.0,
    "V_reset": 0.0,
    "tau_syn_ex": 0.32582722403722841,
    "tau_syn_in": 0.32582722403722841,
    "tau_minus": 30.0,
}
STDP = {"alpha": 0.0513, "lambda": 0.1, "mu": 0.4, "tau_plus": 15.0}


def psp_peak_per_pa(
    tau_m: float = NEURON["tau_m"], tau_s: float = NEURON["tau_syn_ex"], c_m: float = NEURON["C_m"]
) -> float:
    """Peak of the PSP (mV) of an alpha PSC with 1 pA peak amplitude.

    The alpha current I(t) = (e / tau_s) t exp(-t / tau_s) filtered by the membrane
    (tau_m, C_m) gives V(t) = e / (tau_s C_m b) [ (exp(-t/tau_m) - exp(-t/tau_s)) / b
    - t exp(-t/tau_s) ], b = 1/tau_s - 1/tau_m. Its maximum is found by bisection on
    dV/dt (which changes sign once, at the peak); NEST's example uses the Lambert W
    closed form for the same point.
    """
    b = 1.0 / tau_s - 1.0 / tau_m

    def v(t: float) -> float:
        return (
            math.e
            / (tau_s * c_m * b)
            * ((math.exp(-t / tau_m) - math.exp(-t / tau_s)) / b - t * math.exp(-t / tau_s))
        )

    def dv(t: float) -> float:
        return (
            math.e
            / (tau_s * c_m * b)
            * (
                (-math.exp(-t / tau_m) / tau_m + math.exp(-t / tau_s) / tau_s) / b
                - math.exp(-t / tau_s) * (1.0 - t / tau_s)
            )
        )

    low, high = 1e-9, 50.0 * tau_s
    for _ in range(200):
        mid = 0.5 * (low + high)
        if dv(mid) > 0.0:
            low = mid
        else:
            high = mid
    return v(0.5 * (low + high))


def je_pa() -> float:
    """Excitatory weight in pA for a 0.14 mV PSP peak (45.6096 pA)."""
    return J_PSP_MV / psp_peak_per_pa()


def poisson_rate_hz(k: int = 11250) -> float:
    """External Poisson rate per neuron, eta * nu_thresh * CE * 1000 (independent of K)."""
    ce = round(EXCITATORY_SHARE * k)
    je = je_pa()
    nu_thresh = NEURON["V_th"] / (
        ce * NEURON["tau_m"] / NEURON["C_m"] * je * math.e * NEURON["tau_syn_ex"]
    )
    return ETA * nu_thresh * ce * 1000.0


def sizes(scale: float, k: int) -> dict:
    ne = int(NE_FULL * scale)  # truncation, as spikex and NEST's example
    ni = int(NI_FULL * scale)
    ce = round(EXCITATORY_SHARE * k)
    return {"NE": ne, "NI": ni, "N": ne + ni, "CE": ce, "CI": k - ce, "K": k}


def add_block_arguments(parser) -> None:
    """Options of both benchmark scripts for running the measured time in blocks."""
    parser.add_argument(
        "--block-ms", type=float, default=0.0, help="report the rate every this many ms [0: once]"
    )
    parser.add_argument(
        "--block-weights", action="store_true", help="also the mean E→E weight per block"
    )
    parser.add_argument(
        "--stop-above-hz", type=float, default=0.0, help="stop after a block above this rate [0: never]"
    )


def block_lengths(tsim_ms: float, block_ms: float) -> list[float]:
    """tsim split into blocks of block_ms (the last one shorter); one block if block_ms <= 0."""
    if block_ms <= 0.0 or block_ms >= tsim_ms:
        return [tsim_ms]
    count = int(math.floor(tsim_ms / block_ms + 1e-9))
    lengths = [block_ms] * count
    rest = tsim_ms - count * block_ms
    return lengths + ([rest] if rest > 1e-9 else [])


def block_entry(t_end_ms: float, spikes: int, n: int, length_ms: float) -> dict:
    return {"t_end_ms": t_end_ms, "spikes": spikes, "rate_hz": spikes / n / (length_ms / 1000.0)}


def ran_away(block: dict, stop_above_hz: float) -> bool:
    return stop_above_hz > 0.0 and block["rate_hz"] > stop_above_hz


if __name__ == "__main__":
    print(f"JE = {je_pa():.4f} pA, Poisson rate = {poisson_rate_hz():.1f} Hz")
