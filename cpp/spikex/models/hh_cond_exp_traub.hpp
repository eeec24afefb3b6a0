#pragma once
// hh_cond_exp_traub: NEST 3.10's Hodgkin-Huxley neuron of Brette et al. (2007) after Traub
// and Miles (1991), with exponentially decaying synaptic conductances
// (docs/models/hh_cond_exp_traub.md).
//
//  State per cell: y = (V_m [mV], m, h, n, g_ex, g_in [nS]), the refractory counter r,
//  I_stim (the current input read at the previous step) and the integrator's sub-step.
//   C_m dV/dt = -g_Na m^3 h (V - E_Na) - g_K n^4 (V - E_K) - g_L (V - E_L)
//               - g_ex (V - E_ex) - g_in (V - E_in) + I_e + I_stim
//   dx/dt     = alpha_x(V - V_T) (1 - x) - beta_x(V - V_T) x      (x = m, h, n; NEST's rates)
//   dg_x/dt   = -g_x / tau_syn_x
//  end_step(n), per cell (NEST's order):
//   1. V_old = V; y advanced over h by the ODE layer (ode/adaptive_integrator.hpp)
//   2. g_ex += the step's inputs with w > 0, g_in += -w of the others (nS)
//   3. r > 0: --r;  else V >= V_T + 30 mV and V < V_old: r = t_ref in steps, spike at n
//      (no reset: the dynamics go on)
//   4. I_stim = the currents delivered for step n
//  A spike at step n is NEST's spike at time (n+1)*h.
#include <memory>
#include <vector>

#include "spikex/models/cell_group.hpp"
#include "spikex/models/model_registry.hpp"

namespace spikex {
namespace hh_cond_exp_traub {

// The cells `local_gids` (ascending, all of hh_cond_exp_traub populations of spec).
std::unique_ptr<cell_group> make_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                       local_index first_local = 0);

} // namespace hh_cond_exp_traub

model_entry hh_cond_exp_traub_model();

} // namespace spikex
