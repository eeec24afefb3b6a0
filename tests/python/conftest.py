"""Shared helpers for the Python and multi-rank tests.

Multi-rank runs go through `spikex run --np P` (which builds its own mpiexec command) or,
for SPMD scripts, through `spikex.launch.launcher.mpiexec_command`: the launcher flags live in
one place.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from spikex.launch.launcher import child_environment, mpiexec_command

REPO = Path(__file__).resolve().parents[2]
SPIKEX = str(Path(sys.executable).parent / "spikex")

# A small network whose inputs matter (non-zero weights, mean 0) and that runs in about a
# second: the determinism tests compare its spikes across methods, ranks and distributions.
SMALL_NETWORK = """
[simulation]
tstop_ms = 100.0
seed = 7

[network]
cells = 400
indegree = 60
indegree_spread = 10
weight = 0.0
weight_spread = 0.08
"""


def write_config(directory: Path, text: str = SMALL_NETWORK, name: str = "small.toml") -> Path:
    path = directory / name
    path.write_text(textwrap.dedent(text))
    return path


def run_cli(args: list[str], timeout: float = 300, env: dict | None = None) -> subprocess.CompletedProcess:
    """Runs the `spikex` command line; never hangs a test for longer than `timeout`."""
    return subprocess.run(
        [SPIKEX, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=child_environment(env),
        stdin=subprocess.DEVNULL,
    )


def run_config(config: Path, outdir: Path, ranks: int = 1, sets: tuple[str, ...] = ()) -> dict:
    """`spikex run` that must succeed; returns summary.json."""
    args = ["run", str(config), "--np", str(ranks), "-o", str(outdir)]
    for item in sets:
        args += ["--set", item]
    done = run_cli(args)
    assert done.returncode == 0, f"spikex {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return json.loads((outdir / "summary.json").read_text())


def run_spmd(script: str, ranks: int, directory: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    """Runs a Python script on `ranks` ranks (directly for one rank), like a user would."""
    path = directory / "script.py"
    path.write_text(textwrap.dedent(script))
    command = mpiexec_command(ranks, [sys.executable, str(path)])
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=directory,
        env=child_environment(),
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def small_config(tmp_path: Path) -> Path:
    return write_config(tmp_path)
