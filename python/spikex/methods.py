"""Registry of spike-exchange methods, by the name used in C++, TOML, CLI and Python.

A new method adds one line here (and its C++ file); the configuration registry, the
``--help`` text, the generated docs and all error messages pick it up from this table.
"""

from __future__ import annotations

EXCHANGE_METHODS: dict[str, str] = {
    "allgather": (
        "MPI_Allgather of a fixed number of spike slots per rank each min-delay interval, "
        "overflow in a following MPI_Allgatherv (Hines et al. 2011, section Allgather)"
    ),
    "alltoall": (
        "directed exchange over NEST's two-tier connection store: MPI_Alltoall of equal "
        "per-destination sections, a second round only on overflow (Jordan et al. 2018)"
    ),
    "alltoallv": (
        "directed exchange: per-destination counts by MPI_Alltoall, then exactly the needed "
        "entries by MPI_Alltoallv (Jordan et al. 2018, section 4)"
    ),
    "multisend": (
        "each spike sent at once with MPI_Isend to the ranks holding its targets, conservation "
        "loop of MPI_Allreduce per (sub-)interval; one or two sub-intervals, one or two phases "
        "(Hines et al. 2011, sections Multisend, MPI point-to-point)"
    ),
    "persistent": (
        "multisend with persistent requests: MPI_Send_init per target rank on a cell's first "
        "spike, MPI_Start afterwards (the paper's Record-Replay)"
    ),
    "rma": (
        "one-sided MPI_Put of each spike into its source's slot in the target ranks' windows, "
        "flush + barrier + scan and an MPI_Allreduce count check per (sub-)interval (the DMA "
        "analogue)"
    ),
    "routed": (
        "aggregation and dimension-ordered software routing over a logical process grid: "
        "spikes travel in buckets through at most d routers, a counting termination wave per "
        "interval (Garg & Sabharwal, section 4)"
    ),
}
