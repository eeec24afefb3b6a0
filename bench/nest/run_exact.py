"""Exact-match check against NEST 3.10 (issue 6, item 6a; issue 17): both sides, one command.

Runs ``nest_exact_network.py`` (iaf_psc_alpha) and ``nest_exact_models.py``
(iaf_psc_exp, iaf_psc_delta) with the NEST venv (bench/nest/.venv, made by
``scripts/setup_nest.sh``), rebuilds the exported networks in spikex (this interpreter
must have spikex), compares the spike trains step by step and writes
``bench/results/nest_exact.json`` and ``bench/results/nest_exact_models.json``::

    python bench/nest/run_exact.py                 # 300 neurons, 1 s; the models: 120, 300 ms
    python bench/nest/run_exact.py --n 100 --tsim 200
    python bench/nest/run_exact.py --no-alpha      # iaf_psc_exp and iaf_psc_delta only
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
# The interpreter with NEST 3.10: the venv scripts/setup_nest.sh makes, unless
# SPIKEX_NEST_PYTHON names another one (a NEST installed elsewhere; the tests use it to
# check what happens without NEST).
NEST_PYTHON = Path(os.environ.get("SPIKEX_NEST_PYTHON") or HERE / ".venv" / "bin" / "python")
NEST_VERSION = "3.10"
RESULTS = REPO / "bench" / "results"

sys.path.insert(0, str(HERE))
from exact_network import compare_spikes
from report import update_section, write_json


def _shown(path: Path) -> str:
    """A path relative to the repository when it is inside, else as given."""
    try:
        return str(path.resolve().relative_to(REPO))
    except ValueError:
        return str(path)


def nest_unavailable_reason() -> str | None:
    """None when NEST_PYTHON can import nest 3.10, else why not (for skip and fail messages)."""
    if not NEST_PYTHON.exists():
        return f"{_shown(NEST_PYTHON)} does not exist (run `bash scripts/setup_nest.sh`)"
    try:
        probe = subprocess.run(
            [str(NEST_PYTHON), "-c", "import nest; print(nest.__version__)"],
            capture_output=True,
            text=True,
            env=nest_environment(),
            stdin=subprocess.DEVNULL,
            check=False,
            timeout=120,
        )
    except (OSError, subprocess.SubprocessError) as error:
        return f"{_shown(NEST_PYTHON)} cannot be run: {error}"
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["no output"])[-1]
        return f"{_shown(NEST_PYTHON)} cannot import nest: {last}"
    version = (probe.stdout.strip().splitlines() or [""])[-1]
    if not version.startswith(NEST_VERSION):
        found = version or "(unknown version)"
        return f"{_shown(NEST_PYTHON)} has NEST {found}, not {NEST_VERSION}"
    return None


def nest_environment() -> dict:
    """Environment for NEST's interpreter: quiet, no variables of the main venv."""
    env = {
        k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")
    }
    env["PYNEST_QUIET"] = "1"
    return env


def run_nest_script(script: Path, timeout: float = 300, args: list[str] | None = None) -> subprocess.CompletedProcess:
    """Run one of bench/nest's NEST-side scripts with NEST's interpreter (in bench/nest,
    output captured); the caller checks the status and reads its JSON."""
    return subprocess.run(
        [str(NEST_PYTHON), str(script), *(args or [])], capture_output=True, text=True, env=nest_environment(),
        cwd=HERE, stdin=subprocess.DEVNULL, timeout=timeout, check=False,
    )  # fmt: skip


