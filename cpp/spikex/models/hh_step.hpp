#pragma once
// What NEST's Hodgkin-Huxley models (hh_cond_exp_traub, hh_psc_alpha) share: the rate
// functions' removable singularity, their cells as the ODE layer's lanes see them, and the
// spike test after the step's update.
#include <array>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "spikex/core/types.hpp"
#include "spikex/models/dynamics_failure.hpp"
#include "spikex/models/ode/lanes.hpp"

namespace spikex::hh_step {

// a x / (exp(x / k) - 1), the form of the HH rate functions (alpha_n, alpha_m, ...), in
// NEST's order of operations. At x = 0 the expression is 0/0 (NaN in NEST, e.g. for an
// initial V_m set exactly there) while the function tends to a k; within |x / k| < 1e-10,
// where the expression has lost its digits, the series a k (1 - u/2 + u^2/12) with
// u = x / k; elsewhere the expression itself.
// T: double (one cell) or ode::lanes (cells side by side: both forms, the lane's chosen).
template <class T>
SPIKEX_LANES_INLINE T rate(double a, const T& x, double k) {
    const T u = x / k;
    if constexpr (std::is_same_v<T, double>) {
        if (std::abs(u) < 1e-10) return a * k * (1.0 - u / 2.0 + u * u / 12.0);
        return a * x / (std::exp(u) - 1.0);
    } else {
        return ode::select(ode::less(ode::abs(u), 1e-10), a * k * (1.0 - u / 2.0 + u * u / 12.0),
                           a * x / (ode::exp(u) - 1.0));
    }
}

// The cells of a run of an HH group as rkf45_integrator::advance_cells sees them: state
// y[c] (V_m first) and sub-step per cell, the step's current I_stim per lane, and the
// right-hand side rhs(I_stim, y, f), generic in the number type; nothing between sub-steps.
template <std::size_t L, std::size_t N, class Rhs>
struct cells_with_current {
    std::vector<std::array<double, N>>& y;
    std::vector<double>& substeps;
    const double* stim;
    const Rhs& rhs;
    const char* model;
    const std::vector<gid_type>& gids;
    step_type n;
    double h;
    ode::lanes<L> I_stim{};

    std::array<double, N>& state(std::size_t c) { return y[c]; }
    double& substep(std::size_t c) { return substeps[c]; }
    void load(std::size_t l, std::size_t c) { I_stim[l] = stim ? stim[c] : 0.0; }
    SPIKEX_LANES_INLINE void derivative(const std::array<ode::lanes<L>, N>& x, std::array<ode::lanes<L>, N>& f) const {
        const ode::lanes<L> I = I_stim; // a copy: f's writes cannot alias it
        rhs(I, x, f);
    }
    void collapsed(std::size_t c) const { check_membrane(model, gids[c], n, h, false, y[c][0]); }
};

// Step 1 of an HH group's update for its cells begin .. end - 1: side by side
// (rkf45_integrator::advance_cells: each cell's own sub-steps, the same operations as one
// at a time), then NEST's check of each membrane.
template <class Integrator, class Rhs, std::size_t N>
void integrate_run(const Integrator& integrator, const Rhs& rhs, std::vector<std::array<double, N>>& y,
                   std::vector<double>& substeps, const double* stim, const char* model,
                   const std::vector<gid_type>& gids, step_type n, double h, std::size_t begin, std::size_t end) {
    ode::with_lanes([&](auto width) {
        constexpr std::size_t L = decltype(width)::value;
        cells_with_current<L, N, Rhs> cells{y, substeps, stim, rhs, model, gids, n, h};
        integrator.template advance_cells<L>(cells, begin, end, h);
    });
    for (std::size_t i = begin; i < end; ++i) check_membrane(model, gids[i], n, h, true, y[i][0]);
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
