"""Question: what are this machine's time-model parameters? Writes profiles/local.toml.

Runs the micro-benchmark bench/cpp/model_parameters.cpp on 2 MPI ranks (build it with
``make bench-cpp``, or pass --binary) and turns its JSON into a machine profile for
``spikex model dryrun --profile profiles/local.toml``: latency and bandwidth by ping-pong,
send / receive overhead of a 16-byte message, one Allgather stage, one Alltoall partner,
Allreduce, Barrier, and the CPU costs of skipping a buffer entry and one routing hop. The
cost of handling a received spike (source lookup and delivery) comes from a real run on one
rank (measure_receive_loop: with hot caches, as the micro-benchmark times it, it is a
fraction of what a run spends). The spike wire codec's costs (encode and decode of a
block's spike, a routed bucket's item at one hop) come from one case of
bench/cpp/spike_codec.cpp, run here on one core: 10,000 cells per rank at 5 Hz, M = 15,
blocks in cell order as the engine emits them. The profile records the load average when
the fit started: on a machine busy with other work the numbers are those of a loaded
machine.

The ranks can be started elsewhere than on this machine's cores: --launcher,
--launcher-args and --hostfile are those of ``spikex run`` (bench/cluster_time_model.py
fits profiles/netns-*.toml this way, one rank on each of two emulated hosts). --name and
--description go into the profile's [machine] table.

Usage: python bench/fit_profile.py [--binary build/bench/cpp/bench_model_parameters]
                                   [--codec-binary build/bench/cpp/bench_spike_codec]
                                   [--output profiles/local.toml] [--ranks 2]
                                   [--launcher CMD] [--launcher-args ARGS]... [--hostfile F]
                                   [--name local] [--description TEXT]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from spikex.launch.launcher import child_environment, launcher_from_options, mpiexec_command
from spikex.results.machine import describe_machine

ROOT = Path(__file__).resolve().parents[1]


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--binary", type=Path, default=ROOT / "build/bench/cpp/bench_model_parameters"
    )
    parser.add_argument(
        "--codec-binary", type=Path, default=ROOT / "build/bench/cpp/bench_spike_codec"
    )
    parser.add_argument("--output", type=Path, default=ROOT / "profiles/local.toml")
    parser.add_argument("--json", type=Path, default=ROOT / "bench/results/model_parameters.json")
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument(
        "--launcher",
        help='start the ranks with this launcher, e.g. "mpiexec" [default: mpiexec here]',
    )
    parser.add_argument(
        "--launcher-args", action="append", default=[], help="more launcher options (repeatable)"
    )
    parser.add_argument("--hostfile", type=Path, help="hosts to start the ranks on")
    parser.add_argument("--name", default="local", help="[machine] name of the profile")
    parser.add_argument(
        "--description", help="[machine] description [default: this machine, cores, load, date]"
    )
    parser.add_argument(
        "--comment", action="append", default=[], help="a comment line for the profile's header"
    )
    return parser.parse_args()


def measure(binary: Path, ranks: int, launcher=None) -> dict:
    """The micro-benchmark's JSON, run on ``ranks`` ranks (with ``launcher``, a
    ``spikex.launch.launcher.Launcher``, or spikex's own mpiexec on this machine)."""
    if not binary.is_file():
        sys.exit(f"fit_profile: {binary} not found: build it with `make bench-cpp`")
    command = mpiexec_command(ranks, [str(binary)], launcher=launcher)
    done = subprocess.run(command, capture_output=True, text=True, env=child_environment(os.environ),
                          stdin=subprocess.DEVNULL, check=False)  # fmt: skip
    if done.returncode != 0:
        sys.exit(
            f"fit_profile: {' '.join(command)} failed ({done.returncode}):\n{done.stderr[-3000:]}"
        )
    return json.loads(done.stdout)


#: The codec case the profile's codec costs come from (bench/cpp/spike_codec.cpp options):
#: about 75 spikes a block, 40 items a routed bucket.
CODEC_CASE = ("--cells", "10000", "--steps", "15", "--rate-hz", "5", "--spikes", "1000000", "--repeats", "7")


