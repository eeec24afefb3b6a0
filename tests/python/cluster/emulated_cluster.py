"""The emulated cluster (scripts/mini_cluster.sh) as a fixture for the tests of this
folder (imported by them: a second conftest.py would shadow tests/python's): four
"hosts", each a network namespace on a private bridge, ranks on different hosts talking
over real TCP only. `make test-cluster` runs these tests (marker `cluster`); where
namespaces cannot be created (not root, no permission), they skip and say why.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
SCRIPT = REPO / "scripts" / "mini_cluster.sh"
HOSTS = 4
SLOTS = 2
SKIP_STATUS = 77  # mini_cluster.sh: cannot run here
STATE = Path("/run/spikex-mini-cluster")  # the script's default (prefix sx, 10.231.0.0/24)


@dataclass(frozen=True)
class Cluster:
    """An emulated cluster that is up: its hosts' addresses and names, and the mpiexec
    options that start ranks on them."""

    state: Path
    addresses: tuple[str, ...]
    names: tuple[str, ...]
    mpiexec_options: tuple[str, ...]  # without --hostfile

    @property
    def hostfile(self) -> Path:
        return self.state / "hostfile"

    def hosts_option(self, hosts: int, ranks_per_host: int) -> list[str]:
        """Ranks on the first `hosts` hosts, `ranks_per_host` on each (narrows the hostfile)."""
        chosen = ",".join(f"{address}:{ranks_per_host}" for address in self.addresses[:hosts])
        return ["--host", chosen]

    def mpiexec(self, ranks: int, hosts: int, ranks_per_host: int, program: list[str]) -> list[str]:
        """Launch mode (b): mpiexec --hostfile starts `program` as the job's ranks."""
        return ["mpiexec", *self.mpiexec_options, "--hostfile", str(self.hostfile),
                *self.hosts_option(hosts, ranks_per_host), "-np", str(ranks), *program]  # fmt: skip

    def mpiexec_on_first_host(self, ranks: int, hosts: int, ranks_per_host: int, program: list[str]) -> list[str]:
        """Mode (b) as on a cluster, where mpiexec runs in the batch script on the first
        host and starts that host's ranks itself (its daemons start the others')."""
        return ["ip", "netns", "exec", self.names[0], *self.mpiexec(ranks, hosts, ranks_per_host, program)]

    def launcher(self) -> str:
        """For `spikex run --launcher ... --hostfile HOSTFILE` (launch mode c)."""
        return shlex.join(["mpiexec", *self.mpiexec_options])

    def pids(self, name: str) -> list[int]:
        """Processes running inside host `name`'s network namespace."""
        listing = subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True,
                                 check=False)  # fmt: skip
        return [int(word) for word in listing.stdout.split()]

    def link(self, host: int, up: bool) -> None:
        """Take host `host`'s (1-based) link down or up."""
        subprocess.run(["ip", "netns", "exec", self.names[host - 1], "ip", "link", "set", "eth0",
                        "up" if up else "down"], check=True)  # fmt: skip


def mini_cluster(*args: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("MINI_CLUSTER_")}
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL, env=environment, check=False)  # fmt: skip


@pytest.fixture(scope="session", name="cluster")
def cluster_fixture():
    if os.geteuid() != 0:
        pytest.skip("the emulated cluster needs root (network namespaces)")
    up = mini_cluster("up", str(HOSTS), "--slots", str(SLOTS))
    if up.returncode == SKIP_STATUS:
        pytest.skip(f"no emulated cluster here: {up.stderr.strip()}")
    assert up.returncode == 0, up.stderr
    try:
        state = STATE
        hosts = [
            line.split() for line in (state / "hosts").read_text().splitlines() if line.strip()
        ]
        words = (state / "mpiexec_args").read_text().split()
        options = []
        while words:
            word = words.pop(0)
            if word == "--hostfile":
                words.pop(0)
            else:
                options.append(word)
        yield Cluster(state, tuple(h[0] for h in hosts), tuple(h[1] for h in hosts), tuple(options))
    finally:
        down = mini_cluster("down")
        assert down.returncode == 0, down.stderr
