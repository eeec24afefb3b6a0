"""bench/nest/stdp_network.py written in PyNN for spikex.pynn (STDPMechanism with
SpikePairRule and the four weight dependences; the inhibitory set on
receptor_type="inhibitory"); prints the final weights in pA in the order of
stdp_network.connections(). tests/python/nest_validation/test_nest_stdp_synapse.py
compares them with NEST's stdp_synapse."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench" / "nest"))
import spikex.pynn as sim
from pyNN.parameters import Sequence
from stdp_network import DT, PARROT_DELAY, POST, PRE, RULES, T_SIM, connections, pre_spike_times

WEIGHT_DEPENDENCE = {  # (mu_plus, mu_minus) -> PyNN's weight dependence
    (0.0, 0.0): lambda w_max, p: sim.AdditiveWeightDependence(w_min=0.0, w_max=w_max),
    (1.0, 1.0): lambda w_max, p: sim.MultiplicativeWeightDependence(w_min=0.0, w_max=w_max),
    (0.0, 1.0): lambda w_max, p: sim.AdditivePotentiationMultiplicativeDepression(
        w_min=0.0, w_max=w_max
    ),
}


def weight_dependence(params):
    w_max = abs(params["Wmax"]) / 1000.0  # pA -> nA; the inhibitory sign comes from the receptor
    make = WEIGHT_DEPENDENCE.get((params["mu_plus"], params["mu_minus"]))
    if make is not None:
        return make(w_max, params)
    return sim.GutigWeightDependence(
        w_min=0.0, w_max=w_max, mu_plus=params["mu_plus"], mu_minus=params["mu_minus"]
    )


def main() -> None:
    sim.setup(timestep=DT, min_delay=DT, max_delay=10.0)
    trains = [Sequence(np.asarray(t) + PARROT_DELAY) for t in pre_spike_times()]
    pre = sim.Population(PRE, sim.SpikeSourceArray(spike_times=trains))
    post = sim.Population(len(POST), sim.IF_curr_alpha(
        cm=0.25, tau_m=10.0, v_rest=-70.0, v_reset=-70.0, v_thresh=-55.0, tau_refrac=2.0, tau_syn_I=2.0,
        tau_syn_E=[p["tau_syn_ex"] for p in POST], i_offset=[p["I_e"] / 1000.0 for p in POST]))  # fmt: skip
    post.initialize(v=-70.0)
    order = {}  # (source, target) -> (projection, index of the row in its list)
    projections = []
    for rule, (params, weight) in RULES.items():
        for target, cell in enumerate(POST):
            rows = [
                (s, 0, weight / 1000.0, d)
                for r, s, t, d in connections()
                if r == rule and t == target
            ]
            stdp = sim.STDPMechanism(
                timing_dependence=sim.SpikePairRule(tau_plus=params["tau_plus"], tau_minus=cell["tau_minus"],
                                                    A_plus=params["lambda"], A_minus=params["alpha"] * params["lambda"]),
                weight_dependence=weight_dependence(params), weight=weight / 1000.0, delay=1.0)  # fmt: skip
            receptor = "inhibitory" if weight < 0 else "excitatory"
            prj = sim.Projection(pre, post[target:target + 1], sim.FromListConnector(rows, column_names=["weight", "delay"]),
                                 stdp, receptor_type=receptor)  # fmt: skip
            projections.append(prj)
            for source, _, _, _ in rows:
                order[(source, target)] = prj
    sim.run(T_SIM)
    weights = {}
    for prj in projections:
        target = int(prj.post.all_cells[0]) - int(post.all_cells[0])
        for i, _, w in prj.get("weight", format="list"):
            weights[(int(i), target)] = w * 1000.0
    print(json.dumps({"weights_pA": [weights[(s, t)] for _, s, t, _ in connections()]}))
    sim.end()


if __name__ == "__main__":
    main()
