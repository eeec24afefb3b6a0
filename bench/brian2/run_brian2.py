"""One run of a bench/brian2 network on Brian2's C++ standalone device, as one JSON line.

    bench/brian2/.venv/bin/python bench/brian2/run_brian2.py NETWORK [--threads T] [--seed S]

(scripts/setup_brian2.sh makes the venv.) ``--threads 0``: no OpenMP (Brian2's default);
T >= 1: ``prefs.devices.cpp_standalone.openmp_threads = T``. Exact integration,
``PoissonInput`` for the Brunel drive (N = 1,100 sources at 1 Hz: a binomial count per
step, the usual form of an independent 1,100 Hz drive). The project is generated and
compiled in bench/brian2/.build/<network>-t<T> (reused by later runs: the compile is not
timed); ``loop_s`` is ``device._last_run_time``, the binary's own time of the run loop.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from networks import NETWORKS  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("network", choices=sorted(NETWORKS))
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    import brian2 as b2
    from brian2 import Hz, amp, mV, ms, nA, nF, second  # noqa: F401

    kind, p = NETWORKS[args.network]()
    directory = HERE / ".build" / f"{args.network}-t{args.threads}"
    b2.set_device("cpp_standalone", directory=str(directory), build_on_run=False)
    b2.prefs.devices.cpp_standalone.openmp_threads = args.threads
    b2.prefs.logging.file_log = False
    b2.seed(args.seed)
    b2.defaultclock.dt = p["dt_ms"] * ms
    n, ne = p["cells"], p["excitatory"]
    ns = {
        "tau_m": p["tau_m_ms"] * ms, "C_m": p["cm_nF"] * nF, "E_L": p["v_rest_mV"] * mV,
        "V_reset": p["v_reset_mV"] * mV, "V_th": p["v_thresh_mV"] * mV,
        "tau_e": p["tau_syn_E_ms"] * ms, "tau_i": p["tau_syn_I_ms"] * ms,
    }  # fmt: skip
    eqs = """
    dv/dt = (E_L - v) / tau_m + (I_e + I_i) / C_m : volt (unless refractory)
    dI_e/dt = -I_e / tau_e : amp
    dI_i/dt = -I_i / tau_i : amp
    """
    cells = b2.NeuronGroup(n, eqs, threshold="v > V_th", reset="v = V_reset",
                           refractory=p["tau_refrac_ms"] * ms, method="exact", namespace=ns)  # fmt: skip
    low = p["v_rest_mV"] if kind == "brunel" else p["v_reset_mV"]
    cells.v = f"({low} + rand() * ({p['v_thresh_mV'] - low})) * mV"
    objects = [cells]
    if kind == "brunel":
        j = p["j_exc_nA"] * nA
        ns.update(J_E=j, J_I=-p["g"] * j)
        for source, target_var, weight in ((cells[:ne], "I_e", "J_E"), (cells[ne:], "I_i", "J_I")):
            syn = b2.Synapses(source, cells, on_pre=f"{target_var} += {weight}", namespace=ns)
            syn.connect(p=p["probability"])
            lo, hi = p["delay_min_ms"], p["delay_max_ms"]
            syn.delay = f"({lo} + rand() * {hi - lo}) * ms"
            objects.append(syn)
        objects.append(b2.PoissonInput(cells, "I_e", N=1100, rate=p["drive_hz"] / 1100 * Hz, weight=j))
    else:
        # Brian2's CUBA.py: jumps of the input in mV; as currents, C_m * jump / tau_m.
        ns.update(W_E=p["cm_nF"] * nF * p["we_mV"] * mV / (p["tau_m_ms"] * ms),
                  W_I=p["cm_nF"] * nF * p["wi_mV"] * mV / (p["tau_m_ms"] * ms))  # fmt: skip
        for source, target_var, weight in ((cells[:ne], "I_e", "W_E"), (cells[ne:], "I_i", "W_I")):
            syn = b2.Synapses(source, cells, on_pre=f"{target_var} += {weight}", namespace=ns)
            syn.connect(p=p["probability"])
            objects.append(syn)
    monitor = b2.SpikeMonitor(cells)
    objects.append(monitor)
    net = b2.Network(*objects)
    net.run(p["tstop_ms"] * ms)
    started = time.perf_counter()
    b2.device.build(directory=str(directory), compile=True, run=True, debug=False, clean=False)
    wall = time.perf_counter() - started
    counts = monitor.count[:]
    seconds = p["tstop_ms"] / 1000.0
    out = {
        "network": args.network,
        "simulator": "brian2",
        "brian2": b2.__version__,
        "frontend": "cpp_standalone",
        "threads_asked": args.threads,
        "threads": max(1, args.threads),
        "openmp": args.threads > 0,
        "loop_s": float(b2.device._last_run_time),
        "build_and_run_s": round(wall, 3),
        "cells": n,
        "connections": int(sum(len(o) for o in objects if isinstance(o, b2.Synapses))),
        "spikes_total": int(counts.sum()),
        "rates_hz": {"E": round(float(counts[:ne].mean() / seconds), 3),
                     "I": round(float(counts[ne:].mean() / seconds), 3)},  # fmt: skip
        "binary_maxrss_mb": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1),
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
