"""spikex against BMTK's pointnet (NEST 3.10) on a circuit built with BMTK's builder.

The circuit (build_network.py: iaf_psc_alpha cells in three node types and a second
population of iaf_psc_exp cells, nsyns 1-3, edge types with delays and weights, per-edge
weights in an edge group, Poisson spike-file inputs, a current clamp) is built and run by BMTK with the interpreter BMTK_PYTHON, then
read by ``spikex.Network.from_sonata(config.json, input_rounding="bmtk")`` and simulated.
Both models are exact, so the spikes must agree step for step (NEST stamps a spike at the
end of its step: NEST time = (spikex step + 1) dt)::

    python bench/bmtk/compare_bmtk.py [--dt 0.1] [--tstop 1000]   # writes bench/results/sonata_bmtk.json

BMTK_PYTHON: ``SPIKEX_BMTK_PYTHON``, else bench/bmtk/.venv/bin/python (made by
``scripts/setup_bmtk.sh``: bmtk with the NEST of bench/nest/.venv).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
BMTK_PYTHON = Path(os.environ.get("SPIKEX_BMTK_PYTHON") or HERE / ".venv" / "bin" / "python")


def bmtk_unavailable_reason() -> str | None:
    """None when BMTK_PYTHON imports bmtk's pointnet and NEST, else why not."""
    if not BMTK_PYTHON.exists():
        return f"{BMTK_PYTHON} does not exist (bash scripts/setup_bmtk.sh, or SPIKEX_BMTK_PYTHON)"
    probe = _run(
        [str(BMTK_PYTHON), "-c", "import nest, bmtk.simulator.pointnet, h5py"], timeout=300
    )
    if probe.returncode != 0:
        return f"{BMTK_PYTHON} cannot import nest and bmtk: {(probe.stderr.strip().splitlines() or ['?'])[-1]}"
    return None


def _run(
    command: list[str], timeout: float = 600, cwd: Path | None = None
) -> subprocess.CompletedProcess:
    env = {
        k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")
    }
    env["PYNEST_QUIET"] = "1"
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                          timeout=timeout, check=False)  # fmt: skip


def build_and_run_bmtk(directory: Path, dt: float, tstop: float, builder: str = "build_network.py") -> Path:
    """Build the circuit in ``directory`` (with ``builder``) and run it on BMTK; returns its config.json."""
    done = _run(
        [
            str(BMTK_PYTHON),
            str(HERE / builder),
            str(directory),
            "--dt",
            str(dt),
            "--tstop",
            str(tstop),
        ]
    )
    if done.returncode != 0:
        raise RuntimeError(f"{builder} failed:\n{done.stdout}\n{done.stderr}")
    config = directory / "config.json"
    done = _run([str(BMTK_PYTHON), str(HERE / "run_pointnet.py"), str(config)], cwd=directory)
    if done.returncode != 0:
        raise RuntimeError(f"run_pointnet.py failed:\n{done.stdout}\n{done.stderr}")
    return config


POPULATIONS = ("v1", "l5")


def bmtk_spikes(config: Path, dt: float, populations=POPULATIONS) -> list[tuple[str, int, int]]:
    """BMTK's spikes as sorted (population, spikex step, node id)."""
    import h5py

    rows = []
    with h5py.File(config.parent / "output" / "spikes.h5", "r") as f:
        for population in populations:
            if population not in f["spikes"]:  # BMTK writes no group for a silent population
                continue
            times = f[f"spikes/{population}/timestamps"][:]
            nodes = f[f"spikes/{population}/node_ids"][:]
            steps = np.rint(times / dt).astype(np.int64) - 1
            rows += [
                (population, s, n) for s, n in zip(steps.tolist(), nodes.tolist(), strict=True)
            ]
    return sorted(rows)


def spikex_spikes(config: Path, populations=POPULATIONS) -> tuple[list[tuple[str, int, int]], dict]:
    """spikex's spikes as sorted (population, step, node id), and its summary."""
    import spikex as sx

    net = sx.Network.from_sonata(config, input_rounding="bmtk")
    result = net.simulate(net.sonata.tstop_ms)
    names, nodes = net.sonata.node_ids(result.spikes[0])
    rows = zip(names.tolist(), result.spike_steps.tolist(), nodes.tolist(), strict=True)
    return sorted(row for row in rows if row[0] in populations), result.summary


def compare(dt: float = 0.1, tstop: float = 1000.0, directory: Path | None = None, glif: bool = False) -> dict:
    """The spikes of the circuit (build_network.py; with ``glif``, build_glif_network.py's
    glif_psc circuit) on BMTK and on spikex."""
    builder, populations = ("build_glif_network.py", ("v1",)) if glif else ("build_network.py", POPULATIONS)
    with tempfile.TemporaryDirectory() as scratch:
        config = build_and_run_bmtk(Path(directory or scratch) / "bmtk_circuit", dt, tstop, builder)
        theirs = bmtk_spikes(config, dt, populations)
        ours, summary = spikex_spikes(config, populations)
    first = next(
        (k for k, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs))
    )
    return {
        "dt_ms": dt, "tstop_ms": tstop, "bmtk_spikes": len(theirs),
        "per_population": {p: sum(1 for row in theirs if row[0] == p) for p in populations}, "spikex_spikes": len(ours),
        "identical": ours == theirs, "matching_until_first_difference": first,
        "connections": summary["connections"],
    }  # fmt: skip


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dt", type=float, default=0.1)
    parser.add_argument("--tstop", type=float, default=1000.0)
    parser.add_argument("--glif", action="store_true", help="the glif_psc circuit (build_glif_network.py)")
    args = parser.parse_args()
    reason = bmtk_unavailable_reason()
    if reason:
        raise SystemExit(f"compare_bmtk: {reason}")
    report = compare(args.dt, args.tstop, glif=args.glif)
    (REPO / "bench" / "results").mkdir(parents=True, exist_ok=True)
    (REPO / "bench" / "results" / ("sonata_bmtk_glif.json" if args.glif else "sonata_bmtk.json")).write_text(
        json.dumps(report, indent=2) + "\n"
    )
    print(json.dumps(report))
