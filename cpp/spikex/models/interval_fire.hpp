#pragma once
// interval_fire: the artificial cell of Hines, Kumar & Schürmann 2011 (NEURON's
// IntervalFire, ModelDB 137845), as spec/models.md defines it.
//
//  state m (starts at 0), t0 (time of last update), minf, current interval invl
//  drawing an interval at t: invl ~ U(invl_low, invl_high) (block k of the cell's
//    `intervals` stream for its k-th interval), divided by burst_factor while the cell's
//    burst group is bursting at t; minf = 1 / (1 - exp(-invl/tau))
//  m(t) = minf + (m0 - minf) exp(-(t - t0)/tau); firetime = tau ln((minf - m)/(minf - 1))
//  Long intervals: minf - 1 = 1/(exp(invl/tau) - 1) falls below double's resolution near
//  1 once invl/tau passes ~36 (minf rounds to 1 and firetime to infinity). The cell keeps
//  ln(minf - 1), computed without cancellation, and uses it where minf - 1 is small.
//  input w at t: m = m(t) + w; fire if m > 1, else the self-event moves to t + firetime
//  self-event: fire; m = 0; draw a new interval; next self-event at t + firetime
//  A self-event due at t_e is handled at step ceil(t_e/dt - 1e-9), and never earlier than
//  the step after the current one (a self-event is always in the future).
//  Bursts: burst_groups = Ng > 0 splits the population into Ng groups of contiguous gids,
//  group of gid = (gid - first) * Ng / size; group g bursts during
//  [g*period, (g+1)*period) modulo Ng*period.
#include <cmath>

namespace spikex::interval_fire {

struct parameters {
    // defaults, ranges and meanings: the parameter table (interval_fire.cpp)
    double tau_ms;
    double invl_low_ms;
    double invl_high_ms;
    int burst_groups;
    double burst_factor;
    double burst_period_ms;
};

inline double steady_state(double invl, double tau) { return 1.0 / (1.0 - std::exp(-invl / tau)); }

inline double state_at(double t, double m0, double t0, double minf, double tau) {
    return minf + (m0 - minf) * std::exp(-(t - t0) / tau);
}

// ln(minf - 1) = -x - ln(1 - exp(-x)) with x = invl/tau: finite for every x > 0.
inline double log_excess(double invl, double tau) {
    const double x = invl / tau;
    return -x - std::log1p(-std::exp(-x));
}

// Below this excess minf - 1 carries too few of its bits for the direct formula.
inline constexpr double direct_formula_min_excess = 1e-6;

// Time until m reaches 1 (m <= 1). The direct formula where minf - 1 is well resolved (all
// intervals below ~13.8 tau: the spikes of every earlier release are unchanged); otherwise
// ln(minf - m) - ln(minf - 1) with minf - m = (1 - m) + (minf - 1), each term exact.
inline double time_to_fire(double m, double minf, double log_minf_excess, double tau) {
    if (minf - 1.0 > direct_formula_min_excess) return tau * std::log((minf - m) / (minf - 1.0));
    if (m >= 1.0) return 0.0;
    return tau * (std::log((1.0 - m) + std::exp(log_minf_excess)) - log_minf_excess);
}

inline bool bursting(int group, int groups, double t, double period) {
    if (groups <= 0) return false;
    auto nth_period = static_cast<long long>(std::floor(t / period));
    return nth_period % groups == group;
}

} // namespace spikex::interval_fire
