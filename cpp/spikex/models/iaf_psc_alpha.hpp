#pragma once
// iaf_psc_alpha: leaky integrate-and-fire neuron with alpha-shaped synaptic currents and
// exact integration (Rotter & Diesmann 1999), the same update as NEST 3.10's
// iaf_psc_alpha (docs/models/iaf_psc_alpha.md).
//
//  State per neuron: V (membrane potential relative to E_L, NEST's y3), I_ex, dI_ex,
//  I_in, dI_in, I_stim (the current input read at the previous step, NEST's y0),
//  refractory counter r; inputs of the step summed in ex_sum (w > 0) and in_sum (w <= 0),
//  in pA, its current inputs in stim_next.
//  Parameters per cell (cell_parameter_sets): cells with equal dynamics share one set.
//  end_step(n), per neuron:
//   1. r == 0: V = P30*(I_stim + I_e) + P31_ex*dI_ex + P32_ex*I_ex + P31_in*dI_in
//                  + P32_in*I_in + expm1(-h/tau_m)*V + V;    else --r (V clamped)
//   2. I_ex = P21_ex*dI_ex + P22_ex*I_ex; dI_ex *= P11_ex; dI_ex += e/tau_syn_ex * ex_sum
//      (the same for the inhibitory channel): input of step n acts on V from step n+1
//   3. V >= V_th - E_L: r = t_ref in steps (rounded up, as NEST), V = V_reset - E_L,
//      spike at step n
//   4. I_stim = stim_next (a current delivered for step n acts on V from step n + 1)
//  A spike at step n is NEST's spike at time (n+1)*h: NEST stamps the end of the step.
//
//  Own Poisson input (poisson_rate_hz, poisson_weight): k_n ~ Poisson(rate*h/1000) per
//  step, added as k_n*poisson_weight after the synaptic input of the step. Draw of step n
//  of cell gid: Philox block floor(n/2) (sub-stream n >> 33) of stream (seed, gid,
//  external_input), words (x0, x1) for even n and (x2, x3) for odd n as one 53-bit
//  uniform u (random.hpp); k_n = smallest k with u < F(k), F the Poisson CDF tabulated
//  once per parameter set (inversion, see poisson_table). Means above max_poisson_mean are
//  refused.
//  Initial V: V_m, or when V_m_sd > 0, V_m + V_m_sd*z with z standard normal by
//  Box-Muller from block 0 of stream (seed, gid, initial_state):
//  u1 = uniform(x0, x1), u2 = uniform(x2, x3), z = sqrt(-2 ln(1 - u1)) cos(2 pi u2).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "spikex/core/random.hpp"
#include "spikex/core/random_lanes.hpp"
#include "spikex/models/cell_group.hpp"
#include "spikex/models/iaf_propagators.hpp"
#include "spikex/models/model_registry.hpp"
#include "spikex/models/poisson_table.hpp"
#include "spikex/network/network_spec.hpp"