def run_nest_script_code(code: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run a line of Python with NEST's interpreter (probes: is PyNN there?)."""
    return subprocess.run(
        [str(NEST_PYTHON), "-c", code], capture_output=True, text=True, env=nest_environment(),
        cwd=HERE, stdin=subprocess.DEVNULL, timeout=timeout, check=False,
    )  # fmt: skip


def run_nest_side(
    output: Path,
    n: int,
    indegree: int,
    tsim: float,
    seed: int,
    weight_spread: float = 0.0,
    stdp: bool = False,
) -> dict:
    command = [
        str(NEST_PYTHON),
        str(HERE / "nest_exact_network.py"),
        "-o",
        str(output),
        "--n",
        str(n),
        "--indegree",
        str(indegree),
        "--tsim",
        str(tsim),
        "--seed",
        str(seed),
        "--weight-spread",
        str(weight_spread),
    ] + (["--stdp"] if stdp else [])
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        env=nest_environment(),
        stdin=subprocess.DEVNULL,
        check=False,
        timeout=600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"NEST side failed:\n{done.stdout}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_nest_models_side(
    output: Path, model: str, n: int, indegree: int, tsim: float, seed: int
) -> dict:
    command = [str(NEST_PYTHON), str(HERE / "nest_exact_models.py"), model, "-o", str(output)]
    command += ["--n", str(n), "--indegree", str(indegree), "--tsim", str(tsim)]
    command += ["--seed", str(seed)]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        env=nest_environment(),
        stdin=subprocess.DEVNULL,
        check=False,
        timeout=600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"NEST side failed:\n{done.stdout}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def exact_match_model(
    model: str,
    n: int = 120,
    indegree: int = 40,
    tsim: float = 300.0,
    seed: int = 7,
    workdir=None,
    threads: int | None = None,
) -> dict:
    """The network of ``exact_models.design`` (iaf_psc_exp or iaf_psc_delta, heterogeneous
    delays, per-neuron parameter arrays) on both sides; returns the comparison."""
    import numpy as np
    from spikex_exact_models import run as run_spikex

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(workdir or tmp) / f"exact_{model}_n{n}_k{indegree}_seed{seed}.npz"
        nest_info = run_nest_models_side(path, model, n, indegree, tsim, seed)
        data = np.load(path)
        ours = run_spikex(path, threads)
        first = int(data["first_node_id"])
        report = compare_spikes(
            data["spike_senders"] - first, data["spike_times_ms"], ours["cells"], ours["times_ms"]
        )
    report.update(
        {
            "model": model,
            "neurons": n,
            "indegree": indegree,
            "tsim_ms": tsim,
            "seed": seed,
            "threads": threads or 1,
            "connections": nest_info["connections"],
            "delays_ms": nest_info["distinct_delays_ms"],
            "nest_version": nest_info["nest_version"],
            "spikex_version": ours["summary"].get("spikex_version"),
        }
    )
    return report


def exact_match(
    n: int = 300,
    indegree: int = 50,
    tsim: float = 1000.0,
    seed: int = 12345,
    workdir=None,
    weight_spread: float = 0.0,
    stdp: bool = False,
) -> dict:
    """Runs both sides and returns the comparison (see ``compare_spikes``)."""
    import numpy as np
    from spikex_exact_network import run as run_spikex

    with tempfile.TemporaryDirectory() as tmp:
        path = (
            Path(workdir or tmp)
            / f"exact_n{n}_k{indegree}_spread{weight_spread:g}{'_stdp' if stdp else ''}.npz"
        )
        nest_info = run_nest_side(path, n, indegree, tsim, seed, weight_spread, stdp)
        data = np.load(path)
        ours = run_spikex(path)
        first = int(data["first_node_id"])
        report = compare_spikes(
            data["spike_senders"] - first, data["spike_times_ms"], ours["cells"], ours["times_ms"]
        )
    report.update(
        {
            "neurons": n,
            "indegree": indegree,
            "tsim_ms": tsim,
            "seed": seed,
            "weight_spread": weight_spread,
            "stdp": stdp,
            "plastic_weights": ours.get("weights"),
            "connections": nest_info["connections"],
            "nest_version": nest_info["nest_version"],
            "spikex_version": ours["summary"].get("spikex_version"),
        }
    )
    return report


def _case_line(report: dict) -> str:
    if report["identical"]:
        verdict = "**identical** (every spike at the same step in the same neuron)"
    else:
        first = report["first_divergence"]
        verdict = (
            f"**diverge** at t = {first['time_ms']:.1f} ms (NEST [step, neuron] {first['nest']}, "
            f"spikex {first['spikex']}); {report['matching_as_set']:,} spikes agree as a set"
        )
    weights = (
        "all equal per channel"
        if not report["weight_spread"]
        else f"uniform ±{50 * report['weight_spread']:g} %"
    )
    if report.get("stdp"):
        pw = report["plastic_weights"]
        weights = "E→E stdp_pl_synapse_hom"
        verdict += (
            f"; final weights of {pw['plastic_connections']:,} plastic synapses: max abs Δw = "
            f"{pw['max_abs_diff_pa']:.1e} pA, except {pw['in_flight_differing']} of the "
            f"{pw['in_flight_connections']:,} whose source fired in the last 1.5 ms (spike still in "
            f"flight in NEST, abs Δw ≤ {pw['in_flight_max_abs_diff_pa']:.2f} pA)"
        )
    offsets = report["matches_by_step_offset"]
    return (
        f"| {weights} | {report['nest_spikes']:,} ({report['cells_firing_nest']} neurons) "
        f"| {report['spikex_spikes']:,} | {report['matching_until_first_divergence']:,} | {verdict} "
        f"| {offsets['-1']:,} / {offsets['0']:,} / {offsets['1']:,} |"
    )


