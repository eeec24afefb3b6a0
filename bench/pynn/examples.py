"""Every script of PyNN 0.13's ``examples/`` folder, unchanged, on pyNN.nest and on
spikex.pynn (issue 54): which run, which are refused and why, and how their results
compare.

Each case runs ``as_backend.py SIMULATOR SCRIPT [ARGS] [--plot-figure]`` (where the
script takes that option) in a fresh
directory (matplotlib's Agg backend, one thread, a 10-minute limit). A case *runs* when the
script exits with status 0. Its results are the Neo files it writes (``Results/*.pkl``,
``*.h5``, ...): the number of spike trains and spikes in each, and its mean rate, side by
side. A script that fails on pyNN.nest too is an environment matter (a package PyNN's
example needs, such as NineML or CSA, or a simulator-specific example), not spikex's.

    python bench/pynn/examples.py                   # every case, writes the JSON and the page
    python bench/pynn/examples.py --only brunel.py  # cases whose script matches
    python bench/pynn/examples.py --report-only     # the page from the JSON

Writes bench/results/pynn_examples.json and docs/validation/pynn_examples.md.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tests" / "pynn"))
sys.path.insert(0, str(REPO / "bench" / "nest"))
import run_exact  # noqa: E402
from harness import scenarios_parent  # noqa: E402

RESULTS = REPO / "bench" / "results" / "pynn_examples.json"
PAGE = REPO / "docs" / "validation" / "pynn_examples.md"
TIMEOUT_S = 600
# Extra arguments of the scripts that need them (VAbenchmarks: both of its benchmarks).
CASES = {"VAbenchmarks.py": [["CUBA"], ["COBA"]], "connections.py": [["--plot-figure=connections"]]}
SIMULATORS = ("nest", "spikex")


def examples_dir() -> Path:
    return scenarios_parent().parents[1] / "examples"


def cases() -> list[tuple[str, list[str]]]:
    out = []
    for script in sorted(p.name for p in examples_dir().glob("*.py")):
        for arguments in CASES.get(script, [[]]):
            out.append((script, arguments))
    return out


def outputs(work: Path) -> dict:
    """Spike trains, spikes and signals in each Neo file the script wrote."""
    import neo

    found = {}
    for path in sorted(work.rglob("*")):
        if path.suffix not in (".pkl", ".h5", ".nix") or not path.is_file():
            continue
        try:
            block = neo.io.get_io(str(path)).read_block()
        except Exception as error:  # noqa: BLE001 - a file neo cannot read is reported, not fatal
            found[str(path.relative_to(work))] = {"error": f"{type(error).__name__}: {error}"[:200]}
            continue
        trains = [t for s in block.segments for t in s.spiketrains]
        signals = [a for s in block.segments for a in s.analogsignals]
        duration = max((float(t.t_stop - t.t_start) for t in trains), default=0.0)
        spikes = sum(len(t) for t in trains)
        found[str(path.relative_to(work))] = {
            "spiketrains": len(trains),
            "spikes": spikes,
            "rate_hz": spikes / len(trains) / duration * 1000.0 if trains and duration > 0 else None,
            "signals": len(signals),
        }
    return found


def last_error_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    for line in reversed(lines):
        if "Error" in line or "error" in line or "Exception" in line:
            return line[:300]
    return lines[-1][:300] if lines else ""


def run_case(script: str, arguments: list[str], simulator: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="pynn-example-") as work:
        work = Path(work)
        for path in examples_dir().iterdir():  # some scripts read their neighbours
            if path.is_file():
                (work / path.name).write_bytes(path.read_bytes())
        (work / "Results").mkdir()
        env = run_exact.nest_environment() if simulator == "nest" else dict(os.environ)
        env.update(OMP_NUM_THREADS="1", MPLBACKEND="Agg")
        interpreter = str(run_exact.NEST_PYTHON) if simulator == "nest" else sys.executable
        takes_plot = '"--plot-figure"' in (work / script).read_text()
        plot = ["--plot-figure"] if takes_plot and not any(a.startswith("--plot-figure") for a in arguments) else []
        command = [interpreter, str(HERE / "as_backend.py"), simulator, script, *arguments, *plot]
        start = time.perf_counter()
        try:
            done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True,
                                  stdin=subprocess.DEVNULL, timeout=TIMEOUT_S, check=False)  # fmt: skip
            status, stdout, stderr = done.returncode, done.stdout, done.stderr
        except subprocess.TimeoutExpired:
            status, stdout, stderr = None, "", f"timed out after {TIMEOUT_S} s"
        seconds = time.perf_counter() - start
        return {
            "status": status,
            "runs": status == 0,
            "wall_s": round(seconds, 2),
            "error": "" if status == 0 else last_error_line(stderr or stdout),
            "outputs": outputs(work) if status == 0 else {},
        }


def case_name(script: str, arguments: list[str]) -> str:
    return " ".join([script, *arguments])


def report(results: dict) -> str:
    rows = results["cases"]
    ran = {s: sum(1 for r in rows.values() if r[s]["runs"]) for s in SIMULATORS}
    both = [n for n, r in rows.items() if r["nest"]["runs"]]
    ours = [n for n in both if rows[n]["spikex"]["runs"]]
    lines = [
        "# PyNN's examples on pyNN.nest and spikex.pynn",
        "",
        "<!-- generated by bench/pynn/examples.py from bench/results/pynn_examples.json; do not edit -->",
        "",
        f"PyNN {results['pynn_version']}'s `examples/` folder, unchanged, {len(rows)} cases "
        f"({results['date']}, load average {results['load_average']:.2f} on {results['cores']} cores). "
        f"pyNN.nest (NEST 3.10) runs {ran['nest']}, spikex.pynn {ran['spikex']}; of the {len(both)} that run "
        f"on pyNN.nest, spikex.pynn runs {len(ours)}.",
        "",
        "A case runs when the script exits with status 0 (with `--plot-figure` where the script takes it, so "
        "its plotting code runs too). "
        "Results: the spikes in the Neo files the script writes (total over its files, and the mean rate); "
        "the networks are the same description, not the same random draws, so totals agree in law only.",
        "",
        "| case | pyNN.nest | spikex.pynn | spikes NEST / spikex | rate NEST / spikex (Hz) | spikex's error |",
        "|---|---|---|---|---|---|",
    ]

    def totals(result):
        files = [f for f in result["outputs"].values() if "spikes" in f]
        if not files:
            return None, None
        spikes = sum(f["spikes"] for f in files)
        rates = [f["rate_hz"] for f in files if f["rate_hz"] is not None]
        return spikes, (sum(rates) / len(rates) if rates else None)

    for name, r in rows.items():
        n_spikes, n_rate = totals(r["nest"])
        s_spikes, s_rate = totals(r["spikex"])
        spikes = f"{n_spikes} / {s_spikes}" if n_spikes is not None or s_spikes is not None else ""
        rate = (
            f"{n_rate:.2f} / {s_rate:.2f}" if n_rate is not None and s_rate is not None else ""
        )
        mark = {True: "runs", False: "fails"}
        error = r["spikex"]["error"].replace("|", "\\|") if not r["spikex"]["runs"] else ""
        nest_cell = mark[r["nest"]["runs"]] + (f" ({r['nest']['wall_s']:.1f} s)" if r["nest"]["runs"] else "")
        ours_cell = mark[r["spikex"]["runs"]] + (
            f" ({r['spikex']['wall_s']:.1f} s)" if r["spikex"]["runs"] else ""
        )
        lines.append(f"| `{name}` | {nest_cell} | {ours_cell} | {spikes} | {rate} | {error} |")
    failing_nest = [n for n, r in rows.items() if not r["nest"]["runs"]]
    if failing_nest:
        lines += ["", "Cases that fail on pyNN.nest too (the environment, not spikex):", ""]
        for n in failing_nest:
            lines.append(f"* `{n}`: {rows[n]['nest']['error']}")
    lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="run the cases whose script name contains this")
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args()
    previous = json.loads(RESULTS.read_text()) if RESULTS.exists() else {"cases": {}}
    if not args.report_only:
        import pyNN

        results = {
            "date": datetime.date.today().isoformat(),
            "pynn_version": pyNN.__version__,
            "load_average": os.getloadavg()[0],
            "cores": os.cpu_count(),
            "cases": dict(previous["cases"]) if args.only else {},
        }
        for script, arguments in cases():
            if args.only and args.only not in script:
                continue
            name = case_name(script, arguments)
            results["cases"][name] = {s: run_case(script, arguments, s) for s in SIMULATORS}
            r = results["cases"][name]
            print(f"{name}: nest {r['nest']['runs']}, spikex {r['spikex']['runs']} {r['spikex']['error']}",
                  flush=True)  # fmt: skip
        results["cases"] = dict(sorted(results["cases"].items()))
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        tmp = RESULTS.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(results, indent=1) + "\n")
        tmp.replace(RESULTS)
    else:
        results = previous
    PAGE.write_text(report(results))
    print(f"wrote {PAGE.relative_to(REPO)}")


if __name__ == "__main__":
    main()
