"""The cases of the renewal spike sources' NEST comparison (bench/nest/
nest_spike_source_trains.py, tests/python/nest_validation/test_nest_spike_source_trains.py):
for each, NEST 3.10's generator (one generator per parrot neuron: one train each) and the
spikex source with the same parameters, CELLS trains of T_SIM ms at dt = DT. Imported by
both interpreters (plain Python)."""

from __future__ import annotations

DT = 0.1
WINDOW = {"start": 10.0, "stop": 20.0, "origin": 5.0}  # NEST acts in steps 151..250

# name: (NEST model, NEST params, spikex model, spikex params, cells, t_sim ms)
CASES = {
    "gamma_order4": ("gamma_sup_generator", {"rate": 50.0, "gamma_shape": 4},
                     "spike_source_gamma", {"rate": 50.0, "gamma_shape": 4}, 20, 100_000.0),
    "gamma_superposed": ("gamma_sup_generator", {"rate": 10.0, "gamma_shape": 3, "n_proc": 5},
                         "spike_source_gamma", {"rate": 10.0, "gamma_shape": 3, "n_proc": 5}, 20, 100_000.0),
    "gamma_fast": ("gamma_sup_generator", {"rate": 500.0, "gamma_shape": 2},  # PyNN's alpha 2, beta 1000: p = 0.1
                   "spike_source_gamma", {"rate": 500.0, "gamma_shape": 2}, 5, 20_000.0),
    "ppd_dead5": ("ppd_sup_generator", {"rate": 100.0, "dead_time": 5.0},
                  "spike_source_poisson_refractory", {"rate": 100.0, "dead_time": 5.0}, 20, 50_000.0),
    "ppd_offgrid": ("ppd_sup_generator", {"rate": 60.0, "dead_time": 2.55},
                    "spike_source_poisson_refractory", {"rate": 60.0, "dead_time": 2.55}, 20, 50_000.0),
    "ppd_modulated": ("ppd_sup_generator",
                      {"rate": 40.0, "dead_time": 2.0, "frequency": 5.0, "relative_amplitude": 0.8},
                      "spike_source_poisson_refractory",
                      {"rate": 40.0, "dead_time": 2.0, "frequency": 5.0, "relative_amplitude": 0.8}, 20, 100_000.0),
    "ppd_superposed": ("ppd_sup_generator", {"rate": 30.0, "dead_time": 3.0, "n_proc": 4},
                       "spike_source_poisson_refractory", {"rate": 30.0, "dead_time": 3.0, "n_proc": 4}, 20, 50_000.0),
    "ppd_window": ("ppd_sup_generator", {"rate": 5000.0, **WINDOW},
                   "spike_source_poisson_refractory", {"rate": 5000.0, **WINDOW}, 40, 50.0),
    "gamma_window": ("gamma_sup_generator", {"rate": 2500.0, "gamma_shape": 2, **WINDOW},
                     "spike_source_gamma", {"rate": 2500.0, "gamma_shape": 2, **WINDOW}, 40, 50.0),
    # No NEST 3.10 model has a gamma process with rate steps: a constant rate against
    # sinusoidal_gamma_generator (NEST's inhomogeneous gamma process, a hazard per step),
    # and rate steps at gamma_shape 1 against inhomogeneous_poisson_generator.
    "inh_gamma_constant": ("sinusoidal_gamma_generator", {"rate": 30.0, "order": 3.0},
                           "spike_source_inh_gamma",
                           {"gamma_shape": 3.0, "rate_times": [0.0], "rate_values": [30.0]}, 20, 100_000.0),
    "inh_poisson_steps": ("inhomogeneous_poisson_generator",
                          {"rate_times": [20.0, 25.0, 5000.0], "rate_values": [3000.0, 40.0, 0.0]},
                          "spike_source_inh_gamma",
                          {"gamma_shape": 1.0, "rate_times": [20.0, 25.0, 5000.0], "rate_values": [3000.0, 40.0, 0.0]},
                          40, 6000.0),
}  # fmt: skip
