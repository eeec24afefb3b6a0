#pragma once
// hh_psc_alpha: NEST 3.10's Hodgkin-Huxley neuron (the squid axon's 1952 rates) with
// alpha-shaped synaptic currents (docs/models/hh_psc_alpha.md).
//
//  State per cell: y = (V_m [mV], m, h, n, dI_ex, I_ex, dI_in, I_in [pA, pA/ms]), the
//  refractory counter r, I_stim (the current input read at the previous step) and the
//  integrator's sub-step.
//   C_m dV/dt = -g_Na m^3 h (V - E_Na) - g_K n^4 (V - E_K) - g_L (V - E_L)
//               + I_ex + I_in + I_e + I_stim
//   dx/dt     = alpha_x(V) (1 - x) - beta_x(V) x                   (x = m, h, n; NEST's rates)
//   d(dI_x)/dt = -dI_x / tau_syn_x,   dI_x/dt = dI_x - I_x / tau_syn_x
//  end_step(n), per cell (NEST's order):
//   1. V_old = V; y advanced over h by the ODE layer (ode/adaptive_integrator.hpp)
//   2. dI_ex += e / tau_syn_ex * (the step's inputs with w > 0), dI_in += e / tau_syn_in *
//      (the others, negative): a weight w gives a current of peak w pA
//   3. r > 0: --r;  else V >= 0 mV and V < V_old: r = t_ref in steps, spike at n
//      (no reset: the dynamics go on)
//   4. I_stim = the currents delivered for step n
//  A spike at step n is NEST's spike at time (n+1)*h.
#include <memory>
#include <vector>

#include "spikex/models/cell_group.hpp"
#include "spikex/models/model_registry.hpp"

namespace spikex {
namespace hh_psc_alpha {

// The cells `local_gids` (ascending, all of hh_psc_alpha populations of spec).
std::unique_ptr<cell_group> make_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                       local_index first_local = 0);

} // namespace hh_psc_alpha

model_entry hh_psc_alpha_model();

} // namespace spikex
