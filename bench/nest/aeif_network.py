"""A small AdEx network on NEST 3.10 and on spikex, compared statistically.

400 aeif_cond_alpha (or aeif_cond_exp) cells, 320 excitatory and 80 inhibitory, each with
a fixed in-degree of 40 excitatory and 10 inhibitory sources (no autapses, multapses
allowed), delay 1.5 ms, and an independent Poisson drive per cell (poisson_generator),
1 s after 200 ms of warm-up, for several seeds on each side. The two simulators draw
different realizations of the same network (their random streams differ), so only
statistics can agree: the population's mean rate, mean CV of the inter-spike intervals
(cells with >= 5 spikes) and mean w at the end. Agreement: |spikex - NEST| of the means
over seeds below 3 combined standard errors of those means (the spread over seeds), plus
a floor of 2% of the value for quantities whose spread over seeds is tiny::

    python bench/nest/aeif_network.py [--model aeif_cond_alpha] [--seeds 1,2,3]

The NEST side runs with NEST's interpreter (this file, ``--nest``), the spikex side here.
Writes bench/results/aeif_network_<model>.json and prints the comparison.

The same network at other sizes (``build_nest`` / ``build_spikex`` with ``n_cells`` and
``probability``: 80 % excitatory, pairwise_bernoulli instead of the fixed in-degrees) is
the AdEx network that bench/nest/cond_networks_vs_nest.py times on both simulators and
bench/pynn/adex_network_pynn.py writes in PyNN.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

DT = 0.1
N_E, N_I = 320, 80
C_E, C_I = 40, 10
DELAY = 1.5
WARMUP, T_MEASURE = 200.0, 1000.0
CELL = {"t_ref": 2.0, "a": 2.0, "b": 40.0, "tau_syn_in": 2.0}
W_E, W_I = 1.0, -4.0  # nS
DRIVE_RATE, DRIVE_W = 14000.0, 2.0  # Hz, nS
MIN_SPIKES_FOR_CV = 5


def weights(model: str) -> tuple[float, float, float]:
    """W_E, W_I, DRIVE_W for `model`: aeif_cond_exp's are e times aeif_cond_alpha's, so that
    a spike's conductance has the same integral in both."""
    scale = float(np.e) if model == "aeif_cond_exp" else 1.0
    return W_E * scale, W_I * scale, DRIVE_W * scale


def statistics(cells: np.ndarray, times: np.ndarray, w_end: np.ndarray) -> dict:
    """Mean rate (Hz), mean CV of the ISIs and mean w at the end, per population."""
    keep = times > WARMUP
    cells, times = cells[keep], times[keep]
    out = {}
    for name, lo, hi in (("E", 0, N_E), ("I", N_E, N_E + N_I)):
        m = (cells >= lo) & (cells < hi)
        counts = np.bincount(cells[m] - lo, minlength=hi - lo)
        cvs = []
        order = np.lexsort((times[m], cells[m]))
        c, t = cells[m][order], times[m][order]
        bounds = np.searchsorted(c, np.arange(lo, hi + 1))
        for k in range(hi - lo):
            isi = np.diff(t[bounds[k] : bounds[k + 1]])
            if isi.size + 1 >= MIN_SPIKES_FOR_CV:
                cvs.append(isi.std() / isi.mean())
        out[name] = {
            "rate_hz": float(counts.mean() / (T_MEASURE / 1000.0)),
            "cv": float(np.mean(cvs)) if cvs else float("nan"),
            "w_pA": float(np.mean(w_end[lo:hi])),
        }
    return out


def build_nest(model: str, seed: int, n_cells: int = N_E + N_I, probability: float | None = None):
    """The network in NEST's kernel (reset first): its cells and a spike recorder on them.
    ``n_cells`` cells, 80 % excitatory; connections by fixed in-degrees C_E, C_I (the
    400-cell network) or, with ``probability``, pairwise_bernoulli from each population."""
    import nest

    nest.ResetKernel()
    nest.verbosity = nest.VerbosityLevel.ERROR
    nest.resolution = DT
    nest.rng_seed = seed
    n_e = round(0.8 * n_cells)
    cells = nest.Create(model, n_cells, params=CELL)
    cells.V_m = nest.random.uniform(-70.6, -55.0)
    exc, inh = cells[:n_e], cells[n_e:]
    rule = {"allow_autapses": False, "allow_multapses": True}
    w_e, w_i, w_drive = weights(model)
    for sources, c, w in ((exc, C_E, w_e), (inh, C_I, w_i)):
        if probability is None:
            conn = {"rule": "fixed_indegree", "indegree": c, **rule}
        else:
            conn = {"rule": "pairwise_bernoulli", "p": probability, "allow_autapses": False}
        nest.Connect(sources, cells, conn, {"weight": w, "delay": DELAY})
    drive = nest.Create("poisson_generator", params={"rate": DRIVE_RATE})
    nest.Connect(drive, cells, syn_spec={"weight": w_drive, "delay": DT})
    recorder = nest.Create("spike_recorder")
    nest.Connect(cells, recorder)
    return cells, recorder


