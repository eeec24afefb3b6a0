"""A SONATA circuit of `nest:glif_psc` cells (issue 55: the Allen Institute's point-neuron
circuits) read by `Network.from_sonata`: dynamics_params JSON in the Allen/BMTK style (NEST's
glif_psc names, JSON booleans for the level flags, four receptor ports, a GLIF1 node type
that gives no after-spike currents beside a GLIF5 one), synapse JSONs naming the
receptor_type. The same cells and connections made with the Python API fire the same
spikes. BMTK's pointnet on a GLIF circuit: tests/python/nest_validation/test_bmtk_sonata.py."""

from __future__ import annotations

import json

import h5py
import numpy as np
import spikex as sx
from sonata_circuits import write_circuit

TAU_SYN = [5.5, 8.5, 2.8, 5.8]
GLIF5 = {  # NEST's defaults are GLIF5 parameters; the flags as JSON booleans
    "V_th": -51.68, "g": 9.43, "E_L": -78.85, "C_m": 58.72, "t_ref": 3.75, "V_reset": -78.85,
    "asc_init": [0.0, 0.0], "asc_decay": [0.003, 0.1], "asc_amps": [-9.18, -198.94], "asc_r": [1.0, 1.0],
    "tau_syn": TAU_SYN, "spike_dependent_threshold": True, "after_spike_currents": True,
    "adapting_threshold": True,
}  # fmt: skip
GLIF1 = {
    "V_th": -60.0, "g": 5.0, "E_L": -70.0, "C_m": 50.0, "t_ref": 2.0, "V_reset": -70.0,
    "tau_syn": TAU_SYN, "spike_dependent_threshold": False, "after_spike_currents": False,
    "adapting_threshold": False,
}  # fmt: skip
NODE_TYPES = [10, 10, 11, 10]  # cell k's node type: 10 GLIF5, 11 GLIF1
EDGES = {  # input -> cell, edge type 1 (port 1) or 2 (port 3)
    "source_node_id": [0, 1, 2, 0, 1, 2], "target_node_id": [0, 1, 2, 3, 3, 0], "edge_type_id": [1, 1, 2, 2, 1, 2],
}  # fmt: skip
WEIGHTS = [220.0, 250.0, 120.0, 300.0, -60.0, 90.0]
DELAYS = [1.0, 1.5, 2.0, 0.5, 1.0, 0.7]
PORT = {1: 1, 2: 3}
TSTOP = 300.0


def _trains() -> dict[int, list[float]]:
    rng = np.random.default_rng(3)
    return {
        k: sorted({round(float(t), 1) for t in rng.uniform(1.0, TSTOP - 5.0, 60)}) for k in range(3)
    }


def _write(tmp_path):
    path = write_circuit(
        tmp_path, model="nest:glif_psc", cells=4, inputs=3, edges=EDGES,
        edge_groups={0: {"syn_weight": WEIGHTS, "delay": DELAYS}},
        edge_types="edge_type_id model_template dynamics_params\n1 static_synapse exc.json\n2 static_synapse lgn.json\n",
        spikes=_trains(), tstop=TSTOP,
    )  # fmt: skip
    cells = tmp_path / "components" / "cells"
    (cells / "glif5.json").write_text(json.dumps(GLIF5, indent=1))
    (cells / "glif1.json").write_text(json.dumps(GLIF1, indent=1))
    (tmp_path / "network" / "cells_types.csv").write_text(
        "node_type_id model_type model_template dynamics_params\n"
        "10 point_process nest:glif_psc glif5.json\n11 point_process nest:glif_psc glif1.json\n"
    )
    with h5py.File(tmp_path / "network" / "cells.h5", "r+") as f:
        f["nodes/cells/node_type_id"][...] = np.asarray(NODE_TYPES, dtype=np.uint64)
    for name, port in (("exc", 1), ("lgn", 3)):
        (tmp_path / "components" / "synapses" / f"{name}.json").write_text(
            json.dumps({"receptor_type": port})
        )
    return path


def _api_spikes() -> list[list[int]]:
    """The same cells and connections through the Python API: each cell's spike steps."""
    net = sx.Network(dt_ms=0.1)
    cells = [net.create("glif_psc", 1, params=GLIF5 if t == 10 else GLIF1) for t in NODE_TYPES]
    inputs = [
        net.create("spike_source_array", 1, params={"spike_times": t}) for t in _trains().values()
    ]
    for s, t, e, w, d in zip(*EDGES.values(), WEIGHTS, DELAYS, strict=True):
        net.connect(inputs[s], cells[t], weight=w, delay_ms=d, receptor=PORT[e])
    net.record_spikes(np.array([c.first_gid for c in cells]))
    result = net.simulate(TSTOP)
    gids, steps = result.spikes[0], result.spike_steps
    return [sorted(steps[gids == c.first_gid].tolist()) for c in cells]


def test_glif_circuit_reads_allen_style_parameters_and_fires_as_the_api_network(tmp_path):
    net = sx.Network.from_sonata(_write(tmp_path))
    population = net.sonata.populations["cells"]
    assert population.model == "glif_psc"
    assert net.get(population, "threshold")[2] == -60.0  # the GLIF1 node type's own V_th
    result = net.simulate(net.sonata.tstop_ms)
    names, nodes = net.sonata.node_ids(result.spikes[0])
    ours = [
        sorted(result.spike_steps[(names == "cells") & (nodes == k)].tolist()) for k in range(4)
    ]
    assert all(len(s) >= 5 for s in ours), [len(s) for s in ours]
    assert ours == _api_spikes()
