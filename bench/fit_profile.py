"""Question: what are this machine's time-model parameters? Writes profiles/local.toml.

Runs the micro-benchmark bench/cpp/model_parameters.cpp on 2 MPI ranks (build it with
``make bench-cpp``, or pass --binary) and turns its JSON into a machine profile for
``spikex model dryrun --profile profiles/local.toml``: latency and bandwidth by ping-pong,
send / receive overhead of a 16-byte message, one Allgather stage, one Alltoall partner,
Allreduce, Barrier, and the CPU costs of handling a spike, skipping a buffer entry and one
routing hop. The profile records the load average when the fit started: on a machine busy
with other work the numbers are those of a loaded machine.

Usage: python bench/fit_profile.py [--binary build/bench/cpp/bench_model_parameters]
                                   [--output profiles/local.toml]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from spikex.launch.launcher import child_environment, mpiexec_command
from spikex.results.machine import describe_machine

ROOT = Path(__file__).resolve().parents[1]


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", type=Path, default=ROOT / "build/bench/cpp/bench_model_parameters")
    parser.add_argument("--output", type=Path, default=ROOT / "profiles/local.toml")
    parser.add_argument("--json", type=Path, default=ROOT / "bench/results/model_parameters.json")
    parser.add_argument("--ranks", type=int, default=2)
    return parser.parse_args()


def measure(binary: Path, ranks: int) -> dict:
    if not binary.is_file():
        sys.exit(f"fit_profile: {binary} not found: build it with `make bench-cpp`")
    command = mpiexec_command(ranks, [str(binary)])
    done = subprocess.run(command, capture_output=True, text=True, env=child_environment(os.environ), check=True)
    return json.loads(done.stdout)


def profile_text(values: dict, machine) -> str:
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Machine profile of this machine for the spikex time model, fitted by",
        f"# bench/fit_profile.py ({stamp}) from bench/cpp/model_parameters.cpp on {values['ranks']} ranks.",
        f"# {machine.cpu}, {machine.cores} cores, {machine.mpi}; load average {machine.load_average}.",
        "# A 1-minute load at or above the core count means other work shared the cores: then",
        "# these are timings of a loaded machine. Allgather / Alltoall per-stage numbers come",
        "# from 2 ranks only.",
        "",
        "[machine]",
        'name = "local"',
        f'description = "this machine ({machine.cores} cores, load {machine.load_average}), fitted {stamp}"',
        "",
        "[point_to_point]",
        f"latency_s = {values['latency_s']:.4e}",
        f"bandwidth_bytes_per_s = {values['bandwidth_bytes_per_s']:.4e}",
        f"send_overhead_s = {values['send_overhead_s']:.4e}",
        f"receive_overhead_s = {values['receive_overhead_s']:.4e}",
        "",
        "[collectives]",
        f"allgather_stage_s = {values['allgather_stage_s']:.4e}",
        f"alltoall_partner_s = {values['alltoall_partner_s']:.4e}",
        f"allreduce_s = {values['allreduce_s']:.4e}",
        "allreduce_stage_s = 0.0   # one stage at 2 ranks: folded into allreduce_s",
        f"barrier_stage_s = {values['barrier_stage_s']:.4e}",
        "",
        "[cpu]",
        f"spike_handling_s = {values['spike_handling_s']:.4e}",
        f"scan_entry_s = {values['scan_entry_s']:.4e}",
        f"route_hop_s = {values['route_hop_s']:.4e}",
        "",
    ]
    return "\n".join(lines)


def main() -> int:
    args = parse_arguments()
    values = measure(args.binary, args.ranks)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(values, indent=2) + "\n", encoding="utf-8")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(profile_text(values, describe_machine(ROOT)), encoding="utf-8")
    print(f"fit_profile: wrote {args.output} and {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