def run_nest(model: str, seed: int) -> dict:
    import nest

    cells, recorder = build_nest(model, seed)
    nest.Simulate(WARMUP + T_MEASURE)
    events = recorder.get("events")
    first = cells[0].global_id
    return statistics(
        np.asarray(events["senders"]) - first,
        np.asarray(events["times"]),
        np.asarray(cells.get("w")),
    )


def build_spikex(model: str, seed: int, n_cells: int = N_E + N_I, probability: float | None = None):
    """The same network as ``build_nest`` described to spikex (not yet built): the
    Network, its cells; their spikes recorded."""
    import spikex as sx

    net = sx.Network(dt_ms=DT, seed=seed)
    n_e = round(0.8 * n_cells)
    cells = net.create(model, n_cells, params={**CELL, "V_m": sx.uniform(-70.6, -55.0)})
    exc, inh = cells[0:n_e], cells[n_e:n_cells]
    w_e, w_i, w_drive = weights(model)
    for sources, c, w in ((exc, C_E, w_e), (inh, C_I, w_i)):
        if probability is None:
            net.connect_rule("fixed_indegree", sources, cells, indegree=c, weight=w,
                             delay_ms=DELAY, allow_autapses=False)  # fmt: skip
        else:
            net.connect_rule("pairwise_bernoulli", sources, cells, probability=probability,
                             weight=w, delay_ms=DELAY, allow_autapses=False)  # fmt: skip
    drive = net.create("poisson_generator", 1, params={"rate": DRIVE_RATE})
    net.connect_rule("all_to_all", drive, cells, weight=w_drive, delay_ms=DT)
    net.record_spikes(cells)
    return net, cells


def run_spikex(model: str, seed: int) -> dict:
    net, cells = build_spikex(model, seed)
    net.record_state(
        cells, "w", interval_ms=WARMUP + T_MEASURE, start_ms=WARMUP + T_MEASURE - DT
    )  # the last step
    result = net.simulate(WARMUP + T_MEASURE)
    times = (np.asarray(result.spike_steps) + 1) * DT  # NEST's stamp of step n
    w_end = np.asarray(result.states[0]["values"])[-1]
    return statistics(np.asarray(result.spikes[0]) - cells.first_gid, times, w_end)


def compare(nest_runs: list[dict], spikex_runs: list[dict]) -> dict:
    rows, ok = [], True
    for pop in ("E", "I"):
        for key in ("rate_hz", "cv", "w_pA"):
            a = np.array([r[pop][key] for r in nest_runs])
            b = np.array([r[pop][key] for r in spikex_runs])
            se = np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
            bound = 3 * se + 0.02 * abs(a.mean())
            agree = bool(abs(b.mean() - a.mean()) <= bound)
            ok &= agree
            rows.append({"population": pop, "quantity": key, "nest": a.tolist(), "spikex": b.tolist(),
                         "nest_mean": a.mean(), "spikex_mean": b.mean(), "bound": bound, "agree": agree})  # fmt: skip
    return {"rows": rows, "agree": ok}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--model", default="aeif_cond_alpha", choices=("aeif_cond_alpha", "aeif_cond_exp")
    )
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument(
        "--nest", action="store_true", help="the NEST side (NEST's interpreter): JSON to stdout"
    )
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    if args.nest:
        print(json.dumps([run_nest(args.model, s) for s in seeds]))
        return 0
    sys.path.insert(0, str(HERE))
    import run_exact

    done = run_exact.run_nest_script(
        Path(__file__), args=["--nest", "--model", args.model, "--seeds", args.seeds]
    )
    if done.returncode != 0:
        raise SystemExit(done.stdout + done.stderr)
    nest_runs = json.loads(done.stdout.strip().splitlines()[-1])
    spikex_runs = [run_spikex(args.model, s) for s in seeds]
    report = {
        "model": args.model,
        "seeds": seeds,
        "cells": N_E + N_I,
        "t_measure_ms": T_MEASURE,
        **compare(nest_runs, spikex_runs),
    }
    for row in report["rows"]:
        print(f"{row['population']} {row['quantity']:8s} NEST {row['nest_mean']:9.3f}  spikex {row['spikex_mean']:9.3f}"
              f"  bound {row['bound']:.3f}  {'ok' if row['agree'] else 'DIFFERS'}")  # fmt: skip
    out = REPO / "bench" / "results" / f"aeif_network_{args.model}.json"
    out.write_text(json.dumps(report, indent=1) + "\n")
    return 0 if report["agree"] else 1


if __name__ == "__main__":
    sys.exit(main())
