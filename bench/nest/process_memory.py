"""Memory of the running process, the same way for both simulators' benchmark scripts."""

from __future__ import annotations

import resource


def rss_mb() -> float:
    """Current resident set size in MiB (Linux /proc)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def peak_rss_mb() -> float:
    """Peak resident set size in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
