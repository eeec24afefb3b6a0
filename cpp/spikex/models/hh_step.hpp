#pragma once
// What NEST's Hodgkin-Huxley models (hh_cond_exp_traub, hh_psc_alpha) share: the rate
// functions' removable singularity and the spike test after the step's update.
#include <cmath>
#include <cstdint>

namespace spikex::hh_step {

// a x / (exp(x / k) - 1), the form of the HH rate functions (alpha_n, alpha_m, ...), in
// NEST's order of operations. At x = 0 the expression is 0/0 (NaN in NEST, e.g. for an
// initial V_m set exactly there) while the function tends to a k; within |x / k| < 1e-10,
// where the expression has lost its digits, the series a k (1 - u/2 + u^2/12) with
// u = x / k; elsewhere the expression itself.
inline double rate(double a, double x, double k) {
    const double u = x / k;
    if (std::abs(u) < 1e-10) return a * k * (1.0 - u / 2.0 + u * u / 12.0);
    return a * x / (std::exp(u) - 1.0);
}

// NEST's spike test after the integration and the step's input: a refractory cell counts
// down (the dynamics go on; no test); otherwise V >= threshold while V fell during the
// step (V < V_old, its value at the start: the step passed a maximum above threshold) is a
// spike, after which the next `refractory_steps` steps are not tested. True: a spike.
inline bool spike_test(std::int32_t& refractory, double V_old, double V, double threshold,
                       std::int32_t refractory_steps) {
    if (refractory > 0) {
        --refractory;
        return false;
    }
    if (V >= threshold && V_old > V) {
        refractory = refractory_steps;
        return true;
    }
    return false;
}

} // namespace spikex::hh_step
