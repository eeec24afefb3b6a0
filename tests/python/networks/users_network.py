"""A small network that uses every model, device, distribution, connection rule and
plastic synapse type of users' networks, for the determinism tests (imported by the SPMD
script the tests run)."""

from __future__ import annotations

import hashlib
import sys

import numpy as np

import spikex as sx
from spikex.runtime.collective import gather_int64
from spikex import _core

DT = 0.1


def build(method: str, threads: int, distribution: str, seed: int = 11) -> sx.Network:
    net = sx.Network(dt_ms=DT, seed=seed, method=method, threads=threads, distribution=distribution)
    exp = net.create(
        "iaf_psc_exp", 120,
        params={
            "V_m": sx.normal_clipped(-60.0, 6.0, low=-80.0, high=-52.0),
            "I_e": sx.uniform(300.0, 500.0),
            "tau_m": np.linspace(8.0, 12.0, 120),
            "tau_syn_ex": 0.5, "tau_syn_in": 0.5,
        },
        name="exp",
    )  # fmt: skip
    inh = net.create("iaf_psc_delta", 40, params={"V_m": sx.uniform(-70.0, -56.0), "I_e": sx.lognormal(5.0, 0.2)}, name="delta")
    alpha = net.create("iaf_psc_alpha", 30, params={"V_m": sx.exponential(3.0), "I_e": 376.0, "tau_minus": 25.0}, name="alpha")
    poisson = net.create("poisson_generator", 2, params={"rate": np.array([3000.0, 6000.0]), "start": 20.0}, name="bg")
    dc = net.create("dc_generator", 1, params={"amplitude": 150.0, "start": 50.0, "stop": 120.0}, name="dc")
    times = [np.arange(1.0, 200.0, 7.0 + k) for k in range(5)]
    array = net.create("spike_source_array", 5, params={"spike_times": times}, name="array")
    trains = net.create("spike_source_poisson", 6, params={"rate": sx.uniform(50.0, 150.0), "start": 10.0}, name="trains")
    w_e = sx.normal_clipped(40.0, 8.0, low=0.0)
    d_e = sx.normal_clipped(1.0, 0.5, low=DT)
    net.connect_rule("fixed_indegree", exp, exp, indegree=12, weight=w_e, delay_ms=d_e)
    net.connect_rule("fixed_outdegree", exp, inh, outdegree=5, weight=sx.uniform(0.1, 0.8), delay_ms=sx.uniform(0.1, 2.0))
    net.connect_rule("fixed_total_number", inh, exp, total_number=900, weight=sx.normal_clipped(-50.0, 10.0, high=0.0), delay_ms=d_e)
    net.connect_rule("pairwise_bernoulli", alpha, exp, probability=0.1, weight=30.0, delay_ms=0.3, allow_autapses=False)
    net.connect_rule("pairwise_bernoulli", exp, alpha, probability=0.2, weight=sx.normal(20.0, 5.0), delay_ms=0.7)
    net.connect_rule("one_to_one", exp[0:30], alpha, weight=25.0, delay_ms=0.2)
    net.connect_rule("all_to_all", array, inh, weight=2.0, delay_ms=sx.normal_clipped(0.5, 0.2, low=DT))
    net.connect_rule("fixed_indegree", inh, inh, indegree=4, weight=-1.0, delay_ms=0.1, allow_autapses=False, allow_multapses=False)
    net.connect_rule("all_to_all", poisson[0:1], exp, weight=20.0, delay_ms=1.5)
    net.connect_rule("one_to_one", poisson, alpha[0:2], weight=40.0, delay_ms=0.4)
    net.connect_rule("all_to_all", dc, alpha, weight=1.0, delay_ms=0.5)
    net.connect_rule("fixed_outdegree", trains, exp, outdegree=10, weight=30.0, delay_ms=sx.uniform(0.1, 1.0))
    # Plastic inputs (stdp_synapse, one excitatory and one inhibitory parameter set): the
    # weights move with the spikes, so any difference in order or timing shows.
    net.connect_rule("fixed_indegree", trains, alpha, indegree=3, weight=sx.uniform(20.0, 60.0), delay_ms=sx.uniform(0.5, 1.5),
                     synapse="stdp_synapse", synapse_params={"lambda": 0.05, "Wmax": 120.0, "mu_plus": 0.0, "mu_minus": 1.0})  # fmt: skip
    net.connect_rule("pairwise_bernoulli", inh, alpha, probability=0.1, weight=-20.0, delay_ms=0.6,
                     synapse="stdp_synapse", synapse_params={"lambda": 0.02, "Wmax": -60.0})  # fmt: skip
    rng = np.random.default_rng(3)
    src, tgt = rng.integers(exp.first_gid, exp.stop_gid, 300), rng.integers(inh.first_gid, inh.stop_gid, 300)
    net.connect(src, tgt, weight=rng.uniform(0.1, 0.5, 300), delay_ms=rng.choice([0.1, 0.2, 1.3], 300))
    # Conductance-based cells (the ODE layer) with a step current, input from and output
    # to the others, and STDP onto them.
    cond = net.create("iaf_cond_exp", 25, params={"V_m": sx.uniform(-70.0, -56.0), "I_e": sx.uniform(250.0, 400.0)}, name="cond")
    step = net.create("step_current_generator", 1, params={"amplitude_times": [30.0, 90.0, 150.0], "amplitude_values": [200.0, -50.0, 120.0]}, name="step")
    net.connect_rule("fixed_indegree", exp, cond, indegree=8, weight=sx.uniform(1.0, 4.0), delay_ms=d_e)
    net.connect_rule("fixed_indegree", inh, cond, indegree=4, weight=-3.0, delay_ms=0.4)
    net.connect_rule("all_to_all", step, cond, weight=1.0, delay_ms=0.2)
    net.connect_rule("fixed_outdegree", cond, inh, outdegree=3, weight=0.5, delay_ms=sx.uniform(0.1, 1.0))
    net.connect_rule("fixed_indegree", trains, cond, indegree=2, weight=sx.uniform(1.0, 3.0), delay_ms=0.5,
                     synapse="stdp_synapse", synapse_params={"lambda": 0.05, "Wmax": 6.0})  # fmt: skip
    # Adaptive exponential cells (spikes between the ODE layer's sub-steps), both shapes,
    # with per-cell parameters, input from the others and a step current, output to them.
    adex = net.create("aeif_cond_alpha", 12, params={"V_m": sx.uniform(-70.0, -55.0), "I_e": sx.uniform(500.0, 900.0), "b": 40.0, "t_ref": 1.0}, name="adex")
    adex_exp = net.create("aeif_cond_exp", 8, params={"a": sx.uniform(0.0, 4.0), "w": sx.uniform(0.0, 50.0), "I_e": 800.0}, name="adex_exp")
    net.connect_rule("fixed_indegree", exp, adex, indegree=6, weight=sx.uniform(1.0, 4.0), delay_ms=d_e)
    net.connect_rule("fixed_indegree", inh, adex_exp, indegree=4, weight=-2.0, delay_ms=0.3)
    net.connect_rule("all_to_all", step, adex_exp, weight=1.0, delay_ms=0.2)
    net.connect_rule("fixed_outdegree", adex, adex_exp, outdegree=2, weight=3.0, delay_ms=0.5)
    net.connect_rule("fixed_outdegree", adex_exp, inh, outdegree=3, weight=0.5, delay_ms=sx.uniform(0.1, 1.0))
    for pop in (exp, inh, alpha, array, trains, cond, adex, adex_exp):
        net.record_spikes(pop)
    net.record_state(exp[0:4], "V_m", interval_ms=1.0)
    net.record_state(cond[0:3], "g_ex", interval_ms=1.0)
    net.record_state(adex[0:3], "w", interval_ms=1.0)
    net.record_state(adex_exp[0:3], "V_m", interval_ms=1.0)
    return net


