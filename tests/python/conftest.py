"""Shared helpers for the Python and multi-rank tests of every topic folder.

Multi-rank runs go through `spikex run --np P` (which builds its own mpiexec command) or,
for SPMD scripts, through `spikex.launch.launcher.mpiexec_command`: the launcher flags live in
one place.

Markers (pyproject.toml): `mpi` for a test that launches mpiexec (more than one rank),
`slow` for one that takes more than about 1.5 s here (`make test-fast` leaves those out).
`marked` puts them on the cases of a parametrized test that need them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
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


def run_cli(
    args: list[str], timeout: float = 300, env: dict | None = None
) -> subprocess.CompletedProcess:
    """Runs the `spikex` command line; never hangs a test for longer than `timeout`."""
    return run_stoppable([SPIKEX, *args], timeout=timeout, env=child_environment(env))


def run_stoppable(
    command: list[str], timeout: float, env: dict | None = None
) -> subprocess.CompletedProcess:
    """`subprocess.run(command, capture_output=True, text=True)`, but a command still running
    after `timeout` gets SIGTERM twice (the first asks spikex run's ranks for a clean stop,
    the second stops its whole MPI job at once) and SIGKILL only 10 s later: a hung test
    must not leave ranks running (subprocess.run would SIGKILL spikex at once and orphan
    mpiexec and its ranks)."""
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          stdin=subprocess.DEVNULL, env=env) as process:  # fmt: skip
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.terminate()
            time.sleep(0.5)
            process.terminate()
            try:
                stdout, stderr = process.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                stdout, stderr = process.communicate()
            raise subprocess.TimeoutExpired(
                command, timeout, output=stdout, stderr=stderr
            ) from None
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def run_config(config: Path, outdir: Path, ranks: int = 1, sets: tuple[str, ...] = ()) -> dict:
    """`spikex run` that must succeed; returns summary.json."""
    args = ["run", str(config), "--np", str(ranks), "-o", str(outdir)]
    for item in sets:
        args += ["--set", item]
    done = run_cli(args)
    assert done.returncode == 0, f"spikex {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return json.loads((outdir / "summary.json").read_text())


def run_spmd(
    script: str, ranks: int, directory: Path, timeout: float = 300
) -> subprocess.CompletedProcess:
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


def leftover_processes(tmp_path: Path) -> list[str]:
    """Processes whose command line mentions this test's directory (its ranks, mpiexec)."""
    listing = subprocess.run(
        ["ps", "-eww", "-o", "pid=,args="], capture_output=True, text=True, check=True
    )
    return [
        line
        for line in listing.stdout.splitlines()
        if str(tmp_path) in line and "ps -eww" not in line
    ]


def in_ci() -> bool:
    """Whether the tests run under CI (``CI=true``, as CI services set it)."""
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def require_nest(reason: str | None) -> None:
    """Skip a NEST validation test when NEST 3.10 is missing (``reason`` says why), but fail
    it under CI: there a skip would let the validation pass unnoticed."""
    if reason is None:
        return
    message = f"NEST 3.10 not available: {reason}"
    if in_ci():
        pytest.fail(
            f"{message}. Under CI=true the NEST validation must run, not skip: "
            "`make setup-nest` installs it (log: bench/nest/.venv-install.log), or "
            "SPIKEX_NEST_PYTHON names an interpreter with NEST 3.10.",
            pytrace=False,
        )
    pytest.skip(message)


@pytest.fixture(scope="session")
def nestml_build_cache(tmp_path_factory) -> Path:
    """One directory for the NESTML models the tests build (tests/python/nestml,
    tests/python/pynn): a model is compiled once per session, not once per test module."""
    return tmp_path_factory.mktemp("nestml-build-cache")


@pytest.fixture(scope="module")
def loaded_models_forgotten():
    """For modules that load NESTML models (``pytest.mark.usefixtures``): a loaded library
    stays registered in the process, but spikex.models.MODELS forgets its models after the
    module, so that the tests of the built-in models that run later see the built-in ones
    only."""
    from spikex.models import LIST_PARAMETERS, MODELS

    before = set(MODELS)
    yield
    for name in set(MODELS) - before:
        MODELS.pop(name)
        LIST_PARAMETERS.pop(name, None)


@pytest.fixture
def small_config(tmp_path: Path) -> Path:
    return write_config(tmp_path)


def marked(cases, mpi_if=None, slow_if=None) -> list:
    """``parametrize`` values with the ``mpi`` / ``slow`` markers on the cases that need them.

    A case is one parameter value or a tuple of values (several parameters);
    ``mpi_if(case)`` says whether it runs on more than one rank, ``slow_if(case)`` whether
    it is slow. Test ids stay those of the plain values.
    """
    params = []
    for case in cases:
        marks = [pytest.mark.mpi] if mpi_if and mpi_if(case) else []
        marks += [pytest.mark.slow] if slow_if and slow_if(case) else []
        values = case if isinstance(case, tuple) else (case,)
        params.append(pytest.param(*values, marks=marks))
    return params


def several_ranks(ranks: int) -> bool:
    """``mpi_if`` for a rank-count parameter."""
    return ranks > 1


# Marked here, by file: the NEST exact-match tests run NEST 3.10 and spikex on the same
# network (about 10 s where NEST is installed; they skip where it is not).
SLOW_FILES = ("test_nest_exact_match.py", "test_nest_exact_models.py")


def pytest_collection_modifyitems(items) -> None:
    for item in items:
        if item.path.name in SLOW_FILES:
            item.add_marker(pytest.mark.slow)
