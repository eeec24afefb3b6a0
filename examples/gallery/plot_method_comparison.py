"""
Exchange methods: the same spikes, different traffic
====================================================

The demo network of Hines, Kumar & Schürmann 2011 (``examples/hines2011_demo.toml``) at
1,024 cells and 50 ms, run by ``spikex run --np 2`` with three exchange methods. Every
method gives the same spikes (``spikes_sha256``); what differs is what goes over the wire:
messages and bytes sent, from ``summary.json``'s ``exchange`` counters. ``spikex compare``
does this for any methods, ranks and repeats, with times (:doc:`/user/compare`).
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt

# The repository's examples/ folder (the gallery runs from examples/gallery/).
EXAMPLES = Path.cwd().parent if Path.cwd().name == "gallery" else Path("examples")
CONFIG = EXAMPLES / "hines2011_demo.toml"
methods = ["allgather", "alltoall", "multisend"]
summaries = {}
with tempfile.TemporaryDirectory() as out:
    for method in methods:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "spikex",
                "run",
                str(CONFIG),
                "--np",
                "2",
                "-o",
                f"{out}/{method}",
                "--set",
                f"exchange.method={method}",
                "--set",
                "network.cells=1024",
                "--set",
                "network.indegree=100",
                "--set",
                "network.indegree_spread=10",
                "--set",
                "simulation.tstop_ms=50",
            ],
            check=True,
            capture_output=True,
            text=True,
        )
        summaries[method] = json.loads(Path(f"{out}/{method}/summary.json").read_text())

hashes = {summaries[m]["spikes_sha256"] for m in methods}
print(f"{len(hashes)} distinct spikes_sha256 over {len(methods)} methods: {hashes.pop()[:16]}...")
for m in methods:
    e = summaries[m]["exchange"]
    print(
        f"{m:10s} messages {e['messages_sent']:6d}  bytes {e['bytes_sent']:8d}  rounds {e['rounds']}"
    )

fig, axes = plt.subplots(1, 2, figsize=(8, 3), layout="constrained")
for ax, counter in zip(axes, ["messages_sent", "bytes_sent"]):
    ax.bar(methods, [summaries[m]["exchange"][counter] for m in methods], color="tab:green")
    ax.set(title=counter.replace("_", " ") + " (2 ranks, 50 ms)")
plt.show()