def measure_codec(binary: Path) -> dict:
    """The time model's codec costs (seconds) from one case of the codec micro-benchmark."""
    if not binary.is_file():
        sys.exit(f"fit_profile: {binary} not found: build it with `make bench-cpp`")
    command = [str(binary), *CODEC_CASE]
    done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL, check=False)
    if done.returncode != 0:
        sys.exit(f"fit_profile: {' '.join(command)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    (case,) = json.loads(done.stdout)["cases"]
    block, bucket = case["coded_cell_order"], case["routed_buckets"]
    return {
        "encode_spike_s": block["encode_ns"] * 1e-9,
        "decode_spike_s": block["decode_ns"] * 1e-9,
        # At the hop that reaches the destination (every hop of a direct grid): the encode,
        # and the delivery less the item's own decode, which an uncoded item needs there.
        "route_codec_item_s": max(
            0.0, bucket["encode_ns"] + bucket["deliver_ns"] - bucket["item_arrival_ns"]
        )
        * 1e-9,
        "codec_case": " ".join(CODEC_CASE),
    }


#: The run the receive loop's cost per spike comes from (measure_receive_loop): the demo
#: network at 16,384 cells with 100 inputs a cell firing every 4-8 ms (about 2,700 spikes
#: an interval, 1 ms), on one rank, Allgather without the codec.
RECEIVE_LOOP_RUN = (
    "examples/hines2011_demo.toml",
    "network.cells=16384",
    "network.indegree=100",
    "network.indegree_spread=10",
    "network.interval_fire.invl_low_ms=4.0",
    "network.interval_fire.invl_high_ms=8.0",
    "simulation.tstop_ms=200.0",
    "record.spikes=false",
    "exchange.method=allgather",
    "exchange.compress=false",
)


#: The run delivery_group_s comes from (measure_delivery_groups): the microcircuit at 5 %
#: (delays drawn from normal distributions: about 25 delay groups a source on a rank), on
#: one rank, Allgather without the codec; the same with no background input (a handful of
#: spikes) gives the time of its 6,000 one-step intervals without spikes.
DELIVERY_GROUPS_RUN = (
    "examples/microcircuit.toml",
    "network.n_scaling=0.05",
    "network.k_scaling=0.05",
    "simulation.presim_ms=0.0",
    "simulation.tstop_ms=600.0",
    "record.spikes=false",
    "exchange.method=allgather",
    "exchange.compress=false",
)
QUIET = "network.microcircuit.bg_rate_hz=0.0"


def run_summary(work: Path, name: str, config: str, overrides) -> dict:
    """summary.json of `spikex run config --set ...` on one rank, in work/name."""
    out = work / name
    command = [sys.executable, "-m", "spikex", "run", str(ROOT / config), "-o", str(out),
               "--progress", "none"]  # fmt: skip
    for item in overrides:
        command += ["--set", item]
    done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          check=False)  # fmt: skip
    if done.returncode != 0:
        sys.exit(
            f"fit_profile: {' '.join(command)} failed ({done.returncode}):\n{done.stderr[-3000:]}"
        )
    return json.loads((out / "summary.json").read_text())


def measure_delivery_groups(work: Path, spike_handling_s: float) -> dict:
    """delivery_group_s: what each further delay group of an arriving spike adds to the
    receive loop (one ring entry), from a network whose sources reach a rank in many delay
    groups: (exchange time - that of the same intervals without spikes - spike_handling_s
    per delivered spike) / (delivery groups - delivered spikes)."""
    config, *overrides = DELIVERY_GROUPS_RUN
    busy = run_summary(work, "delivery-groups", config, overrides)
    quiet = run_summary(work, "delivery-groups-quiet", config, [*overrides, QUIET])
    exchange = busy["exchange"]
    matched, groups = exchange["spikes_matched"], exchange["delivery_groups"]
    if groups <= matched:
        sys.exit("fit_profile: the delivery-group run has one delay group a spike")
    spent = busy["time_s"]["exchange"] - quiet["time_s"]["exchange"] - matched * spike_handling_s
    return {
        "delivery_group_s": max(spent, 0.0) / (groups - matched),
        "delivery_groups_run": " ".join(DELIVERY_GROUPS_RUN),
        "delivery_groups_per_spike": groups / matched,
    }


