#pragma once
// iaf_psc_exp: leaky integrate-and-fire neuron with exponentially decaying synaptic
// currents and exact integration, the same update as NEST 3.10's iaf_psc_exp
// (docs/models/iaf_psc_exp.md).
//
//  State per neuron: V (relative to E_L), I_ex, I_in [pA], I_stim (the current input read
//  at the previous step) and the refractory counter r; the step's synaptic inputs are
//  summed in ex_sum (w > 0) and in_sum (w <= 0), its current inputs in stim_next.
//  end_step(n), per neuron (NEST's expressions in NEST's order):
//   1. r == 0: V = V*P22 + I_ex*P21_ex + I_in*P21_in + (I_e + I_stim)*P20;  else --r
//   2. I_ex = I_ex*P11_ex + ex_sum; I_in = I_in*P11_in + in_sum (the input of step n acts
//      on V from step n + 1)
//   3. V >= V_th - E_L: r = t_ref in steps, V = V_reset - E_L, spike at step n
//   4. I_stim = stim_next (a current delivered for step n acts on V from step n + 1)
//  P21 is NEST's IAFPropagatorExp, which stays exact when tau_m == tau_syn (iaf_propagators).
//  A spike at step n is NEST's spike at time (n+1)*h: NEST stamps the end of the step.
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "spikex/models/cell_group.hpp"
#include "spikex/models/iaf_propagators.hpp"
#include "spikex/models/model_registry.hpp"
#include "spikex/network/network_spec.hpp"

namespace spikex {
namespace iaf_psc_exp {

// NEST's names and units (mV, pF, ms, pA); defaults, ranges and meanings are in the
// model's parameter table (iaf_psc_exp.cpp, docs/models/iaf_psc_exp.md).
struct parameters {
    double E_L, C_m, tau_m, t_ref, V_th, V_reset, tau_syn_ex, tau_syn_in, I_e;
    double V_m;       // initial membrane potential (NEST's default unless given, whatever E_L is)
    double tau_minus; // STDP depression time constant (read by the synapses)
};

// One cell's parameters from its values (cell_parameters), defaults filled in, every value validated: user_error naming
// the parameter, its value and what is allowed.
parameters parse_parameters(const std::map<std::string, double>& values);

// The parameters that change the dynamics (not V_m, not tau_minus).
inline std::array<double, 9> dynamics_key(const parameters& p) {
    return {p.E_L, p.C_m, p.tau_m, p.t_ref, p.V_th, p.V_reset, p.tau_syn_ex, p.tau_syn_in, p.I_e};
}

// Propagators of one step h (NEST's names).
struct propagators {
    double P11_ex, P11_in;         // exp(-h/tau_syn): current decay
    double P22;                    // exp(-h/tau_m)
    double P21_ex, P21_in;         // current -> V (IAFPropagatorExp)
    double P20;                    // I_e + I_stim -> V: tau_m/C_m*(1 - P22)
    std::int32_t refractory_steps; // t_ref in steps (iaf_integration::refractory_steps)
};

inline propagators compute_propagators(const parameters& p, double h) {
    propagators q{};
    q.P11_ex = std::exp(-h / p.tau_syn_ex);
    q.P11_in = std::exp(-h / p.tau_syn_in);
    q.P22 = std::exp(-h / p.tau_m);
    q.P21_ex = iaf_integration::exp_current_propagator(p.tau_syn_ex, p.tau_m, p.C_m, h);
    q.P21_in = iaf_integration::exp_current_propagator(p.tau_syn_in, p.tau_m, p.C_m, h);
    q.P20 = p.tau_m / p.C_m * (1.0 - q.P22);
    q.refractory_steps = static_cast<std::int32_t>(iaf_integration::refractory_steps(p.t_ref, h));
    return q;
}

// The cell group, with read access to the state for tests and recording. Cells are
// rank-local indices (first_local + i), as in deliver() and emit().
class group: public cell_group {
public:
    virtual double V_m(local_index cell) const = 0;      // absolute membrane potential [mV]
    virtual double I_syn_ex(local_index cell) const = 0; // [pA]
    virtual double I_syn_in(local_index cell) const = 0; // [pA]
    virtual std::int32_t refractory_count(local_index cell) const = 0;
    virtual std::size_t parameter_sets() const = 0; // distinct dynamics among its cells
};

// The cells `local_gids` (ascending, all of iaf_psc_exp populations of spec).
std::unique_ptr<group> make_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                  local_index first_local = 0);

} // namespace iaf_psc_exp

model_entry iaf_psc_exp_model();

} // namespace spikex
