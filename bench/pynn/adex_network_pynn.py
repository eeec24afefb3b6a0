"""An AdEx network written in PyNN, for any PyNN backend:
``python adex_network_pynn.py SIMULATOR [CELLS [SEED]]`` (bench/pynn/run.py runs it through
as_backend.py on pyNN.nest and spikex.pynn; nothing in it is specific to either).

The network of bench/nest/aeif_network.py (validated against NEST at 400 cells) with
the structure of PyNN's VAbenchmarks.py: CELLS (default 4,000) EIF_cond_exp_isfa_ista
cells (NEST's aeif_cond_exp), 80 % excitatory; NEST 3.10's aeif_cond_exp defaults with
aeif_network.py's changes (t_ref 2 ms, a 2 nS, b 40 pA, tau_syn_I 2 ms), every parameter
given explicitly (PyNN's defaults for this type are not NEST's); V_m uniform in
[-70.6, -55] mV; every pair connected with probability 2 % (FixedProbabilityConnector, no
self-connections), e nS excitatory and 4e nS inhibitory, 1.5 ms delay; each cell driven by its own Poisson source at 14 kHz, 2e nS
(a SpikeSourcePoisson population, one to one: pyNN.nest relays each train through a
parrot_neuron, spikex.pynn feeds a source with a single target straight in). Simulates
1 s at dt = 0.1 ms; writes the spikes to Results/adex_network_<simulator>.pkl and prints
the build and simulation times (PyNN's Timer).

The connections are drawn by PyNN from a NumpyRNG, as VAbenchmarks.py draws them (both
backends get the same connections; the build is slower than a native draw, the simulation
is not affected). A NativeRNG would let each backend draw natively, but spikex.pynn
refuses a NativeRNG connector onto an inhibitory conductance-based receptor ("Weights
must be positive for conductance-based and/or excitatory synapses": it applies PyNN's
sign check to the weight after negating it, python/spikex/pynn/projections.py
``_native_rule``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from pyNN.random import NumpyRNG, RandomDistribution
from pyNN.utility import Timer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "nest"))
from aeif_network import CELL, DELAY, DRIVE_RATE, DT, weights

SIM_MS = 1000.0
PROBABILITY = 0.02
# NEST 3.10's aeif_cond_exp defaults (GetDefaults; docs/models/aeif_cond.md), NEST's names
NEST_DEFAULTS = {
    "C_m": 281.0, "g_L": 30.0, "E_L": -70.6, "V_th": -50.4, "V_reset": -60.0, "V_peak": 0.0,
    "Delta_T": 2.0, "tau_w": 144.0, "a": 4.0, "b": 80.5, "t_ref": 0.0, "tau_syn_ex": 0.2,
    "tau_syn_in": 2.0, "E_ex": 0.0, "E_in": -85.0, "I_e": 0.0,
}  # fmt: skip


def pynn_parameters(nest: dict) -> dict:
    """NEST's aeif_cond_exp parameters in PyNN's names and units (nF, nA, uS)."""
    return {
        "cm": nest["C_m"] / 1000.0, "tau_m": nest["C_m"] / nest["g_L"], "v_rest": nest["E_L"],
        "v_thresh": nest["V_th"], "v_reset": nest["V_reset"], "v_spike": nest["V_peak"],
        "delta_T": nest["Delta_T"], "tau_w": nest["tau_w"], "a": nest["a"], "b": nest["b"] / 1000.0,
        "tau_refrac": nest["t_ref"], "tau_syn_E": nest["tau_syn_ex"], "tau_syn_I": nest["tau_syn_in"],
        "e_rev_E": nest["E_ex"], "e_rev_I": nest["E_in"], "i_offset": nest["I_e"] / 1000.0,
    }  # fmt: skip


def main() -> None:
    simulator = sys.argv[1]
    n_cells = int(sys.argv[2]) if len(sys.argv) > 2 else 4000
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    sim = __import__(f"pyNN.{simulator}", fromlist=["setup"])
    timer = Timer()
    timer.start()
    sim.setup(timestep=DT, min_delay=DT, max_delay=10.0, rng_seed=seed)
    n_e = round(0.8 * n_cells)
    cell_type = sim.EIF_cond_exp_isfa_ista(**pynn_parameters({**NEST_DEFAULTS, **CELL}))
    exc = sim.Population(n_e, cell_type, label="Excitatory")
    inh = sim.Population(n_cells - n_e, cell_type, label="Inhibitory")
    v_rng = NumpyRNG(seed=54 + seed, parallel_safe=True)
    connection_rng = NumpyRNG(seed=98765 + seed, parallel_safe=True)
    w_e, w_i, w_drive = (abs(w) / 1000.0 for w in weights("aeif_cond_exp"))  # nS -> uS
    connector = sim.FixedProbabilityConnector(
        PROBABILITY, allow_self_connections=False, rng=connection_rng
    )
    for cells in (exc, inh):
        cells.initialize(v=RandomDistribution("uniform", low=-70.6, high=-55.0, rng=v_rng))
        cells.record("spikes")
        drive = sim.Population(cells.size, sim.SpikeSourcePoisson(rate=DRIVE_RATE),
                               label=f"{cells.label}_drive")  # fmt: skip
        sim.Projection(drive, cells, sim.OneToOneConnector(),
                       sim.StaticSynapse(weight=w_drive, delay=DT), receptor_type="excitatory")  # fmt: skip
    for source, w, receptor in ((exc, w_e, "excitatory"), (inh, w_i, "inhibitory")):
        for target in (exc, inh):
            sim.Projection(source, target, connector, sim.StaticSynapse(weight=w, delay=DELAY),
                           receptor_type=receptor)  # fmt: skip
    build = timer.diff()
    sim.run(SIM_MS)
    simulate = timer.diff()
    Path("Results").mkdir(exist_ok=True)
    (exc + inh).write_data(f"Results/adex_network_{simulator}.pkl")
    if sim.rank() == 0:
        print(f"Number of Neurons  : {n_cells}")
        print(f"Build time         : {build:g} s")
        print(f"Simulation time    : {simulate:g} s")
    sim.end()


if __name__ == "__main__":
    main()