def measure_receive_loop(work: Path) -> dict:
    """spike_handling_s from a real run: its exchange time per received spike on one rank
    (no MPI: the Allgather of one rank is a copy), i.e. the receive loop's source lookup
    and delivery into the engine's ring buffers (one delay group a source here) with the
    caches as the interval's computation left them, plus the copy of an 8-byte entry. A
    micro-benchmark with hot caches measured 2 ns a spike where runs spend tens."""
    config, *overrides = RECEIVE_LOOP_RUN
    summary = run_summary(work, "receive-loop", config, overrides)
    received = summary["exchange"]["spikes_received"]
    if received <= 0:
        sys.exit("fit_profile: the receive-loop run received no spikes")
    return {
        "spike_handling_s": summary["time_s"]["exchange"] / received,
        "receive_loop_run": " ".join(RECEIVE_LOOP_RUN),
        "receive_loop_spikes": received,
    }


def profile_text(values: dict, machine, name: str = "local", description: str | None = None,
                 comments: list[str] | tuple[str, ...] = ()) -> str:  # fmt: skip
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    if description is None:
        description = (
            f"this machine ({machine.cores} cores, load {machine.load_average}), fitted {stamp}"
        )
    else:
        description = f"{description}, fitted {stamp}"
    ranks = values["ranks"]
    lines = [
        f"# Machine profile {name!r} for the spikex time model, fitted by",
        f"# bench/fit_profile.py ({stamp}) from bench/cpp/model_parameters.cpp on {ranks} ranks.",
        f"# {machine.cpu}, {machine.cores} cores, {machine.mpi}; load average {machine.load_average}.",
        *(f"# {line}" for line in comments),
        "# A 1-minute load at or above the core count means other work shared the cores: then",
        "# these are timings of a loaded machine. Allgather / Alltoall per-stage numbers come",
        f"# from {ranks} ranks only.",
        "",
        "[machine]",
        f"name = {json.dumps(name)}",
        f"description = {json.dumps(description)}",
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
        "allreduce_stage_s = 0.0   # folded into allreduce_s (one stage at 2 ranks)",
        f"barrier_stage_s = {values['barrier_stage_s']:.4e}",
        "",
        "[cpu]",
        (f"spike_handling_s = {values['spike_handling_s']:.4e}   # per received spike of a run "
        f"on one rank (hot caches: {values['spike_handling_hot_s']:.2e})"),
        f"scan_entry_s = {values['scan_entry_s']:.4e}",
        f"route_hop_s = {values['route_hop_s']:.4e}",
        f"encode_spike_s = {values['encode_spike_s']:.4e}",
        f"decode_spike_s = {values['decode_spike_s']:.4e}",
        f"route_codec_item_s = {values['route_codec_item_s']:.4e}",
        (f"delivery_group_s = {values['delivery_group_s']:.4e}   # per further delay group of "
        f"an arriving spike ({values['delivery_groups_per_spike']:.1f} a spike in the run)"),
        "",
    ]
    return "\n".join(lines)


def main() -> int:
    args = parse_arguments()
    launcher = launcher_from_options(args.launcher, args.hostfile, args.launcher_args)
    values = measure(args.binary, args.ranks, launcher) | measure_codec(args.codec_binary)
    with tempfile.TemporaryDirectory(prefix="spikex-fit-") as work:
        loop = measure_receive_loop(Path(work))
        loop |= measure_delivery_groups(Path(work), loop["spike_handling_s"])
    loop["spike_handling_hot_s"] = values["spike_handling_s"]  # the micro-benchmark's, for reference
    values |= loop
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(values, indent=2) + "\n", encoding="utf-8")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    text = profile_text(values, describe_machine(ROOT), args.name, args.description, args.comment)
    args.output.write_text(text, encoding="utf-8")
    print(f"fit_profile: wrote {args.output} and {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
