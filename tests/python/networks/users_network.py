"""A small network that uses every model, device, distribution, connection rule and
plastic synapse type of users' networks, for the determinism tests (imported by the SPMD
script the tests run); and ones driven through short-term synapses alone (`tsodyks`) and
through stochastic synapses alone (`stochastic`)."""

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
    # Hodgkin-Huxley cells (the ODE layer's RKF45): driven by the others, a current, and
    # output to them.
    traub = net.create("hh_cond_exp_traub", 12, params={"E_L": -70.0, "I_e": sx.uniform(100.0, 900.0)}, name="traub")
    hh = net.create("hh_psc_alpha", 10, params={"V_m": sx.uniform(-70.0, -60.0), "I_e": sx.uniform(500.0, 1500.0)}, name="hh")
    net.connect_rule("fixed_indegree", exp, traub, indegree=6, weight=sx.uniform(1.0, 4.0), delay_ms=d_e)
    net.connect_rule("fixed_indegree", inh, hh, indegree=4, weight=-40.0, delay_ms=0.4)
    net.connect_rule("all_to_all", step, hh, weight=1.0, delay_ms=0.2)
    net.connect_rule("fixed_outdegree", traub, inh, outdegree=3, weight=0.5, delay_ms=sx.uniform(0.1, 1.0))
    net.connect_rule("fixed_outdegree", hh, exp, outdegree=4, weight=20.0, delay_ms=0.6)
    # Current generators: NEST's sine recurrence, and a noise per target redrawn every dt.
    ac = net.create("ac_generator", 1, params={"amplitude": 120.0, "offset": 30.0, "frequency": 25.0, "phase": 45.0, "start": 15.0}, name="ac")
    noise = net.create("noise_generator", 1, params={"mean": 20.0, "std": 150.0, "std_mod": 100.0, "frequency": 10.0, "dt": 0.3}, name="noise")
    net.connect_rule("all_to_all", ac, cond, weight=1.0, delay_ms=0.3)
    net.connect_rule("all_to_all", noise, exp[0:60], weight=1.0, delay_ms=sx.uniform(0.1, 1.0))
    # Short-term plasticity: each spike scaled by its group's state (depressing onto exp,
    # facilitating onto the delta cells, inhibitory onto alpha).
    net.connect_rule("fixed_indegree", trains, exp, indegree=2, weight=sx.uniform(40.0, 80.0), delay_ms=sx.uniform(0.3, 1.2),
                     synapse="tsodyks_synapse", synapse_params={"U": 0.4, "tau_psc": 0.5, "tau_rec": 100.0})  # fmt: skip
    net.connect_rule("pairwise_bernoulli", exp, inh, probability=0.05, weight=sx.uniform(0.5, 2.0), delay_ms=0.8,
                     synapse="tsodyks2_synapse", synapse_params={"U": 0.05, "u": 0.05, "tau_rec": 50.0, "tau_fac": 300.0})  # fmt: skip
    net.connect_rule("fixed_indegree", inh, alpha, indegree=2, weight=-15.0, delay_ms=sx.uniform(0.2, 0.9),
                     synapse="tsodyks2_synapse", synapse_params={"U": 0.5, "u": 0.5, "tau_rec": 200.0})  # fmt: skip
    # Stochastic transmission: each spike crosses by keyed draws (bernoulli onto exp, quantal
    # release onto the delta cells, with multapses).
    net.connect_rule("fixed_indegree", trains, exp, indegree=3, weight=sx.uniform(20.0, 60.0), delay_ms=sx.uniform(0.3, 1.2),
                     synapse="bernoulli_synapse", synapse_params={"p_transmit": 0.5})  # fmt: skip
    net.connect_rule("fixed_indegree", exp, inh, indegree=4, weight=0.5, delay_ms=0.6,
                     synapse="quantal_stp_synapse", synapse_params={"U": 0.3, "u": 0.3, "tau_rec": 80.0, "n": 3, "a": 3})  # fmt: skip
    # Adaptation and escape noise: gif_cond_exp (kernel lists, one per cell for q_sfa; each
    # cell's own noise stream) and iaf_cond_exp_sfa_rr, in the loop with the others.
    gif = net.create("gif_cond_exp", 20, params={"I_e": sx.uniform(140.0, 190.0), "tau_stc": [10.0, 80.0], "q_stc": [15.0, 3.0],
                                                 "tau_sfa": [30.0], "q_sfa": [[2.0 + 0.2 * k] for k in range(20)]}, name="gif")  # fmt: skip
    sfa = net.create("iaf_cond_exp_sfa_rr", 10, params={"I_e": sx.uniform(600.0, 900.0)}, name="sfa")
    net.connect_rule("fixed_indegree", exp, gif, indegree=6, weight=sx.uniform(0.5, 2.0), delay_ms=d_e)
    net.connect_rule("fixed_indegree", inh, gif, indegree=3, weight=-2.0, delay_ms=0.3)
    net.connect_rule("fixed_outdegree", gif, exp, outdegree=4, weight=25.0, delay_ms=sx.uniform(0.1, 1.0))
    net.connect_rule("fixed_indegree", gif, sfa, indegree=4, weight=2.0, delay_ms=0.4)
    net.connect_rule("one_to_one", poisson[1:2], sfa[0:1], weight=1.0, delay_ms=0.2)
    # Renewal spike sources: one process (state saved) and superpositions (drawn again).
    gamma = net.create("spike_source_gamma", 4, params={"rate": sx.uniform(40.0, 120.0), "gamma_shape": 3, "n_proc": np.array([1, 1, 2, 4]), "start": 5.0}, name="gamma")
    ppd = net.create("spike_source_poisson_refractory", 4, params={"rate": 80.0, "dead_time": sx.uniform(1.0, 4.0), "n_proc": np.array([1, 3, 1, 2]), "frequency": 10.0, "relative_amplitude": 0.5}, name="ppd")
    inh_gamma = net.create("spike_source_inh_gamma", 3, params={"gamma_shape": 2.0, "rate_times": [[0.0, 80.0], [10.0], [0.0, 50.0, 150.0]], "rate_values": [[50.0, 150.0], [90.0], [200.0, 0.0, 60.0]]}, name="inh_gamma")
    net.connect_rule("fixed_outdegree", gamma, exp, outdegree=8, weight=30.0, delay_ms=sx.uniform(0.1, 1.0))
    net.connect_rule("fixed_outdegree", ppd, inh, outdegree=6, weight=1.0, delay_ms=0.3)
    net.connect_rule("all_to_all", inh_gamma, cond, weight=2.0, delay_ms=sx.uniform(0.2, 1.2))
    # Adaptive exponential cells (spikes between the ODE layer's sub-steps), both shapes,
    # with per-cell parameters, input from the others and a step current, output to them.
    adex = net.create("aeif_cond_alpha", 12, params={"V_m": sx.uniform(-70.0, -55.0), "I_e": sx.uniform(500.0, 900.0), "b": 40.0, "t_ref": 1.0}, name="adex")
    adex_exp = net.create("aeif_cond_exp", 8, params={"a": sx.uniform(0.0, 4.0), "w": sx.uniform(0.0, 50.0), "I_e": 800.0}, name="adex_exp")
    net.connect_rule("fixed_indegree", exp, adex, indegree=6, weight=sx.uniform(1.0, 4.0), delay_ms=d_e)
    net.connect_rule("fixed_indegree", inh, adex_exp, indegree=4, weight=-2.0, delay_ms=0.3)
    net.connect_rule("all_to_all", step, adex_exp, weight=1.0, delay_ms=0.2)
    net.connect_rule("fixed_outdegree", adex, adex_exp, outdegree=2, weight=3.0, delay_ms=0.5)
    net.connect_rule("fixed_outdegree", adex_exp, inh, outdegree=3, weight=0.5, delay_ms=sx.uniform(0.1, 1.0))
    # Receptor ports (the multisynapse aeif models): excitatory and inhibitory inputs through
    # ports of their own (per-cell reversal potentials; beta's third port with equal time
    # constants), STDP through a port, a step current, output to the others.
    multi = net.create("aeif_cond_alpha_multisynapse", 8, params={"E_rev": [[0.0, -80.0 - k] for k in range(8)], "tau_syn": [0.5, 3.0],
                                                                 "I_e": sx.uniform(700.0, 900.0), "t_ref": 1.0}, name="multi")  # fmt: skip
    beta = net.create("aeif_cond_beta_multisynapse", 6, params={"E_rev": [0.0, -85.0, -20.0], "tau_rise": [0.3, 1.0, 2.0],
                                                               "tau_decay": [2.0, 5.0, 2.0], "I_e": 650.0, "b": 30.0}, name="beta")  # fmt: skip
    net.connect_rule("fixed_indegree", exp, multi, indegree=6, weight=sx.uniform(1.0, 3.0), delay_ms=d_e, receptor=1)
    net.connect_rule("fixed_indegree", inh, multi, indegree=4, weight=2.0, delay_ms=0.3, receptor=2)
    net.connect_rule("fixed_indegree", trains, multi, indegree=2, weight=sx.uniform(1.0, 3.0), delay_ms=0.5, receptor=1,
                     synapse="stdp_synapse", synapse_params={"lambda": 0.05, "Wmax": 6.0})  # fmt: skip
    net.connect_rule("fixed_indegree", adex, beta, indegree=3, weight=sx.uniform(1.0, 4.0), delay_ms=0.5, receptor=1)
    net.connect_rule("fixed_indegree", inh, beta, indegree=3, weight=1.5, delay_ms=0.4, receptor=2)
    net.connect_rule("fixed_indegree", exp, beta, indegree=2, weight=1.0, delay_ms=0.7, receptor=3)
    net.connect_rule("all_to_all", step, beta, weight=1.0, delay_ms=0.2)
    net.connect_rule("fixed_outdegree", multi, exp, outdegree=3, weight=20.0, delay_ms=sx.uniform(0.1, 1.0))
    net.connect_rule("fixed_outdegree", beta, inh, outdegree=3, weight=0.5, delay_ms=0.6)
    # Current-based ports (iaf_psc_exp_multisynapse): three decay times, inputs of both
    # signs through each, a step current, output to the others.
    psc_multi = net.create("iaf_psc_exp_multisynapse", 8, params={"tau_syn": [0.4, 3.0, 15.0], "I_e": sx.uniform(330.0, 420.0),
                                                                 "V_m": sx.uniform(-70.0, -56.0)}, name="psc_multi")  # fmt: skip
    net.connect_rule("fixed_indegree", exp, psc_multi, indegree=5, weight=sx.uniform(50.0, 150.0), delay_ms=d_e, receptor=1)
    net.connect_rule("fixed_indegree", inh, psc_multi, indegree=4, weight=-40.0, delay_ms=0.3, receptor=2)
    net.connect_rule("fixed_indegree", multi, psc_multi, indegree=2, weight=30.0, delay_ms=0.5, receptor=3)
    net.connect_rule("all_to_all", step, psc_multi, weight=0.3, delay_ms=0.2)
    net.connect_rule("fixed_outdegree", psc_multi, exp, outdegree=3, weight=15.0, delay_ms=0.4)
    psc_alpha_multi = net.create("iaf_psc_alpha_multisynapse", 6, params={"tau_syn": [[0.5, 10.0]] * 3 + [[2.0, 10.0]] * 3,
                                                                         "I_e": 360.0, "V_min": -80.0}, name="psc_alpha_multi")  # fmt: skip
    net.connect_rule("fixed_indegree", exp, psc_alpha_multi, indegree=4, weight=sx.uniform(60.0, 120.0), delay_ms=d_e, receptor=1)
    net.connect_rule("fixed_indegree", inh, psc_alpha_multi, indegree=3, weight=-50.0, delay_ms=0.4, receptor=2)
    net.connect_rule("fixed_outdegree", psc_alpha_multi, inh, outdegree=2, weight=20.0, delay_ms=0.3)
    # GLIF (receptor ports, no I_e: a dc current per cell): glif_psc at level 5 with the four
    # ports of the Allen V1 models, glif_cond at level 4 with per-cell reversal potentials;
    # inputs through ports, a step current, output to the others.
    five = {"spike_dependent_threshold": True, "after_spike_currents": True, "adapting_threshold": True}
    glif_psc = net.create("glif_psc", 8, params={**five, "tau_syn": [5.5, 8.5, 2.8, 5.8], "V_m": sx.uniform(-78.0, -60.0)},
                          name="glif_psc")  # fmt: skip
    glif_cond = net.create("glif_cond", 6, params={**five, "adapting_threshold": False, "tau_syn": [0.5, 2.0],
                                                   "E_rev": [[0.0, -80.0 - k] for k in range(6)]}, name="glif_cond")  # fmt: skip
    glif_dc = net.create("dc_generator", 1, params={"amplitude": 1.0, "start": 10.0}, name="glif_dc")
    net.connect_rule("all_to_all", glif_dc, glif_psc, weight=sx.uniform(200.0, 300.0), delay_ms=0.1)
    net.connect_rule("all_to_all", glif_dc, glif_cond, weight=sx.uniform(300.0, 400.0), delay_ms=0.1)
    net.connect_rule("fixed_indegree", exp, glif_psc, indegree=5, weight=sx.uniform(40.0, 90.0), delay_ms=d_e, receptor=1)
    net.connect_rule("fixed_indegree", inh, glif_psc, indegree=3, weight=-30.0, delay_ms=0.3, receptor=3)
    net.connect_rule("all_to_all", step, glif_psc, weight=0.5, delay_ms=0.2)
    net.connect_rule("fixed_indegree", exp, glif_cond, indegree=5, weight=sx.uniform(1.0, 3.0), delay_ms=d_e, receptor=1)
    net.connect_rule("fixed_indegree", inh, glif_cond, indegree=3, weight=2.0, delay_ms=0.4, receptor=2)
    net.connect_rule("fixed_outdegree", glif_psc, exp, outdegree=3, weight=15.0, delay_ms=0.4)
    net.connect_rule("fixed_outdegree", glif_cond, inh, outdegree=2, weight=2.0, delay_ms=0.3)
    for pop in (exp, inh, alpha, array, trains, cond, traub, hh, gif, sfa, gamma, ppd, inh_gamma, adex, adex_exp, multi, beta,
                psc_multi, psc_alpha_multi, glif_psc, glif_cond):  # fmt: skip
        net.record_spikes(pop)
    net.record_state(exp[0:4], "V_m", interval_ms=1.0)
    net.record_state(cond[0:3], "g_ex", interval_ms=1.0)
    net.record_state(hh[0:3], "Act_n", interval_ms=1.0)
    net.record_state(adex[0:3], "w", interval_ms=1.0)
    net.record_state(adex_exp[0:3], "V_m", interval_ms=1.0)
    net.record_state(gif[0:3], "E_sfa", interval_ms=1.0)
    net.record_state(multi[0:3], "V_m", interval_ms=1.0)
    net.record_state(beta[0:3], "g_2", interval_ms=1.0)
    net.record_state(psc_multi[0:3], "I_syn_3", interval_ms=1.0)
    net.record_state(glif_psc[0:3], "threshold", interval_ms=1.0)
    net.record_state(glif_cond[0:3], "g_1", interval_ms=1.0)
    return net