def connections_sha256(net: sx.Network) -> str:
    """Hash of every rank's connections, sorted: the network itself, whatever P is."""
    c = net.connections()
    rows = np.stack(
        [
            gather_int64(c["source"]),
            gather_int64(c["target"]),
            gather_int64(np.round(c["weight"] * 1e9).astype(np.int64)),
            gather_int64(np.round(c["delay_ms"] / DT).astype(np.int64)),
        ],
        axis=1,
    )
    rows = rows[np.lexsort(rows.T[::-1])]
    return hashlib.sha256(rows.tobytes()).hexdigest()


def microcircuit(method: str, threads: int, distribution: str) -> sx.Network:
    """A small microcircuit (every input kind: Poisson, thalamus, DC stimulus)."""
    from pathlib import Path

    example = Path(__file__).resolve().parents[3] / "examples" / "microcircuit.toml"
    overrides = [
        "network.n_scaling=0.02", "network.k_scaling=0.05", "network.thalamic_input=true",
        "network.microcircuit.th_start_ms=20", "simulation.presim_ms=0",
        f"exchange.method={method}", f"simulation.threads={threads}", f"distribution.scheme={distribution}",
    ]  # fmt: skip
    net = sx.Network.from_config(example, overrides=overrides)
    net.record_state(net.populations[0][0:3], "V_m", interval_ms=1.0)
    return net


def main() -> None:
    methods = sys.argv[1].split(",")
    threads = [int(t) for t in sys.argv[2].split(",")]
    distributions = sys.argv[3].split(",")
    network = sys.argv[4] if len(sys.argv) > 4 else "users"
    for method in methods:
        for t in threads:
            for distribution in distributions:
                net = (microcircuit if network == "microcircuit" else build)(method, t, distribution)
                connections = connections_sha256(net)
                result = net.simulate(200.0 if network == "users" else 100.0)
                states = np.concatenate([s["values"].ravel() for s in result.states])
                state_sha = hashlib.sha256(np.ascontiguousarray(states).tobytes()).hexdigest()
                final_weights = connections_sha256(net)  # plastic weights as the run left them
                if _core.comm_rank() == 0:
                    pops = result.summary["populations"]
                    print(
                        "RESULT", method, t, distribution, result.summary["spikes_sha256"],
                        result.summary["spikes_total"], connections, state_sha, final_weights,
                        " ".join(f"{name}={p['spikes']}" for name, p in pops.items()),
                        flush=True,
                    )  # fmt: skip


if __name__ == "__main__":
    main()
