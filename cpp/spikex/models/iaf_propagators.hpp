#pragma once
// What the exact-integration integrate-and-fire models (iaf_psc_alpha, iaf_psc_exp,
// iaf_psc_delta) share: the propagators from a synaptic current to V (NEST's
// IAFPropagatorExp / IAFPropagatorAlpha, libnestutil/iaf_propagator.*, with their
// fall-backs at tau_m == tau_syn), t_ref in whole steps (NEST's Time conversion) and the
// branch-free "not refractory" select of the vectorised updates.
//
// The expressions are NEST's, in NEST's order (reciprocals first, then products), and
// expm1 is NEST's own (nest_expm1), so that the propagators are bitwise NEST 3.10's.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <utility>

#include "spikex/models/model_parameters.hpp"

namespace spikex::iaf_integration {

// e^x - 1 as NEST 3.10's wheel computes it: its build has no HAVE_EXPM1 (config.h), so
// NEST's numerics::expm1 sums the Taylor series x + x^2/2! + ... until a term no longer
// changes the sum (|x| <= ln 2), else exp(x) - 1. It differs from std::expm1 in the last
// bit for some x; with it the propagators, so V_m, are bitwise NEST's.
inline double nest_expm1(double x) {
    if (x == 0) return 0;
    if (std::abs(x) > std::numbers::ln2) return std::exp(x) - 1;
    double sum = x;
    double term = x * x / 2;
    for (long n = 3; std::abs(term) > std::abs(sum) * std::numeric_limits<double>::epsilon(); ++n) {
        sum += term;
        term *= x / double(n);
    }
    return sum;
}

// The terms both synaptic shapes share (NEST's evaluate_P32_):
//   beta = tau_syn*tau_m/(tau_m - tau_syn) (inf when equal), gamma = beta/C,
//   x = expm1(h/tau_syn - h/tau_m) computed as nest_expm1(h*inv_beta),
//   P32 = gamma*exp(-h/tau_syn)*x, or its limit h/C*exp(-h/tau_m) when the formula does
//   not give a positive normal number (tau_m == tau_syn or numerically close).
struct current_to_voltage {
    double beta, gamma, inv_C_m, exp_h_tau_syn, expm1_h_tau, exp_h_tau_m, P32;
};

inline current_to_voltage current_to_voltage_terms(double tau_syn, double tau_m, double C_m, double h) {
    current_to_voltage t{};
    t.beta = tau_syn * tau_m / (tau_m - tau_syn);
    t.gamma = t.beta / C_m;
    const double inv_tau_syn = 1 / tau_syn, inv_tau_m = 1 / tau_m;
    t.inv_C_m = 1 / C_m;
    const double inv_beta = (tau_m - tau_syn) / (tau_syn * tau_m); // 0 when equal
    t.exp_h_tau_syn = std::exp(-h * inv_tau_syn);
    t.expm1_h_tau = nest_expm1(h * inv_beta);
    t.exp_h_tau_m = std::exp(-h * inv_tau_m);
    t.P32 = t.gamma * t.exp_h_tau_syn * t.expm1_h_tau;
    if (!(std::isnormal(t.P32) && t.P32 > 0)) t.P32 = h * t.inv_C_m * t.exp_h_tau_m;
    return t;
}

// Exponential current -> V over one step h (NEST's IAFPropagatorExp, iaf_psc_exp's P21):
//   (tau_syn/C)·tau_m/(tau_m - tau_syn)·(exp(-h/tau_m) - exp(-h/tau_syn)),
//   limit h/C·exp(-h/tau_m) when tau_m == tau_syn.
inline double exp_current_propagator(double tau_syn, double tau_m, double C_m, double h) {
    return current_to_voltage_terms(tau_syn, tau_m, C_m, h).P32;
}

// Alpha current: P31 (dI -> V) and P32 (I -> V) (NEST's IAFPropagatorAlpha):
//   P31 = gamma*exp(-h/tau_syn)*(beta*x - h) when h > 1e-7*tau_m^2/|tau_m - tau_syn|,
//   else its limit h^2/(2C)*exp(-h/tau_m).
inline std::pair<double, double> alpha_current_propagators(double tau_syn, double tau_m, double C_m, double h) {
    const current_to_voltage t = current_to_voltage_terms(tau_syn, tau_m, C_m, h);
    const double h_min_regular = 1e-7 * tau_m * tau_m / std::abs(tau_m - tau_syn);
    const double P31 = h > h_min_regular ? t.gamma * t.exp_h_tau_syn * (t.beta * t.expm1_h_tau - h)
                                         : 0.5 * h * h * t.inv_C_m * t.exp_h_tau_m;
    return {P31, t.P32};
}

// Steps of t_ref, as NEST's Time converts it: to whole tics of 1 us (nearest), then up to
// whole steps. A dt that is not a whole number of tics (NEST refuses those): up to whole
// steps directly, to within 1e-9 of a step.
inline std::int64_t refractory_steps(double t_ref, double h) {
    const double tics_per_step = h * 1000.0;
    const auto rounded = std::llround(tics_per_step);
    if (rounded >= 1 && std::abs(tics_per_step - double(rounded)) <= 1e-9 * tics_per_step) {
        const auto tics = static_cast<std::int64_t>(std::floor(t_ref * 1000.0 + 0.5));
        return (tics + rounded - 1) / rounded;
    }
    return static_cast<std::int64_t>(std::ceil(t_ref / h - 1e-9));
}

// r == 0 ? updated : kept, as a bit mask: a conditional would keep the compiler from
// computing `updated` speculatively (floating point may trap), so from vectorising.
inline double if_not_refractory(std::int32_t r, double updated, double kept) {
    const std::uint64_t not_refractory = std::uint64_t(0) - std::uint64_t(r == 0);
    return std::bit_cast<double>((std::bit_cast<std::uint64_t>(updated) & not_refractory) |
                                 (std::bit_cast<std::uint64_t>(kept) & ~not_refractory));
}

// refractory_steps as the int32 counter the models keep: user_error naming `model` when
// t_ref is too long for it at step h.
inline std::int32_t checked_refractory_steps(const char* model, double t_ref, double h) {
    constexpr auto largest = std::numeric_limits<std::int32_t>::max();
    if (t_ref / h > double(largest - 1)) {
        model_parameters::require(false, model, "t_ref", t_ref,
                                  "must be at most " + model_parameters::number(largest * h) +
                                      " ms at dt = " + model_parameters::number(h) + " ms");
    }
    return static_cast<std::int32_t>(refractory_steps(t_ref, h));
}

} // namespace spikex::iaf_integration
