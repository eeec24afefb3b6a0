"""NEST 3.10 side of the initial-V_m check (tests/python/nest_validation/test_nest_initial_v_m.py):
one neuron of each model created with only E_L (and a current) changed; prints JSON with
each model's V_m at every step of 100 ms and its spikes. Run with NEST's interpreter."""

from __future__ import annotations

import json

MODELS = ("iaf_psc_alpha", "iaf_psc_exp", "iaf_psc_delta", "iaf_cond_exp")
PARAMS = {"E_L": -65.0, "I_e": 260.0}
DT, T_SIM = 0.1, 100.0


def main() -> None:
    import nest

    nest.verbosity = nest.VerbosityLevel.ERROR
    out = {}
    for model in MODELS:
        nest.ResetKernel()
        nest.resolution = DT
        neuron = nest.Create(model, params=PARAMS)
        meter = nest.Create("multimeter", params={"record_from": ["V_m"], "interval": DT})
        recorder = nest.Create("spike_recorder")
        nest.Connect(meter, neuron)
        nest.Connect(neuron, recorder)
        initial = neuron.get("V_m")
        nest.Simulate(T_SIM)
        events = meter.get("events")
        out[model] = {
            "initial": float(initial),
            "times": [float(t) for t in events["times"]],
            "V_m": [float(v) for v in events["V_m"]],
            "spikes": [float(t) for t in recorder.get("events")["times"]],
        }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
