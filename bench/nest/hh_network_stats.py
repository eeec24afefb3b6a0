"""A small hh_cond_exp_traub network, NEST 3.10 against spikex, compared statistically.

Question: with the single-neuron dynamics equal to NEST's (test_nest_hh.py), does a
recurrent network of them give NEST's activity? 400 cells after Brette et al. (2007)'s
COBAHH (320 excitatory, 80 inhibitory; conductance weights 3 and 67 nS), each with a
fixed in-degree of 32 excitatory and 8 inhibitory inputs, 1 ms delays, and an
independent Poisson drive per cell (poisson_generator); E_L = -65 mV so that activity
needs the drive. Three seeds each. The two simulators draw different realizations of the
connectivity and of the drive (their random streams differ), so only statistics can
agree: per population the mean rate and the mean CV of the inter-spike intervals, each
seed's value, and the difference of the two simulators' means in units of its standard
error from the seed-to-seed spread (|z| < 3: agreement).

    python bench/nest/hh_network_stats.py [--write-docs]   # both sides: the markdown table,
                                                           # into docs/validation/nest.md

The NEST side is this file run by NEST's interpreter (`--nest SEED OUTPUT.npz`).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
N_E, N_I = 320, 80
K_E, K_I = 32, 8
W_E, W_I = 3.0, -67.0  # nS
DELAY = 1.0  # ms
DRIVE_HZ, DRIVE_W = 100.0, 6.0  # Poisson drive per cell: rate [Hz], weight [nS]
CELL = {"E_L": -65.0}
DT, T_SIM, T_SKIP = 0.1, 2200.0, 200.0
SEEDS = (1, 2, 3)
MIN_SPIKES_FOR_CV = 4


def nest_side(seed: int, output: str) -> None:
    import nest

    nest.verbosity = nest.VerbosityLevel.ERROR
    nest.ResetKernel()
    nest.set(resolution=DT, rng_seed=seed)
    cells = nest.Create("hh_cond_exp_traub", N_E + N_I, params=CELL)
    exc, inh = cells[:N_E], cells[N_E:]
    nest.Connect(
        exc, cells, {"rule": "fixed_indegree", "indegree": K_E}, {"weight": W_E, "delay": DELAY}
    )
    nest.Connect(
        inh, cells, {"rule": "fixed_indegree", "indegree": K_I}, {"weight": W_I, "delay": DELAY}
    )
    drive = nest.Create("poisson_generator", params={"rate": DRIVE_HZ})
    nest.Connect(drive, cells, syn_spec={"weight": DRIVE_W, "delay": DELAY})
    recorder = nest.Create("spike_recorder")
    nest.Connect(cells, recorder)
    nest.Simulate(T_SIM)
    events = recorder.get("events")
    first = cells[0].global_id
    steps = np.rint(np.asarray(events["times"]) / DT).astype(np.int64) - 1  # NEST stamps (n + 1)·dt
    np.savez(output, cells=np.asarray(events["senders"]) - first, steps=steps)


def spikex_side(seed: int) -> tuple[np.ndarray, np.ndarray]:
    import spikex as sx

    net = sx.Network(dt_ms=DT, seed=seed)
    cells = net.create("hh_cond_exp_traub", N_E + N_I, params=CELL)
    exc, inh = cells[:N_E], cells[N_E:]
    net.connect_rule("fixed_indegree", exc, cells, indegree=K_E, weight=W_E, delay_ms=DELAY)
    net.connect_rule("fixed_indegree", inh, cells, indegree=K_I, weight=W_I, delay_ms=DELAY)
    drive = net.create("poisson_generator", 1, params={"rate": DRIVE_HZ})
    net.connect(drive[0], cells, weight=DRIVE_W, delay_ms=DELAY)
    net.record_spikes(cells)
    result = net.simulate(T_SIM)
    return result.spikes[0] - cells.first_gid, result.spike_steps


def statistics(cells: np.ndarray, steps: np.ndarray) -> dict[str, dict[str, float]]:
    """Per population: mean rate [Hz] and mean CV of the ISIs over the cells with enough
    spikes, in [T_SKIP, T_SIM)."""
    keep = steps * DT >= T_SKIP
    cells, times = cells[keep], steps[keep] * DT
    out = {}
    for name, members in (("E", range(N_E)), ("I", range(N_E, N_E + N_I))):
        counts, cvs = [], []
        for c in members:
            t = np.sort(times[cells == c])
            counts.append(t.size)
            if t.size >= MIN_SPIKES_FOR_CV:
                isi = np.diff(t)
                cvs.append(float(np.std(isi) / np.mean(isi)))
        out[name] = {
            "rate_hz": float(np.mean(counts)) / ((T_SIM - T_SKIP) / 1000.0),
            "cv": float(np.mean(cvs)) if cvs else math.nan,
        }
    return out


def z_score(a: list[float], b: list[float]) -> float:
    se = math.sqrt(np.var(a, ddof=1) / len(a) + np.var(b, ddof=1) / len(b))
    return (np.mean(a) - np.mean(b)) / se if se > 0 else math.inf * np.sign(np.mean(a) - np.mean(b))


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--nest", nargs=2, metavar=("SEED", "OUTPUT"), help="run the NEST side (NEST's interpreter)"
    )
    parser.add_argument(
        "--write-docs", action="store_true", help="put the table into docs/validation/nest.md"
    )
    args = parser.parse_args()
    if args.nest:
        nest_side(int(args.nest[0]), args.nest[1])
        return 0
    import tempfile

    sys.path.insert(0, str(HERE))
    import run_exact

    runs = {"nest": [], "spikex": []}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in SEEDS:
            output = Path(tmp) / f"nest_{seed}.npz"
            done = run_exact.run_nest_script(
                Path(__file__), timeout=600, args=["--nest", str(seed), str(output)]
            )
            if done.returncode != 0:
                print(done.stdout + done.stderr, file=sys.stderr)
                return 1
            with np.load(output) as data:
                runs["nest"].append(statistics(data["cells"], data["steps"]))
            runs["spikex"].append(statistics(*spikex_side(seed)))
    seeds = ", ".join(str(s) for s in SEEDS)
    lines = [
        f"| population | figure | NEST (seeds {seeds}) | spikex (seeds {seeds}) | NEST mean | spikex mean | z |",
        "|---|---|---|---|---|---|---|",
    ]
    names = {"rate_hz": "rate [Hz]", "cv": "mean CV of ISIs"}
    for pop in ("E", "I"):
        for figure, digits in (("rate_hz", 2), ("cv", 3)):
            a = [r[pop][figure] for r in runs["nest"]]
            b = [r[pop][figure] for r in runs["spikex"]]
            shown = [", ".join(f"{x:.{digits}f}" for x in v) for v in (a, b)]
            lines.append(
                f"| {pop} | {names[figure]} | {shown[0]} | {shown[1]} | {np.mean(a):.{digits}f} "
                f"| {np.mean(b):.{digits}f} | {z_score(b, a):+.2f} |"
            )
    table = "\n".join(lines)
    print(table)
    if args.write_docs:
        from report import update_section

        update_section("hh_network_statistics", table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
