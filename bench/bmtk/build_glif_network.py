"""A GLIF point-neuron SONATA circuit built with BMTK's NetworkBuilder in the style of the
Allen Institute's V1 point models (`nest:glif_psc` cells whose dynamics_params JSON holds
NEST's glif_psc parameters, four receptor ports tau_syn = [5.5, 8.5, 2.8, 5.8], synapse
JSONs naming the receptor_type); run with an interpreter that has bmtk
(bench/bmtk/compare_bmtk.py --glif does).

    python build_glif_network.py DIRECTORY [--dt 0.1] [--tstop 1000]

``v1``: 90 glif_psc cells in three node types: ``e3`` (GLIF3, an Allen cell's fitted
parameters), ``e5`` (GLIF5, NEST's defaults: Allen cell 490626718) and ``i1`` (GLIF1);
edges e -> e and e -> i through port 1, i -> e through port 2 (negative weights: a
current-based model), nsyns 1-3 per pair; ``lgn``: 50 virtual Poisson inputs (seed 1)
through port 3 with per-edge weights; a current clamp on v1 from 200 to 400 ms.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from bmtk.builder import NetworkBuilder
from bmtk.utils.reports.spike_trains import PoissonSpikeGenerator
from bmtk.utils.sim_setup import build_env_pointnet

TAU_SYN = [5.5, 8.5, 2.8, 5.8]
CELL_TYPES = {
    "e3": ("e", {  # GLIF3 (LIF-ASC) of an Allen cell, as the V1 point models give it
        "V_m": -79.0417277018229, "V_th": -49.63934810542196, "g": 3.4780284104908676,
        "E_L": -79.0417277018229, "C_m": 60.72689987399939, "t_ref": 1.4500000000000002,
        "V_reset": -79.0417277018229, "asc_init": [0.0, 0.0], "asc_decay": [0.029999999999999992, 0.3],
        "asc_amps": [-23.825265478178427, -292.06473034028727], "tau_syn": TAU_SYN,
        "spike_dependent_threshold": False, "after_spike_currents": True, "adapting_threshold": False,
    }, 40),
    "e5": ("e", {  # GLIF5 (LIF-R-ASC-A): NEST's defaults
        "tau_syn": TAU_SYN, "spike_dependent_threshold": True, "after_spike_currents": True,
        "adapting_threshold": True,
    }, 30),
    "i1": ("i", {  # GLIF1 (LIF)
        "V_th": -40.0, "g": 8.0, "E_L": -70.0, "C_m": 40.0, "t_ref": 2.0, "V_reset": -70.0,
        "tau_syn": TAU_SYN, "spike_dependent_threshold": False, "after_spike_currents": False,
        "adapting_threshold": False,
    }, 20),
}  # fmt: skip


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
        (models / f"{name}.json").write_text(json.dumps(params, indent=2))
        v1.add_nodes(N=n, pop_name=name, ei=ei, model_type="point_process",
                     model_template="nest:glif_psc", dynamics_params=f"{name}.json")  # fmt: skip
    for name, port in (("e2x", 1), ("i2x", 2), ("lgn", 3)):
        (synapses / f"{name}.json").write_text(json.dumps({"receptor_type": port}))
    v1.add_edges(source={"ei": "e"}, target={"ei": "e"}, connection_rule=nsyns_rule, connection_params={"low": 4, "high": 3},
                 syn_weight=6.0, delay=1.5, dynamics_params="e2x.json", model_template="static_synapse")  # fmt: skip
    v1.add_edges(source={"ei": "e"}, target={"ei": "i"}, connection_rule=nsyns_rule, connection_params={"low": 3, "high": 2},
                 syn_weight=10.0, delay=1.0, dynamics_params="e2x.json", model_template="static_synapse")  # fmt: skip
    v1.add_edges(source={"ei": "i"}, target={"ei": "e"}, connection_rule=nsyns_rule, connection_params={"low": 3, "high": 3},
                 syn_weight=-3.0, delay=0.8, dynamics_params="i2x.json", model_template="static_synapse")  # fmt: skip
    v1.build()
    v1.save(output_dir=str(directory / "network"))

    lgn = NetworkBuilder("lgn")
    lgn.add_nodes(N=50, model_type="virtual", pop_name="lgn_input")
    conn = lgn.add_edges(target=v1.nodes(), connection_rule=lambda s, t: 2 if (s.node_id + t.node_id) % 4 == 0 else 0,
                         delay=2.0, dynamics_params="lgn.json", model_template="static_synapse")  # fmt: skip
    conn.add_properties(
        "syn_weight",
        rule=lambda s, t: 40.0 + 4.0 * ((s.node_id * 31 + t.node_id) % 11),
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
                       current_clamp={"amp": 200.0, "delay": 200.0, "duration": 200.0},
                       components_dir=str(directory / "components"), overwrite_config=True)  # fmt: skip
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
