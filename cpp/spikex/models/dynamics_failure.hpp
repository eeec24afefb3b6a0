#pragma once
// NEST's numerical-instability checks end the run (simulation_error, exit status 3) with
// one message naming the model, the cell and the time, never a silent NaN.
#include <cmath>
#include <string>
#include <string_view>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/core/types.hpp"
#include "spikex/models/model_parameters.hpp"

namespace spikex {

// Cell `gid` of `model` failed in the update of step n (time (n + 1) * dt): `what` says how.
[[noreturn]] inline void dynamics_failed(std::string_view model, gid_type gid, step_type n, double dt_ms,
                                         const std::string& what) {
    throw simulation_error(spikex::format("{} cell {} at t = {:g} ms: {}", model, gid, double(n + 1) * dt_ms, what));
}

// The common check of conductance-based models: V_m finite and not below -1000 mV (NEST's
// bound for its aeif models), and the integrator did not collapse its step.
// (`model` a string_view: the checks run after every sub-step, and a model's name is a
// literal that must not become a std::string there.)
inline void check_membrane(std::string_view model, gid_type gid, step_type n, double dt_ms, bool integrated,
                           double V_m) {
    if (integrated && std::isfinite(V_m) && V_m >= -1e3) return;
    dynamics_failed(model, gid, n, dt_ms,
                    spikex::format("the numerical integration failed (V_m = {} mV): the parameters or inputs make "
                                   "the dynamics unstable; a smaller dt or other parameters may help",
                                   model_parameters::number(V_m)));
}

// NEST's bound on an adaptation current (its aeif models): |w| <= 1e6 pA (and finite).
inline void check_adaptation(std::string_view model, gid_type gid, step_type n, double dt_ms, double w) {
    if (std::abs(w) <= 1e6) return;
    dynamics_failed(model, gid, n, dt_ms,
                    spikex::format("the adaptation current diverged (w = {} pA, beyond NEST's bound of 1e6 pA in "
                                   "magnitude): the parameters or inputs make the dynamics unstable",
                                   model_parameters::number(w)));
}

} // namespace spikex
