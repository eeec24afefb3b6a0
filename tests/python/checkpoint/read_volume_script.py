"""How much each rank reads while restoring (test_restore_pieces.py), SPMD.

    python read_volume_script.py save DIR RANKS      # hpc_benchmark STDP, 30 ms, a checkpoint in DIR
    python read_volume_script.py restore DIR RANKS   # build, restore; rank 0 prints the bytes per rank

Cells are distributed consecutively. ``restore`` measures the bytes each rank read through
read(2) (``/proc/self/io`` rchar) while verifying the checkpoint (SHA-256 of its 64 KB
blocks, shared by the ranks) and during ``restore_state``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import h5py  # noqa: F401  (imported before the measurement: importing it reads its own files)
import spikex as sx
from spikex import _core
from spikex.io import checkpoint as ckpt
from spikex.io.checkpoint import open_checkpoint, restore_state
from spikex.runtime.collective import int64_per_rank
from spikex.version import __version__

CONFIG = {
    "simulation": {"dt_ms": 0.1},
    "network": {
        "model": "hpc_benchmark",
        "plastic": True,
        "scale": 0.04,
        "indegree_e": 300,
        "indegree_i": 75,
    },
    "distribution": {"scheme": "consecutive"},
    "record": {"spikes": False},
}


def read_bytes() -> int:
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    return 0


def main() -> None:
    action, directory = sys.argv[1], Path(sys.argv[2])
    if action == "save":
        ckpt.HASH_BLOCK = 1 << 16  # blocks of 64 KB: the ranks share the checks of a small file
        net = sx.Network.from_config(CONFIG)
        net.simulate(30.0)
        path = net.save(directory)
        if _core.comm_rank() == 0:
            size = sum(p.stat().st_size for p in path.iterdir() if p.suffix == ".h5")
            print("RESULT", json.dumps({"bytes": size}), flush=True)
        return
    before = read_bytes()
    checkpoint = open_checkpoint(directory, __version__)
    verify = [int(v) for v in int64_per_rank([read_bytes() - before])[:, 0]]
    net = sx.Network.from_config(CONFIG)
    net._build()
    before = read_bytes()
    restore_state(checkpoint, net._engine)
    read = [int(v) for v in int64_per_rank([read_bytes() - before])[:, 0]]
    net._initialise()
    if _core.comm_rank() == 0:
        print("RESULT", json.dumps({"verify_bytes": verify, "read_bytes": read}), flush=True)


if __name__ == "__main__":
    main()
