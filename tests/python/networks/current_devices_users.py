"""A small network driven by ac_generators and noise_generators (one with a modulated
variance, one with a stop), for the determinism tests of test_current_devices.py (named apart from bench/nest/current_devices_network.py, which the NEST tests put on sys.path) (imported
by the SPMD scripts they run too)."""

from __future__ import annotations

import spikex as sx


def build(
    threads: int = 1, method: str = "allgather", distribution: str = "round_robin"
) -> sx.Network:
    net = sx.Network(dt_ms=0.1, seed=9, threads=threads, method=method, distribution=distribution)
    cells = net.create("iaf_psc_exp", 30, params={"I_e": 300.0}, name="cells")
    ac = net.create(
        "ac_generator", 2,
        params={"amplitude": [150.0, 80.0], "offset": 20.0, "frequency": [10.0, 33.0], "phase": 45.0, "start": 5.0},
        name="ac",
    )  # fmt: skip
    noise = net.create(
        "noise_generator", 2,
        params={"mean": [40.0, 0.0], "std": [120.0, 60.0], "std_mod": [0.0, 50.0], "frequency": 20.0, "dt": 0.3,
                "stop": 180.0},
        name="noise",
    )  # fmt: skip
    net.connect_rule(
        "fixed_indegree",
        cells,
        cells,
        indegree=5,
        weight=sx.uniform(20.0, 60.0),
        delay_ms=sx.uniform(0.5, 2.0),
    )
    net.connect_rule("all_to_all", ac, cells, weight=1.0, delay_ms=sx.uniform(0.1, 1.0))
    net.connect_rule("all_to_all", noise, cells, weight=1.0, delay_ms=sx.uniform(0.1, 1.0))
    net.record_spikes(cells)
    return net