# Changes between runs (Network.set) at CHANGE_AT_MS: parameters, state variables, device
# settings and spike lists of several models, so that the determinism and resume tests
# cover them.
CHANGE_AT_MS = 100.0


def apply_changes(net: sx.Network) -> None:
    pops = {p.name: p for p in net.populations}
    net.set(pops["exp"][0:10], I_e=550.0)
    net.set(pops["exp"][10:14], V_m=[-54.0, -58.0, -60.0, -62.0])
    net.set(pops["cond"][0:5], V_m=-55.0, g_ex=2.0)
    net.set(pops["cond"][5:10], g_L=20.0, E_L=-65.0)
    net.set(pops["delta"][0:6], V_th=-56.0)
    net.set(pops["bg"], rate=[5000.0, 1000.0])
    net.set(pops["dc"], amplitude=-100.0)
    net.set(pops["array"][1:3], spike_times=[[101.3, 150.0], [120.0, 130.0, 190.5]])
    net.set(pops["trains"], rate=300.0)
    net.set(pops["traub"][0:4], I_e=800.0, g_Na=18000.0)
    net.set(pops["hh"][0:3], V_m=-50.0)
    net.set(pops["gamma"][0:3], rate=150.0)
    net.set(pops["ppd"][1:2], dead_time=0.5)
    net.set(pops["inh_gamma"][0:1], rate_times=[[0.0, 120.0]], rate_values=[[30.0, 250.0]])
    net.set(pops["beta"][0:2], V_m=-52.0, w=10.0)
    net.set(pops["psc_multi"][0:3], V_m=-57.0, tau_syn=[[0.6, 2.0, 9.0]] * 3)  # same ports, new decay times
    net.set(pops["glif_psc"][0:2], V_m=-60.0, threshold_spike=1.0)
    net.set(pops["step"], amplitude_times=[30.0, 90.0, 150.0, 170.0], amplitude_values=[200.0, -50.0, 0.0, 300.0])


