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
}
