"""The deterministic networks of the NEST exact-match check for iaf_psc_exp,
iaf_psc_delta (issue 17) and izhikevich (issue 54), the counterpart of ``exact_network.py`` (iaf_psc_alpha).

Shared by both sides: ``nest_exact_models.py`` (NEST's venv) builds a network in NEST 3.10
and exports its connections and spikes to an ``.npz`` file; ``spikex_exact_models.py``
(the main venv) rebuilds it from that file with ``net.create(model, n, params=arrays)``
and ``net.connect``. numpy only, so both venvs can import it.

The network: ``n`` neurons of one model (NEST's default parameters), 80 % excitatory,
no Poisson input. Each neuron has its own constant current ``I_e`` around the rheobase
``C_m (V_th - E_L) / tau_m = 375 pA`` and its own initial ``V_m`` (arrays drawn with
numpy from ``seed``), so that about half fire on their own. Connections: NEST's
``fixed_indegree`` (no autapses, multapses allowed), static, with heterogeneous delays:
each connection draws one of ``DELAY_CHOICES`` (0.1 to 2 ms, so the min delay is one
step); NEST draws the connections, spikex uses the exported ones.

* ``iaf_psc_exp``: weights JE = 28 pA (about 0.15 mV PSP peak at tau_syn 2 ms), g·JE
  inhibitory; every third neuron has tau_syn_ex = tau_syn_in = tau_m (NEST's singular
  propagator), the others 2 ms / 3 ms. Equal weights per channel: the input sums do not
  depend on the order they are added in.
* ``iaf_psc_delta``: weights 0.125 mV and -0.625 mV, binary fractions, so that the sum of
  a step's inputs of both signs is exact whatever its order (NEST sums them in delivery
  order, spikex in canonical order); every other neuron has ``refractory_input``.
* ``izhikevich``: NEST's default (regular-spiking) parameters, per-neuron ``I_e`` around
  5 pA and initial ``V_m``/``U_m``; weights 0.5 mV and -2.5 mV (binary fractions, as for
  iaf_psc_delta: inputs move V directly). Forward Euler as NEST: the same spikes.

Time convention (as exact_network.py): NEST stamps a spike at the end of its update step,
spikex at its start: ``step_spikex = round(t_NEST / h) - 1``.
"""

from __future__ import annotations

import numpy as np

RESOLUTION_MS = 0.1
EXCITATORY_FRACTION = 0.8
G = 5.0
DELAY_CHOICES_MS = (0.1, 0.2, 0.5, 0.8, 1.0, 1.3, 1.5, 2.0)
MODELS = ("iaf_psc_exp", "iaf_psc_delta", "izhikevich")

# NEST's defaults, written out: both sides set them explicitly.
COMMON = {"E_L": -70.0, "C_m": 250.0, "tau_m": 10.0, "t_ref": 2.0, "V_th": -55.0, "V_reset": -70.0}
RHEOBASE_PA = COMMON["C_m"] * (COMMON["V_th"] - COMMON["E_L"]) / COMMON["tau_m"]
JE = {"iaf_psc_exp": 28.0, "iaf_psc_delta": 0.125, "izhikevich": 0.5}  # pA, mV, mV
# izhikevich: NEST's defaults, written out.
IZHIKEVICH = {"a": 0.02, "b": 0.2, "c": -65.0, "d": 8.0, "V_th": 30.0}


def design(model: str, n: int = 120, indegree: int = 40, seed: int = 7) -> dict:
    """Everything but the connections (NEST draws those): sizes, weights, and per-neuron
    parameter arrays (numpy's default generator from ``seed``)."""
    if model not in MODELS:
        raise ValueError(f"model = {model!r}: must be one of {', '.join(MODELS)}")
    rng = np.random.default_rng(seed)
    if model == "izhikevich":
        v_m = rng.uniform(-70.0, -60.0, n)
        per_neuron = {"I_e": rng.normal(5.0, 1.5, n), "V_m": v_m, "U_m": 0.2 * v_m}
        return _design(model, n, indegree, seed, dict(IZHIKEVICH), per_neuron)
    i_e = rng.normal(RHEOBASE_PA, 0.08 * RHEOBASE_PA, n)
    v_m = rng.uniform(COMMON["V_reset"], COMMON["V_th"], n)
    per_neuron = {"I_e": i_e, "V_m": v_m}
    if model == "iaf_psc_exp":
        singular = np.arange(n) % 3 == 0
        per_neuron["tau_syn_ex"] = np.where(singular, COMMON["tau_m"], 2.0)
        per_neuron["tau_syn_in"] = np.where(singular, COMMON["tau_m"], 3.0)
    else:
        per_neuron["refractory_input"] = (np.arange(n) % 2 == 1).astype(np.float64)
    return _design(model, n, indegree, seed, dict(COMMON), per_neuron)


def _design(model: str, n: int, indegree: int, seed: int, params: dict, per_neuron: dict) -> dict:
    je = JE[model]
    return {
        "model": model,
        "n": n,
        "n_e": round(EXCITATORY_FRACTION * n),
        "k_e": round(EXCITATORY_FRACTION * indegree),
        "k_i": indegree - round(EXCITATORY_FRACTION * indegree),
        "seed": seed,
        "params": params,
        "per_neuron": per_neuron,
        "je": je,
        "ji": -G * je,
        "delay_choices_ms": DELAY_CHOICES_MS,
        "resolution_ms": RESOLUTION_MS,
    }
