"""Runs of the hpc_benchmark on either simulator, cached in bench/nest/data/.

Used by ``compare_statistics.py`` and ``bench/vs_nest.py`` (main venv). A NEST run goes
through the NEST venv (``nest_hpc_benchmark.py``), a spikex run through this
interpreter (``spikex_hpc.py``, under mpiexec for several ranks). Each run writes
``data/<name>.json`` and ``data/<name>.npz``; an existing JSON with the same settings is
reused unless ``rerun`` is set, so an interrupted campaign continues where it stopped.

    python bench/nest/runs.py nest --scale 1 --indegree 11250 --threads 2 --plastic
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from report import file_stamp, run_stamp
from run_exact import NEST_PYTHON

DATA = HERE / "data"
# With STDP the hpc_benchmark runs away after a few hundred ms in both simulators
# (bench/nest/stdp_runaway.py; rates per 100 ms block in docs/validation/nest.md,
# "STDP runaway", and bench/results/nest_stdp_runaway_*.json); statistics and timings of
# a runaway compare two different activity levels, so STDP runs are compared over the
# first STDP_TSIM_MS after the presim, where every run seen so far is still at its
# initial rate.
STDP_TSIM_MS = 100.0


@dataclass(frozen=True)
class Run:
    simulator: str  # "nest" or "spikex"
    scale: float = 1.0
    indegree: int = 11250
    plastic: bool = False
    ranks: int = 1
    threads: int = 1
    presim: float = 100.0
    tsim: float = 1000.0
    seed: int = 1
    weights: bool = False  # spikex: read E→E weights after the run (NEST always does)
    block_ms: float = 0.0  # > 0: rate (and with block_weights the mean E→E weight) per block
    block_weights: bool = False
    stop_above_hz: float = 0.0  # > 0: stop after a block above this rate (runaway)

    @property
    def name(self) -> str:
        kind = "stdp" if self.plastic else "static"
        return (
            f"{self.simulator}_s{self.scale:g}_k{self.indegree}_{kind}_r{self.ranks}t{self.threads}"
            f"_p{self.presim:g}_t{self.tsim:g}_seed{self.seed}"
            + (f"_b{self.block_ms:g}" if self.block_ms > 0 else "")
        )

    def arguments(self) -> list[str]:
        args = [
            "--scale", str(self.scale), "--indegree", str(self.indegree), "--threads", str(self.threads),
            "--presim", str(self.presim), "--tsim", str(self.tsim), "--seed", str(self.seed),
            "-o", str(DATA / self.name),
        ]  # fmt: skip
        if self.plastic:
            args.append("--plastic")
        if self.weights and self.simulator == "spikex":
            args.append("--weights")
        if self.block_ms > 0:
            args += ["--block-ms", str(self.block_ms), "--stop-above-hz", str(self.stop_above_hz)]
            args += ["--block-weights"] if self.block_weights else []
        return args


def _environment(run: Run) -> dict:
    from spikex.launch.launcher import child_environment

    nest = run.simulator == "nest"
    # Both simulators' threads wait alike: they spin when the run fits the cores.
    env = child_environment(ranks=run.ranks, threads=run.threads)
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    if nest:
        for key in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME"):
            env.pop(key, None)
        env["PYNEST_QUIET"] = "1"
    return env


def command(run: Run) -> list[str]:
    if run.simulator == "nest":
        if run.ranks != 1:
            raise ValueError("NEST runs here use one process (threads only)")
        return [str(NEST_PYTHON), str(HERE / "nest_hpc_benchmark.py"), *run.arguments()]
    program = [sys.executable, str(HERE / "spikex_hpc.py"), *run.arguments()]
    if run.ranks == 1:
        return program
    from spikex.launch.launcher import mpiexec_command

    return mpiexec_command(run.ranks, program)


class NotMeasured(RuntimeError):
    """The run is not in the cache and ``cached_only`` was asked for."""


def execute(
    run: Run, rerun: bool = False, timeout: float = 7200.0, cached_only: bool = False
) -> dict:
    """The run's JSON report (cached); raises RuntimeError when the run fails."""
    path = DATA / f"{run.name}.json"
    if path.exists() and not rerun:
        report = json.loads(path.read_text())
        report.setdefault("measured", file_stamp(path))
        return report
    if cached_only:
        raise NotMeasured(f"{run.name}: not measured yet (run without --cached-only)")
    DATA.mkdir(parents=True, exist_ok=True)
    print(f"[runs] {run.name} ...", file=sys.stderr, flush=True)
    done = subprocess.run(
        command(run),
        capture_output=True,
        text=True,
        timeout=timeout,
        env=_environment(run),
        stdin=subprocess.DEVNULL,
        check=False,
    )
    (DATA / f"{run.name}.log").write_text(done.stdout + "\n--- stderr ---\n" + done.stderr)
    if done.returncode != 0 or not path.exists():
        raise RuntimeError(f"{run.name} failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    report = json.loads(path.read_text())
    report["run"] = asdict(run)
    report["measured"] = run_stamp()
    path.write_text(json.dumps(report, indent=2) + "\n")
    print(f"[runs] {run.name}: {done.stdout.strip().splitlines()[-1]}", file=sys.stderr, flush=True)
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("simulator", choices=("nest", "spikex"))
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--indegree", type=int, default=11250)
    parser.add_argument("--plastic", action="store_true")
    parser.add_argument("--ranks", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--presim", type=float, default=100.0)
    parser.add_argument("--tsim", type=float, default=1000.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--weights", action="store_true")
    parser.add_argument("--rerun", action="store_true")
    args = parser.parse_args()
    run = Run(
        args.simulator, args.scale, args.indegree, args.plastic, args.ranks, args.threads,
        args.presim, args.tsim, args.seed, args.weights,
    )  # fmt: skip
    report = execute(run, rerun=args.rerun)
    print(
        json.dumps(
            {k: report.get(k) for k in ("connections", "time_s", "peak_rss_mb", "mean_rate_hz")}
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