def simulate_until(net: sx.Network, t_ms: float, changes: bool):
    """net.simulate_until(t_ms), with apply_changes at CHANGE_AT_MS when it is crossed."""
    if changes and net.dt_ms * net._engine.step < CHANGE_AT_MS <= t_ms:
        net.simulate_until(CHANGE_AT_MS)
        apply_changes(net)
    return net.simulate_until(t_ms)


def tsodyks(method: str, threads: int, distribution: str, seed: int = 5) -> sx.Network:
    """Poisson trains into excitatory and inhibitory neurons, and recurrent connections,
    all through tsodyks_synapse and tsodyks2_synapse (depressing, facilitating, inhibitory,
    several delays per source): every spike's weight depends on its group's state."""
    net = sx.Network(dt_ms=DT, seed=seed, method=method, threads=threads, distribution=distribution)
    trains = net.create("spike_source_poisson", 30, params={"rate": sx.uniform(20.0, 60.0)}, name="trains")
    exc = net.create("iaf_psc_exp", 80, params={"I_e": sx.uniform(300.0, 370.0), "tau_syn_ex": 2.0, "tau_syn_in": 2.0}, name="exc")
    inh = net.create("iaf_psc_delta", 20, params={"I_e": 360.0, "V_m": sx.uniform(-70.0, -56.0)}, name="inh")
    depressing = {"U": 0.5, "tau_psc": 2.0, "tau_rec": 300.0}
    facilitating = {"U": 0.05, "tau_psc": 2.0, "tau_rec": 50.0, "tau_fac": 500.0}
    net.connect_rule("fixed_indegree", trains, exc, indegree=4, weight=sx.uniform(300.0, 700.0), delay_ms=sx.uniform(0.5, 2.0),
                     synapse="tsodyks_synapse", synapse_params=depressing)  # fmt: skip
    net.connect_rule("fixed_indegree", trains, exc, indegree=3, weight=900.0, delay_ms=sx.uniform(0.5, 2.0),
                     synapse="tsodyks_synapse", synapse_params=facilitating)  # fmt: skip
    net.connect_rule("fixed_indegree", exc, exc, indegree=6, weight=sx.uniform(100.0, 300.0), delay_ms=sx.uniform(0.1, 1.5),
                     synapse="tsodyks_synapse", synapse_params=depressing)  # fmt: skip
    net.connect_rule("fixed_indegree", exc, inh, indegree=8, weight=sx.uniform(1.0, 4.0), delay_ms=sx.uniform(0.1, 1.0),
                     synapse="tsodyks2_synapse", synapse_params={"U": 0.04, "u": 0.04, "tau_rec": 40.0, "tau_fac": 400.0})  # fmt: skip
    net.connect_rule("fixed_indegree", inh, exc, indegree=4, weight=-300.0, delay_ms=sx.uniform(0.3, 1.0),
                     synapse="tsodyks2_synapse", synapse_params={"U": 0.6, "u": 0.6, "tau_rec": 250.0})  # fmt: skip
    for pop in (exc, inh):
        net.record_spikes(pop)
    net.record_state(exc[0:5], "V_m", interval_ms=0.5)
    return net


