"""Every neuron model of NESTML 9.0.0's own library (models/neurons/ of the nestml package)
through spikex's NESTML generator: built or refused (and why), and for the built ones a
single-cell run under a Poisson drive; where spikex has the built-in model, the same input
through both: the same spike steps or not, and V_m's largest difference.

    python bench/nestml_library.py [--cache DIR] [--only NAME ...]

Writes bench/results/nestml_library.json and docs/validation/nestml.md (`make
bench-nestml`). The issue's validation table (issue 57): which models build and run, which
do not and why.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from importlib import metadata
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results" / "nestml_library.json"
PAGE = REPO / "docs" / "validation" / "nestml.md"
STANDALONE = REPO / "bench" / "results" / "nestml_standalone.json"  # bench/nestml_standalone.py
STEP_COSTS = REPO / "bench" / "results" / "nestml_step_cost_*.json"  # bench/nestml_step_cost.py

# NESTML model -> (spikex's built-in model, drive weight, the built-in's parameters, the
# NESTML model's parameters): the same dynamics where the defaults differ (NEST's aeif
# models have t_ref = 0, NESTML's refr_T = 2 ms); for the built-ins on GSL's "standard"
# control with absolute error 1e-3 (iaf_cond_*, hh_*), the NESTML model takes the same
# bound (gsl_abs_error_tol = 1e-3, gsl_rel_error_tol = 0) so both integrate with the same
# scheme and tolerance; the aeif built-ins' control is derivative-weighted (NEST's), which
# NESTML's NEST target does not use: the NESTML model keeps its defaults (1e-6, 1e-6).
SAME_BOUND = {"gsl_abs_error_tol": 1e-3, "gsl_rel_error_tol": 0.0}
BUILTIN = {
    "iaf_psc_exp_neuron": ("iaf_psc_exp", 60.0, {}, {}),
    "iaf_psc_alpha_neuron": ("iaf_psc_alpha", 60.0, {}, {}),
    "iaf_psc_delta_neuron": ("iaf_psc_delta", 1.0, {}, {}),
    "aeif_cond_exp_neuron": ("aeif_cond_exp", 6.0, {"t_ref": 2.0}, {}),
    "aeif_cond_alpha_neuron": ("aeif_cond_alpha", 3.0, {"t_ref": 2.0}, {}),
    "iaf_cond_exp_neuron": ("iaf_cond_exp", 6.0, {}, SAME_BOUND),
    "iaf_cond_alpha_neuron": ("iaf_cond_alpha", 3.0, {}, SAME_BOUND),
    "iaf_cond_exp_sfa_rr_neuron": ("iaf_cond_exp_sfa_rr", 6.0, {}, SAME_BOUND),
    "hh_psc_alpha_neuron": ("hh_psc_alpha", 60.0, {}, SAME_BOUND),
    "hh_cond_exp_traub_neuron": ("hh_cond_exp_traub", 6.0, {}, SAME_BOUND),
    "izhikevich_neuron": ("izhikevich", 2.0, {}, {}),
}

# The drive's weight of the models without a built-in counterpart (default 60: pA): a
# conductance in nS for the conductance-based ones, more current for the AdEx ones.
WEIGHT = {
    "aeif_cond_alpha_alt_neuron": 3.0,
    "aeif_psc_alpha_neuron": 400.0,
    "aeif_psc_exp_neuron": 400.0,
    "iaf_chxk_2008_neuron": 6.0,
    "iaf_cond_beta_neuron": 3.0,
    "izhikevich_psc_alpha_neuron": 400.0,
    "terub_gpe_neuron": 0.05,  # C_m 1 pF, g_L 0.1 nS: 0.5 nS already drives V_m beyond 1000 mV
    "terub_stn_neuron": 0.1,  # C_m 1 pF, g_L 2.25 nS
    "traub_cond_multisyn_neuron": 3.0,
    "traub_psc_alpha_neuron": 5.0,  # g_Na 10,000 nS into 100 pF: stiff under a stronger drive
    "wb_cond_exp_neuron": 3.0,
    "wb_cond_multisyn_neuron": 3.0,
}

# What a reader of the table needs to know about a model's result.
NOTES = {
    "iaf_psc_exp_htum_neuron": "no spikes, as the model is written: its update decrements `r_tot` whenever the "
    "threshold test fails, so `r_tot` goes below 0 and `r_tot == 0` never holds again (NESTML's NEST target "
    "runs the same statements)",
    "ignore_and_fire_neuron": "fires at `firing_rate` whatever its input, as designed",
    "aeif_cond_exp_neuron": "NESTML's model tests `V_m >= V_peak` after the step (`onCondition`), NEST's "
    "`aeif_cond_exp` between sub-steps, and NESTML's step control bounds the error relative to y, NEST's "
    "relative to dt·y': a spike whose crossing falls inside a step comes a step later (and the trace after it "
    "differs by a spike's height)",
    "aeif_cond_alpha_neuron": "as `aeif_cond_exp_neuron`; a spike a step later also moves the adaptation and "
    "so the spikes after it",
    "iaf_cond_exp_neuron": "at the built-in's error bound (1e-3 absolute) the same scheme on the same "
    "equations: the same spikes; V_m differs by NESTML's order of operations within that bound",
    "hh_cond_exp_traub_neuron": "V_m the same within the bound (the integration agrees); the spike test differs: "
    "NESTML's refractory timer (`refr_t` set to 2 ms, `refr_t <= 0` allows the next spike) lets a spike come "
    "2.0 ms after the last, NEST's count of steps 2.1 ms after it, so under this drive NESTML's model fires "
    "spikes NEST's skips, and the pairing of the rest shifts",
    "iaf_cond_exp_sfa_rr_neuron": "NESTML's model integrates only `refr_t` while refractory (`integrate_odes(refr_t)`), "
    "so `g_sfa` and `g_rr` do not decay then; NEST's keeps integrating them (V_m clamped)",
    "izhikevich_neuron": "NEST's `izhikevich` (and spikex's) is forward Euler at dt; NESTML's model is RKF45 "
    "on the same equations: other trajectories",
}


INPUT = ("500 ms, dt 0.1 ms; a Poisson train of 12 kHz into two cells: +w into one, -w and +w into the other "
         "(models with receptor ports: +w into port 1 of both, and into port 3 of the second)")  # fmt: skip


def library() -> list[Path]:
    files = [Path(f.locate()).resolve() for f in metadata.files("nestml") or []
             if "models/neurons/" in str(f) and str(f).endswith(".nestml")]  # fmt: skip
    return sorted(files)


def run(model: str, weight: float, record: str, params: dict | None = None) -> dict:
    import spikex as sx

    net = sx.Network(dt_ms=0.1, seed=3)
    cells = net.create(model, 2, params=params or {})
    drive = net.create("poisson_generator", 1, params={"rate": 12000.0})
    if sx.models.MODELS[model].get("has_receptor_ports"):
        # receptor types: +w into port 1 of both cells, and into port 3 of the second
        # (the multisynapse models' first inhibitory receptor: GABA_A)
        net.connect(drive[0], cells[0], weight=weight, delay_ms=0.1, receptor=1)
        net.connect(drive[0], cells[1], weight=weight, delay_ms=0.1, receptor=3)
        net.connect(drive[0], cells[1], weight=weight, delay_ms=0.2, receptor=1)
    else:
        net.connect(drive[0], cells[0], weight=weight, delay_ms=0.1)
        net.connect(drive[0], cells[1], weight=-weight, delay_ms=0.1)
        net.connect(drive[0], cells[1], weight=weight, delay_ms=0.2)
    net.record_spikes(cells)
    net.record_state(cells, record)
    result = net.simulate(500.0)
    gids, times = result.spikes
    return {
        "spikes": int(result.summary["spikes_total"]),
        "sha256": result.summary["spikes_sha256"],
        "trace": np.asarray(result.states[0]["values"]),
        "times": [np.sort(times[gids == c]) for c in (0, 1)],
    }


def spike_differences(ours: dict, theirs: dict) -> dict:
    """Per cell, the spikes taken in order: how many fall on another step, the largest shift."""
    moved, largest, unmatched = 0, 0.0, 0
    for a, b in zip(ours["times"], theirs["times"]):
        n = min(len(a), len(b))
        shift = np.abs(a[:n] - b[:n])
        moved += int((shift > 1e-9).sum())
        largest = max(largest, float(shift.max()) if n else 0.0)
        unmatched += abs(len(a) - len(b))
    return {
        "spikes_moved": moved,
        "largest_shift_ms": round(largest, 6),
        "spike_count_difference": unmatched,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=REPO / "build" / "nestml-cache")
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--page-only", action="store_true", help="rewrite the page from the JSON")
    args = parser.parse_args()
    if args.page_only:
        PAGE.write_text(page(json.loads(RESULTS.read_text())))
        return 0
    import spikex as sx
    from spikex.nestml import NESTML_VERSION, build

    rows = []
    for path in library():
        name = path.stem
        if args.only and name not in args.only:
            continue
        row = {"model": name}
        start = time.perf_counter()
        try:
            built = build(path, args.cache)
            row["build_s"] = round(time.perf_counter() - start, 1)
            sx.models.load_nestml(built.library)
            state = sx.models.MODELS[built.name]["state_specs"][0]["name"]
            record = (
                "V_m"
                if any(s["name"] == "V_m" for s in sx.models.MODELS[built.name]["state_specs"])
                else state
            )
            builtin, weight, builtin_params, nestml_params = BUILTIN.get(
                name, (None, WEIGHT.get(name, 60.0), {}, {})
            )
            try:
                ours = run(built.name, weight, record, nestml_params)
            except sx._core.SimulationError as error:
                row.update(status="failed", weight=weight, reason=str(error))
                rows.append(row)
                print(json.dumps(row), flush=True)
                continue
            row.update(
                status="built",
                spikes=ours["spikes"],
                recorded=record,
                integration=sx.models.MODELS[built.name]["integration"],
                weight=weight,
            )
            if builtin:
                theirs = run(builtin, weight, "V_m", builtin_params)
                row.update(
                    builtin=builtin,
                    weight=weight,
                    builtin_params=builtin_params,
                    nestml_params=nestml_params,
                    same_spikes=ours["sha256"] == theirs["sha256"],
                    builtin_spikes=theirs["spikes"],
                    max_V_m_difference_mV=float(np.abs(ours["trace"] - theirs["trace"]).max()),
                    **spike_differences(ours, theirs),
                )
        except ValueError as error:
            row.update(
                status="refused",
                build_s=round(time.perf_counter() - start, 1),
                reason=str(error).split(" uses ", 1)[-1],
            )
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.only:
        return 0
    result = {
        "nestml": NESTML_VERSION,
        "spikex": sx.__version__,
        "host": platform.node(),
        "input": INPUT,
        "models": rows,
    }
    RESULTS.write_text(json.dumps(result, indent=1) + "\n")
    PAGE.write_text(page(result))
    print(f"{RESULTS.relative_to(REPO)}, {PAGE.relative_to(REPO)}")
    return 0


def page(result: dict) -> str:
    rows = result["models"]
    built = [r for r in rows if r["status"] == "built"]
    failed = [r for r in rows if r["status"] == "failed"]
    lines = [
        "# NESTML's model library on spikex",
        "",
        f"Every neuron model of NESTML {result['nestml']}'s own library (`models/neurons/` of",
        "the `nestml` package) through spikex's NESTML generator ([](../user/nestml.md)):",
        f"{len(built)} of {len(rows)} build and run"
        + (f", {len(failed)} build but stop under this input" if failed else "")
        + (
            "; the others are refused, naming what the generator does not support yet."
            if len(built) + len(failed) < len(rows)
            else "."
        ),
        "Generated by `bench/nestml_library.py`",
        "(`make bench-nestml`) from `bench/results/nestml_library.json`; do not edit.",
        "",
        f"Input: {result['input']} (w per model: the table's weight). Where spikex has the",
        "model built in, the same input through both: the same spike steps (`spikes_sha256`)",
        "or how many spikes fall on another step (each cell's spikes taken in order) and the",
        "largest shift, and V_m's largest difference over the run (a spike a step off makes",
        "that the height of a spike). Linear models use ODE-toolbox's propagators (other",
        "expressions than NEST's, so not bit-identical); nonlinear ones NEST's RKF45 scheme",
        "(`rkf45_integrator`) on NESTML's right-hand side, in NESTML's order of a step (the",
        "spike test after the step; NEST's aeif models test between sub-steps).",
        "",
        "| model | status | build (s) | spikes | built-in (its spikes) | w | settings | same spikes | spikes on another step (largest shift, ms) | max V_m difference (mV) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if r["status"] == "built":
            if "builtin" in r:
                same = "yes" if r["same_spikes"] else "**no**"
                settings = "; ".join(
                    [f"built-in {k} = {v:g}" for k, v in r.get("builtin_params", {}).items()]
                    + [f"{k} = {v:g}" for k, v in r.get("nestml_params", {}).items()]
                )
                moved = r.get("spikes_moved")
                moved = "" if moved is None else (
                    f"{moved} ({r['largest_shift_ms']:g})"
                    + (f"; {r['spike_count_difference']} unmatched" if r["spike_count_difference"] else "")
                )  # fmt: skip
                lines.append(
                    f"| `{r['model']}` | built | {r['build_s']} | {r['spikes']} | {r['builtin']} ({r['builtin_spikes']}) "
                    f"| {r.get('weight', '')} | {settings} | {same} | {moved} | {r['max_V_m_difference_mV']:.1e} |"
                )
            else:
                lines.append(
                    f"| `{r['model']}` | built | {r['build_s']} | {r['spikes']} | | {r.get('weight', '')} | | | | |"
                )
        elif r["status"] == "failed":
            lines.append(
                f"| `{r['model']}` | built; the run stopped: {r['reason']} | {r['build_s']} | | | {r['weight']} | | | | |"
            )
        else:
            reason = r["reason"].replace("|", "\\|").split(", which spikex")[0]
            lines.append(f"| `{r['model']}` | refused: {reason} | {r['build_s']} | | | | | | | |")
    notes = [f"* `{r['model']}`: {NOTES[r['model']]}." for r in rows if r["model"] in NOTES]
    lines += ["", *notes] if notes else []
    lines += ["", "Build times include NESTML's analysis (sympy) and one compile, on a 2-core host",
              "shared with other work; a cached build is a look-up (0.0: the library was in the",
              "cache from an earlier run of the same generator)."]  # fmt: skip
    if STANDALONE.is_file():
        lines += standalone_section(json.loads(STANDALONE.read_text()))
    costs = sorted(STEP_COSTS.parent.glob(STEP_COSTS.name))
    if costs:
        lines += step_cost_section([json.loads(path.read_text()) for path in costs])
    return "\n".join(lines) + "\n"


def step_cost_section(results: list[dict]) -> list[str]:
    """What a built model costs against the built-in one (bench/nestml_step_cost.py)."""
    lines = [
        "",
        "## What a built model costs",
        "",
        "A network of NESTML's model against the same network of spikex's built-in one, simulated",
        "alternately on one thread, best of the runs (`bench/nestml_step_cost.py`, from",
        "`bench/results/nestml_step_cost_*.json`). Issue 57's goal: within 1.2x in the",
        "hpc_benchmark-style network. `hpc_benchmark`: 11,250 cells, 1,600 E and 400 I inputs",
        "each (delivery is most of a step); `sparse`: 20,000 cells, 40 E and 10 I inputs each",
        "(the cell update is most of a step: the worst case for a generated model).",
        "",
        "| model | network | ms | spikes | built-in (s) | NESTML (s) | ratio | ≤ 1.2x | same spikes | load | measured |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    order = {"hpc_benchmark": 0, "sparse": 1}
    for r in sorted(results, key=lambda r: (r["model"], order.get(r["network"], 2))):
        builtin, nestml = sorted(r["best_seconds"].items(), key=lambda kv: kv[0] != r["model"])
        met = "yes" if r["ratio"] <= 1.2 else "no"
        lines.append(
            f"| `{r['model']}` | {r['network']} | {r['simulated_ms']:g} | {r['spikes']:,} | {builtin[1]:.3f} "
            f"| {nestml[1]:.3f} | {r['ratio']:.2f} | {met} | {'yes' if r['same_spikes'] else 'no'} "
            f"| {r['load_at_end']:.1f} | {r['date']} |"
        )
    lines += ["", "The aeif models are not the same work: NESTML's aeif_cond_exp_neuron tests the spike",
              "once per step and its step control needs no derivative at a sub-step's end (NEST's",
              "aeif_cond_exp does both per sub-step), so their spikes differ (above) and NESTML's",
              "can be the faster. A linear NESTML model's update runs cell by cell (its state per",
              "cell in one struct); the built-in iaf_psc_exp updates its cells in vector registers,",
              "which is what the sparse network shows."]  # fmt: skip
    return lines


def standalone_section(result: dict) -> list[str]:
    """The comparison with NESTML's python_standalone target (bench/nestml_standalone.py)."""
    lines = [
        "",
        "## Against NESTML's Python stand-alone target",
        "",
        f"The same models generated by NESTML {result['nestml']}'s `python_standalone` target (it runs",
        "without NEST; numerical ODEs with SciPy's `solve_ivp` RK45 at its default tolerances,",
        "rtol 1e-3, atol 1e-6, per step) and built for spikex, one cell each under the same",
        f"input for {result['t_ms']:g} ms at dt = {result['dt_ms']} ms: a constant I_e and spikes on its ports at fixed",
        "steps (the first change of V_m falls on the same step in both). From",
        "`bench/results/nestml_standalone.json` (`bench/nestml_standalone.py`, `make bench-nestml`);",
        "`tests/python/nestml/test_nestml_standalone.py` checks two of them.",
        "",
        "| model | I_e (pA) | spikes (spikex / stand-alone) | same spike steps | max V_m difference (mV) | away from spikes (> 1 ms) |",
        "|---|---|---|---|---|---|",
    ]
    for r in result["rows"]:
        same = "yes" if r["spikes"]["spikex"] == r["spikes"]["standalone"] else f"no (largest shift {r['largest_spike_step_difference']} steps)"
        lines.append(
            f"| `{r['model']}` | {r['params'].get('I_e', 0):g} | {len(r['spikes']['spikex'])} / {len(r['spikes']['standalone'])} "
            f"| {same} | {r['v_max_abs_difference_mV']:.1e} | {r['v_max_abs_difference_away_from_spikes_mV']:.1e} |"
        )
    lines += ["", "Exact models: the same propagators in both (differences at the last bits). Numerical",
              "ones: within the stand-alone solver's tolerance (rtol 1e-3 of about 70 mV); spikex's RKF45",
              "runs at NESTML's default error bound (1e-6), so the difference is the stand-alone's."]  # fmt: skip
    return lines


if __name__ == "__main__":
    sys.exit(main())
