"""NEST's own SONATA reader, ``nest.SonataNetwork``, on a circuit: its spikes, or its build
time and peak memory per rank. Needs the NEST built with HDF5 (bench/nest/build_nest_hdf5.sh:
run with ``bench/nest-hdf5/python``); the PyPI wheel has no ``SonataNetwork``.

    bench/nest-hdf5/python nest_sonata_network.py spikes SIM_CONFIG [--circuit CIRCUIT_CONFIG]
        # one JSON line: {population: {node_ids, times}, "num_connections": n (the edges)}
    mpirun -np 2 bench/nest-hdf5/python nest_sonata_network.py measure SIM_CONFIG \\
        --circuit CIRCUIT_CONFIG --tstop 20 --out DIR
        # DIR/rank<r>.json per rank: seconds of SonataNetwork(...), Create, Connect (so
        # BuildNetwork), Simulate(tstop); VmHWM after the build and at the end; local
        # connections. --threads T: T threads per rank (default 1)

The circuit config is ``--circuit``, else the file the simulation config's ``network``
names, taken beside the simulation config.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path


def status_mb(key: str) -> float:
    """A line of /proc/self/status in MB (VmRSS: now; VmHWM: this process's peak)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    raise KeyError(key)


def circuit_of(sim_config: Path, circuit: Path | None) -> Path:
    if circuit is not None:
        return circuit
    network = json.loads(sim_config.read_text())["network"]
    return sim_config.parent / Path(network).name


def spikes(sim_config: Path, circuit: Path) -> dict:
    """Build with SonataNetwork, record every non-virtual population, simulate tstop."""
    import nest
    import numpy as np

    nest.ResetKernel()
    nest.set(local_num_threads=1, print_time=False)
    network = nest.SonataNetwork(circuit, sim_config=sim_config)
    populations = network.BuildNetwork()
    connections = int(nest.num_connections)
    recorders = {}
    for name, nodes in populations.items():
        if nodes[0].get("model") != "spike_train_injector":
            recorders[name] = nest.Create("spike_recorder")
            nest.Connect(nodes, recorders[name])
    network.Simulate()
    result = {"num_connections": connections}
    for name, recorder in recorders.items():
        events = recorder.get("events")
        first = populations[name][0].global_id
        result[name] = {
            "node_ids": (np.asarray(events["senders"]) - first).tolist(),
            "times": np.asarray(events["times"], dtype=float).tolist(),
        }
    return result


# NEST 3.10 keeps a node's index within its virtual process in 19 bits
# (nestkernel/target_data.h: NUM_BITS_LID); with more nodes per VP the first Simulate
# fails an assertion while building the presynaptic tables (BuildNetwork still succeeds).
MAX_NODES_PER_VP = 2**19 - 1


def measure(sim_config: Path, circuit: Path, tstop: float, out: Path, threads: int = 1) -> None:
    """Time and memory of SonataNetwork's build on this rank, then a short Simulate (left
    out, with the reason, where NEST cannot simulate this many nodes per VP)."""
    rss_start = status_mb("VmRSS")
    import nest

    nest.ResetKernel()
    nest.set(local_num_threads=threads, print_time=False)
    rank, ranks = nest.Rank(), nest.NumProcesses()
    rss_imported = status_mb("VmRSS")
    load = os.getloadavg()[0]
    start = time.perf_counter()
    network = nest.SonataNetwork(circuit, sim_config=sim_config)
    configured = time.perf_counter()
    network.Create()
    created = time.perf_counter()
    network.Connect()
    connected = time.perf_counter()
    peak_build = status_mb("VmHWM")
    report = {
        "rank": rank, "ranks": ranks, "threads": nest.local_num_threads,
        "local_connections": int(nest.GetKernelStatus("num_connections")),
        "network_size": int(nest.network_size),
        "config_s": round(configured - start, 3), "create_s": round(created - configured, 3),
        "connect_s": round(connected - created, 3), "build_s": round(connected - start, 3),
        "rss_before_import_mb": round(rss_start, 1), "rss_after_import_mb": round(rss_imported, 1),
        "peak_rss_build_mb": round(peak_build, 1), "load_1min_before": round(load, 2),
    }  # fmt: skip
    per_vp = -(-report["network_size"] // (ranks * threads))
    if per_vp > MAX_NODES_PER_VP:
        report["simulate_skipped"] = (
            f"{per_vp} nodes per virtual process > {MAX_NODES_PER_VP}, NEST 3.10's limit "
            "(target_data.h: NUM_BITS_LID = 19): Simulate would fail an assertion"
        )
    else:
        nest.Simulate(tstop)
        simulated = time.perf_counter()
        report["simulate_s"] = round(simulated - connected, 3)
        report["total_s"] = round(simulated - start, 3)
        report["peak_rss_mb"] = round(status_mb("VmHWM"), 1)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"rank{rank}.json").write_text(json.dumps(report) + "\n")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("spikes", "measure"))
    parser.add_argument("sim_config", type=Path)
    parser.add_argument("--circuit", type=Path)
    parser.add_argument("--tstop", type=float, default=20.0)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    os.environ.setdefault("PYNEST_QUIET", "1")
    circuit = circuit_of(args.sim_config, args.circuit)
    if args.mode == "spikes":
        print(json.dumps(spikes(args.sim_config, circuit)))
    else:
        measure(args.sim_config, circuit, args.tstop, args.out, args.threads)