def stochastic(method: str, threads: int, distribution: str, seed: int = 6) -> sx.Network:
    """Poisson trains into excitatory and inhibitory neurons, and recurrent connections,
    all through bernoulli_synapse, quantal_stp_synapse (depressing, facilitating, one site,
    inhibitory) and stochastic_stp_synapse (multapses, several delays per source): every
    delivery is a draw."""
    net = sx.Network(dt_ms=DT, seed=seed, method=method, threads=threads, distribution=distribution)
    trains = net.create("spike_source_poisson", 30, params={"rate": sx.uniform(20.0, 60.0)}, name="trains")
    exc = net.create("iaf_psc_exp", 80, params={"I_e": sx.uniform(300.0, 370.0), "tau_syn_ex": 2.0, "tau_syn_in": 2.0}, name="exc")
    inh = net.create("iaf_psc_delta", 20, params={"I_e": 360.0, "V_m": sx.uniform(-70.0, -56.0)}, name="inh")
    depressing = {"U": 0.6, "u": 0.6, "tau_rec": 200.0, "n": 4, "a": 4}
    facilitating = {"U": 0.1, "u": 0.1, "tau_rec": 50.0, "tau_fac": 300.0, "n": 5, "a": 2}
    net.connect_rule("fixed_indegree", trains, exc, indegree=6, weight=sx.uniform(300.0, 700.0), delay_ms=sx.uniform(0.5, 2.0),
                     synapse="bernoulli_synapse", synapse_params={"p_transmit": 0.6})  # fmt: skip
    net.connect_rule("fixed_indegree", trains, exc, indegree=3, weight=250.0, delay_ms=sx.uniform(0.5, 2.0),
                     synapse="quantal_stp_synapse", synapse_params=facilitating)  # fmt: skip
    net.connect_rule("fixed_indegree", exc, exc, indegree=6, weight=sx.uniform(50.0, 100.0), delay_ms=sx.uniform(0.1, 1.5),
                     synapse="quantal_stp_synapse", synapse_params=depressing)  # fmt: skip
    net.connect_rule("fixed_indegree", exc, inh, indegree=8, weight=sx.uniform(1.0, 4.0), delay_ms=sx.uniform(0.1, 1.0),
                     synapse="quantal_stp_synapse", synapse_params={"U": 0.5, "u": 0.5, "tau_rec": 30.0})  # fmt: skip
    net.connect_rule("fixed_indegree", inh, exc, indegree=4, weight=-300.0, delay_ms=sx.uniform(0.3, 1.0),
                     synapse="bernoulli_synapse", synapse_params={"p_transmit": 0.3})  # fmt: skip
    net.connect_rule("fixed_indegree", trains, inh, indegree=5, weight=sx.uniform(2.0, 5.0), delay_ms=sx.uniform(0.2, 1.0),
                     synapse="stochastic_stp_synapse", synapse_params={"U": 0.4, "tau_rec": 80.0, "tau_fac": 30.0})  # fmt: skip
    for pop in (exc, inh):
        net.record_spikes(pop)
    net.record_state(exc[0:5], "V_m", interval_ms=0.5)
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
                net = {"microcircuit": microcircuit, "tsodyks": tsodyks, "stochastic": stochastic}.get(network, build)(method, t, distribution)
                connections = connections_sha256(net)
                result = simulate_until(net, 200.0 if network == "users" else 100.0, network == "users")
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
