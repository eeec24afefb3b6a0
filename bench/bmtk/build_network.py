"""A point-neuron SONATA circuit built with BMTK's NetworkBuilder, as a BMTK user makes one
(run with an interpreter that has bmtk; bench/bmtk/compare_bmtk.py does).

    python build_network.py DIRECTORY [--dt 0.1] [--tstop 1000]

``v1``: 100 iaf_psc_alpha cells in three node types (two excitatory, one inhibitory,
each with its own dynamics_params JSON), ``l5``: 30 iaf_psc_exp cells driven by v1's
excitatory cells (edges in a file of their own), ``lgn``: 50 virtual inputs with Poisson spike
trains (BMTK's PoissonSpikeGenerator, seed 1). Edges v1 -> v1 with nsyns from 1 to 3
per pair (BMTK multiplies syn_weight by nsyns), delays and weights per edge type; lgn ->
v1 with per-edge syn_weight (an edge-group dataset) and nsyns. A current clamp on the
v1 cells from 200 to 400 ms. The simulation config comes from BMTK's build_env_pointnet.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from bmtk.builder import NetworkBuilder
from bmtk.utils.reports.spike_trains import PoissonSpikeGenerator
from bmtk.utils.sim_setup import build_env_pointnet

CELL_TYPES = {
    "exc_a": (
        "e",
        {"C_m": 250.0, "tau_m": 20.0, "E_L": -70.0, "V_th": -50.0, "V_reset": -65.0, "t_ref": 2.0},
        40,
    ),
    "exc_b": (
        "e",
        {
            "C_m": 200.0,
            "tau_m": 15.0,
            "E_L": -72.0,
            "V_th": -52.0,
            "V_reset": -68.0,
            "t_ref": 3.0,
            "tau_syn_ex": 1.5,
        },
        40,
    ),
    "inh": (
        "i",
        {"C_m": 100.0, "tau_m": 10.0, "E_L": -70.0, "V_th": -53.0, "V_reset": -70.0, "t_ref": 1.0},
        20,
    ),
}


def nsyns_rule(source, target, low, high):
    """1..3 synapses between a pair, none for about half the pairs (deterministic)."""
    if source.node_id == target.node_id:
        return 0
    k = (source.node_id * 7919 + target.node_id * 104729) % 7
    return 0 if k < low else min(1 + k - low, high)


def build(directory: Path, dt: float, tstop: float) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    models = directory / "components" / "point_neuron_models"
    synapses = directory / "components" / "synaptic_models"
    models.mkdir(parents=True, exist_ok=True)
    synapses.mkdir(parents=True, exist_ok=True)
    v1 = NetworkBuilder("v1")
    for name, (ei, params, n) in CELL_TYPES.items():
        (models / f"{name}.json").write_text(json.dumps(params))
        v1.add_nodes(N=n, pop_name=name, ei=ei, model_type="point_process",
                     model_template="nest:iaf_psc_alpha", dynamics_params=f"{name}.json")  # fmt: skip
    for name in ("e2x", "i2x", "lgn"):
        (synapses / f"{name}.json").write_text("{}")
    v1.add_edges(source={"ei": "e"}, target={"ei": "e"}, connection_rule=nsyns_rule, connection_params={"low": 4, "high": 3},
                 syn_weight=30.0, delay=1.5, dynamics_params="e2x.json", model_template="static_synapse")  # fmt: skip
    v1.add_edges(source={"ei": "e"}, target={"ei": "i"}, connection_rule=nsyns_rule, connection_params={"low": 3, "high": 2},
                 syn_weight=40.0, delay=1.0, dynamics_params="e2x.json", model_template="static_synapse")  # fmt: skip
    v1.add_edges(source={"ei": "i"}, target={"ei": "e"}, connection_rule=nsyns_rule, connection_params={"low": 3, "high": 3},
                 syn_weight=-15.0, delay=0.8, dynamics_params="i2x.json", model_template="static_synapse")  # fmt: skip
    v1.build()
    v1.save(output_dir=str(directory / "network"))

    # A second population of another model (iaf_psc_exp), driven by v1's excitatory cells
    (models / "exp.json").write_text(
        json.dumps({"C_m": 150.0, "tau_m": 12.0, "V_th": -54.0, "tau_syn_ex": 3.0})
    )
    l5 = NetworkBuilder("l5")
    l5.add_nodes(N=30, pop_name="exp", ei="e", model_type="point_process", model_template="nest:iaf_psc_exp",
                 dynamics_params="exp.json")  # fmt: skip
    l5.add_edges(source=v1.nodes(ei="e"), target=l5.nodes(), connection_rule=nsyns_rule,
                 connection_params={"low": 3, "high": 2}, syn_weight=300.0, delay=1.2,
                 dynamics_params="e2x.json", model_template="static_synapse")  # fmt: skip
    l5.build()
    l5.save(output_dir=str(directory / "network"))

    lgn = NetworkBuilder("lgn")
    lgn.add_nodes(N=50, model_type="virtual", pop_name="lgn_input")
    conn = lgn.add_edges(target=v1.nodes(), connection_rule=lambda s, t: 2 if (s.node_id + t.node_id) % 4 == 0 else 0,
                         delay=2.0, dynamics_params="lgn.json", model_template="static_synapse")  # fmt: skip
    conn.add_properties(
        "syn_weight",
        rule=lambda s, t: 150.0 + 4.0 * ((s.node_id * 31 + t.node_id) % 11),
        dtypes=float,
    )
    lgn.build()
    lgn.save(output_dir=str(directory / "network"))

    inputs = directory / "inputs"
    inputs.mkdir(exist_ok=True)
    spikes = PoissonSpikeGenerator(population="lgn", seed=1)
    spikes.add(node_ids=list(range(50)), firing_rate=15.0, times=(0.0, tstop / 1000.0))
    spikes.to_sonata(str(inputs / "lgn_spikes.h5"))

    build_env_pointnet(base_dir=str(directory), network_dir=str(directory / "network"), tstop=tstop, dt=dt,
                       spikes_inputs=[("lgn", str(inputs / "lgn_spikes.h5"))],
                       current_clamp={"amp": 250.0, "delay": 200.0, "duration": 200.0},
                       components_dir=str(directory / "components"), overwrite_config=True)  # fmt: skip
    # The clamp on the v1 cells (BMTK's "all" would include the virtual nodes, which BMTK's
    # pointnet cannot clamp).
    simulation_path = directory / "simulation_config.json"
    simulation = json.loads(simulation_path.read_text())
    simulation["inputs"]["current_clamp"]["node_set"] = "v1"
    simulation_path.write_text(json.dumps(simulation, indent=2))
    return directory / "config.json"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--dt", type=float, default=0.1)
    parser.add_argument("--tstop", type=float, default=1000.0)
    args = parser.parse_args()
    np.random.seed(1)
    print(build(args.directory, args.dt, args.tstop))