def exact_markdown(reports: list[dict]) -> str:
    first = reports[0]
    lines = [
        "### Exact match (item 6a)",
        "",
        (
            f"{first['neurons']} neurons, in-degree {first['indegree']}, {first['connections']:,} "
            f"connections exported from NEST {first['nest_version']}, {first['tsim_ms']:g} ms, seed "
            f"{first['seed']} (`python bench/nest/run_exact.py`, bench/results/nest_exact.json). Matching: same "
            "step and neuron, in time order, until the first difference. Offsets: matches when the "
            "NEST step − 1 is shifted by −1 / 0 / +1 more (0 is the documented convention)."
        ),
        "",
        "| weights | NEST spikes | spikex spikes | matching until divergence | result | offsets −1 / 0 / +1 |",
        "|---|---|---|---|---|---|",
    ]
    return "\n".join(lines + [_case_line(r) for r in reports])


def models_markdown(reports: list[dict]) -> str:
    first = reports[0]
    lines = [
        "### Exact match: iaf_psc_exp and iaf_psc_delta",
        "",
        (
            f"{first['neurons']} neurons, in-degree {first['indegree']}, {first['connections']:,} "
            f"connections exported from NEST {first['nest_version']} with delays "
            f"{', '.join(f'{d:g}' for d in first['delays_ms'])} ms, {first['tsim_ms']:g} ms, seed "
            f"{first['seed']} (`python bench/nest/run_exact.py --no-alpha`, "
            "bench/results/nest_exact_models.json). Matching as above."
        ),
        "",
        "| model | NEST spikes | spikex spikes | matching until divergence | result | offsets −1 / 0 / +1 |",
        "|---|---|---|---|---|---|",
    ]
    for report in reports:
        line = _case_line(dict(report, weight_spread=0.0))
        lines.append(line.replace("| all equal per channel |", f"| `{report['model']}` |", 1))
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--indegree", type=int, default=50)
    parser.add_argument("--tsim", type=float, default=1000.0)
    parser.add_argument("--seed", type=int, default=12345)
    parser.add_argument(
        "--weight-spreads",
        default="0,0.5",
        help="cases: 0 = equal weights per channel; 0.5 = weights uniform in w·(1 ± 0.25) [0,0.5]",
    )
    parser.add_argument("--no-stdp", action="store_true", help="skip the case with STDP on E→E")
    parser.add_argument("--no-alpha", action="store_true", help="only the iaf_psc_exp / delta cases")
    parser.add_argument(
        "--models",
        default="iaf_psc_exp,iaf_psc_delta",
        help="models of exact_models.py to check (120 neurons, 300 ms; empty: none) [both]",
    )
    parser.add_argument("-o", "--output", default=str(RESULTS / "nest_exact.json"))
    args = parser.parse_args()
    reason = nest_unavailable_reason()
    if reason:
        print(f"run_exact: skipped: {reason}", file=sys.stderr)
        return 0
    (HERE / "data").mkdir(exist_ok=True)
    models = [m for m in args.models.split(",") if m]
    if models:
        model_reports = [exact_match_model(m, workdir=HERE / "data") for m in models]
        write_json(RESULTS / "nest_exact_models.json", {"cases": model_reports})
        print(json.dumps(model_reports, indent=2))
        update_section("exact_models", models_markdown(model_reports))
    if args.no_alpha:
        return 0
    reports = [
        exact_match(
            args.n,
            args.indegree,
            args.tsim,
            args.seed,
            workdir=HERE / "data",
            weight_spread=float(spread),
        )
        for spread in args.weight_spreads.split(",")
    ]
    if not args.no_stdp:
        reports.append(
            exact_match(
                args.n, args.indegree, args.tsim, args.seed, workdir=HERE / "data", stdp=True
            )
        )
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(args.output).with_suffix(".json.tmp")
    tmp.write_text(json.dumps({"cases": reports}, indent=2) + "\n")
    tmp.replace(args.output)
    print(json.dumps(reports, indent=2))
    if args.output == str(RESULTS / "nest_exact.json"):
        update_section("exact", exact_markdown(reports))
    return 0


if __name__ == "__main__":
    sys.exit(main())
