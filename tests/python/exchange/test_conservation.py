"""Nothing lost: events_delivered equals the sum over recorded spikes of each source's
out-degree, computed independently from the connection lists of every rank."""

from __future__ import annotations

import json

import pytest
from conftest import marked, run_spmd, write_config

SCRIPT = """
    import json, numpy as np, spikex as sx
    from spikex import _core
    net = sx.Network.from_config({config!r}, {overrides!r})
    conns = net.connections()
    result = net.simulate(100.0)
    gids, _ = result.spikes
    # out-degree of every source from this rank's connection list, summed over ranks
    local = np.bincount(conns["source"], minlength=net.cells).astype(np.int64)
    degree = _core.allgather_int64(local).reshape(net.ranks, net.cells).sum(axis=0)
    if net.rank == 0:
        print(json.dumps({{"expected": int(degree[gids].sum()),
                          "events_delivered": result.summary["events_delivered"],
                          "connections": result.summary["connections"],
                          "degree_total": int(degree.sum())}}))
"""


@pytest.mark.parametrize(
    "ranks,overrides",
    marked(
        [(1, []), (3, []), (4, ["exchange.allgather_slots=1"]),
         (2, ["network.connectivity=adjacent", "distribution.scheme=consecutive"])],
        mpi_if=lambda case: case[0] > 1,
        slow_if=lambda case: case[0] > 2,
    ),
)
def test_events_delivered_equal_out_degrees_of_spikes(tmp_path, ranks, overrides):
    config = write_config(tmp_path)
    done = run_spmd(SCRIPT.format(config=str(config), overrides=overrides), ranks, tmp_path)
    assert done.returncode == 0, done.stderr
    counts = json.loads(done.stdout.strip().splitlines()[-1])
    assert counts["degree_total"] == counts["connections"]
    assert counts["events_delivered"] == counts["expected"] > 0