namespace spikex::iaf_psc_alpha {

// NEST's names, units and defaults (mV, pF, ms, pA), plus ours: V_m_sd, poisson_*.
struct parameters {
    double E_L, C_m, tau_m, t_ref, V_th, V_reset, tau_syn_ex, tau_syn_in, I_e;
    double V_m;             // initial membrane potential (NEST's default unless given, whatever E_L is)
    double V_m_sd;          // sd of the initial membrane potential
    double tau_minus;       // STDP depression time constant (read by the synapses)
    double poisson_rate_hz; // rate of the cell's own Poisson input
    double poisson_weight;  // weight of each of its events
};

using ::spikex::max_poisson_mean;

// One cell's parameters from its values (cell_parameters), defaults filled in, every value validated: user_error naming
// the parameter, its value and what is allowed.
parameters parse_parameters(const std::map<std::string, double>& values);

// The parameters that change the dynamics (V_m, V_m_sd only set the initial state;
// tau_minus belongs to the synapses).
inline std::array<double, 11> dynamics_key(const parameters& p) {
    return {p.E_L,        p.C_m,        p.tau_m, p.t_ref,           p.V_th,          p.V_reset,
            p.tau_syn_ex, p.tau_syn_in, p.I_e,   p.poisson_rate_hz, p.poisson_weight};
}

// Propagators of one step h (NEST's names).
struct propagators {
    double P11_ex, P21_ex, P22_ex, P31_ex, P32_ex;
    double P11_in, P21_in, P22_in, P31_in, P32_in;
    double P30;                    // I_e + I_stim -> V
    double expm1_tau_m;            // P33 - 1 = expm1(-h/tau_m)
    double psc_ex, psc_in;         // e/tau_syn: dI jump per pA of input
    std::int32_t refractory_steps; // t_ref in steps (refractory_steps())
};

// P31 (dI -> V) and P32 (I -> V) of one alpha channel: NEST's IAFPropagatorAlpha,
// including its fall-backs when tau_m is (numerically) equal to tau_syn
// (iaf_propagators.hpp).
inline std::pair<double, double> alpha_propagators(double tau_syn, double tau_m, double C_m, double h) {
    return iaf_integration::alpha_current_propagators(tau_syn, tau_m, C_m, h);
}

using iaf_integration::refractory_steps;

inline propagators compute_propagators(const parameters& p, double h) {
    propagators q{};
    q.P11_ex = q.P22_ex = std::exp(-h / p.tau_syn_ex);
    q.P11_in = q.P22_in = std::exp(-h / p.tau_syn_in);
    q.expm1_tau_m = iaf_integration::nest_expm1(-h / p.tau_m);
    q.P30 = -p.tau_m / p.C_m * iaf_integration::nest_expm1(-h / p.tau_m);
    q.P21_ex = h * q.P11_ex;
    q.P21_in = h * q.P11_in;
    std::tie(q.P31_ex, q.P32_ex) = alpha_propagators(p.tau_syn_ex, p.tau_m, p.C_m, h);
    std::tie(q.P31_in, q.P32_in) = alpha_propagators(p.tau_syn_in, p.tau_m, p.C_m, h);
    q.psc_ex = 1.0 * std::numbers::e / p.tau_syn_ex;
    q.psc_in = 1.0 * std::numbers::e / p.tau_syn_in;
    q.refractory_steps = static_cast<std::int32_t>(refractory_steps(p.t_ref, h));
    return q;
}

using ::spikex::poisson_table; // the tests name it here

// Words of the Poisson draw of step n of cell gid (see the block comment above).
inline std::uint64_t poisson_bits_from_block(const random_words& w, step_type n) {
    return (n & 1) ? (static_cast<std::uint64_t>(w[2]) << 32 | w[3]) : (static_cast<std::uint64_t>(w[0]) << 32 | w[1]);
}
inline random_words poisson_block(std::uint32_t seed, gid_type gid, step_type n) {
    const auto s = static_cast<std::uint64_t>(n);
    return random_block(seed, gid, purpose::external_input, static_cast<std::uint32_t>(s >> 1),
                        static_cast<std::uint32_t>(s >> 33));
}
// poisson_block for 8 cells at once (random_lanes.hpp: the same words).
inline random_words_lanes<8> poisson_blocks(std::uint32_t seed, const std::array<gid_type, 8>& gids, step_type n) {
    const auto s = static_cast<std::uint64_t>(n);
    return random_blocks<8>(seed, gids, purpose::external_input, static_cast<std::uint32_t>(s >> 1),
                            static_cast<std::uint32_t>(s >> 33));
}
inline double poisson_uniform(std::uint32_t seed, gid_type gid, step_type n) {
    const std::uint64_t bits = poisson_bits_from_block(poisson_block(seed, gid, n), n);
    return uniform_from_words(static_cast<std::uint32_t>(bits >> 32), static_cast<std::uint32_t>(bits));
}

// Initial membrane potential of cell gid (see the block comment above).
inline double initial_membrane_potential(const parameters& p, std::uint32_t seed, gid_type gid) {
    if (!(p.V_m_sd > 0)) return p.V_m;
    const auto w = random_block(seed, gid, purpose::initial_state, 0);
    const double u1 = uniform_from_words(w[0], w[1]);
    const double u2 = uniform_from_words(w[2], w[3]);
    const double z = std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(2.0 * std::numbers::pi * u2);
    return p.V_m + p.V_m_sd * z;
}

// The cell group, with read access to the state for tests and recording. Cells are
// rank-local indices (first_local + i), as in deliver() and emit().
class group: public cell_group {
public:
    virtual double V_m(local_index cell) const = 0;      // absolute membrane potential [mV]
    virtual double I_syn_ex(local_index cell) const = 0; // [pA]
    virtual double I_syn_in(local_index cell) const = 0; // [pA]
    // Input summed in the last end_step (synaptic + own Poisson) [pA], NEST's
    // weighted_spikes_ex / weighted_spikes_in.
    virtual double weighted_spikes_ex(local_index cell) const = 0;
    virtual double weighted_spikes_in(local_index cell) const = 0;
    virtual std::int32_t refractory_count(local_index cell) const = 0;
    virtual std::size_t parameter_sets() const = 0; // distinct dynamics among its cells
};

std::unique_ptr<group> make_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                  local_index first_local = 0);

} // namespace spikex::iaf_psc_alpha

namespace spikex {
model_entry iaf_psc_alpha_model();
} // namespace spikex
