#pragma once
// iaf_psc_delta: leaky integrate-and-fire neuron whose inputs make V jump by their weight
// (in mV), exact integration, the same update as NEST 3.10's iaf_psc_delta
// (docs/models/iaf_psc_delta.md).
//
//  State per neuron: V (relative to E_L), I_stim (the current input read at the previous
//  step), the refractory counter r and, with refractory_input, the input held back while
//  refractory (held); the step's inputs (of any sign) are summed in `sum` [mV], its current
//  inputs in stim_next [pA].
//  end_step(n), per neuron (NEST's expressions in NEST's order):
//   1. r == 0: V = P30*(I_stim + I_e) + P33*V + sum; with refractory_input V += held,
//              held = 0 (when held != 0); V = max(V, V_min - E_L)
//      else:   with refractory_input held += sum*exp(-r*h/tau_m) (the input decayed to the
//              end of the refractory period), else the input is lost; --r
//   2. V >= V_th - E_L: r = t_ref in steps, V = V_reset - E_L, spike at step n
//   3. I_stim = stim_next (a current delivered for step n acts on V from step n + 1)
//  So an input arriving at step n moves V at step n already (unlike the current-based
//  models): a spike at step n over a delay of d steps can make its target fire at n + d.
//  A spike at step n is NEST's spike at time (n+1)*h: NEST stamps the end of the step.
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "spikex/models/cell_group.hpp"
#include "spikex/models/iaf_propagators.hpp"
#include "spikex/models/model_registry.hpp"
#include "spikex/network/network_spec.hpp"

namespace spikex {
namespace iaf_psc_delta {

// NEST's names and units (mV, pF, ms, pA); defaults, ranges and meanings are in the
// model's parameter table (iaf_psc_delta.cpp, docs/models/iaf_psc_delta.md).
struct parameters {
    double E_L, C_m, tau_m, t_ref, V_th, V_reset, V_min, I_e;
    double refractory_input; // 1: keep input arriving while refractory
    double V_m;              // initial membrane potential (NEST's default unless given, whatever E_L is)
    double tau_minus;        // STDP depression time constant (read by the synapses)
};

// One cell's parameters from its values (cell_parameters), defaults filled in, every value validated: user_error naming
// the parameter, its value and what is allowed.
parameters parse_parameters(const std::map<std::string, double>& values);

// The parameters that change the dynamics (not V_m, not tau_minus).
inline std::array<double, 9> dynamics_key(const parameters& p) {
    return {p.E_L, p.C_m, p.tau_m, p.t_ref, p.V_th, p.V_reset, p.V_min, p.I_e, p.refractory_input};
}

// Propagators of one step h (NEST's names).
struct propagators {
    double P33;                    // exp(-h/tau_m)
    double P30;                    // I_e + I_stim -> V: 1/C_m*(1 - P33)*tau_m
    std::int32_t refractory_steps; // t_ref in steps (iaf_integration::refractory_steps)
};

inline propagators compute_propagators(const parameters& p, double h) {
    propagators q{};
    q.P33 = std::exp(-h / p.tau_m);
    q.P30 = 1 / p.C_m * (1 - q.P33) * p.tau_m;
    q.refractory_steps = static_cast<std::int32_t>(iaf_integration::refractory_steps(p.t_ref, h));
    return q;
}

// Decay of an input that arrives r steps before the end of the refractory period (NEST's
// exp(-r*h/tau_m) with the counter r before its decrement).
inline double refractory_input_decay(std::int32_t r, double h, double tau_m) { return std::exp(-r * h / tau_m); }

// The cell group, with read access to the state for tests and recording. Cells are
// rank-local indices (first_local + i), as in deliver() and emit().
class group: public cell_group {
public:
    virtual double V_m(local_index cell) const = 0; // absolute membrane potential [mV]
    virtual std::int32_t refractory_count(local_index cell) const = 0;
    virtual std::size_t parameter_sets() const = 0; // distinct dynamics among its cells
};

// The cells `local_gids` (ascending, all of iaf_psc_delta populations of spec).
std::unique_ptr<group> make_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                  local_index first_local = 0);

} // namespace iaf_psc_delta

model_entry iaf_psc_delta_model();

} // namespace spikex
