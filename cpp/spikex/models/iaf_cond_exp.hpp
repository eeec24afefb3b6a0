#pragma once
// iaf_cond_exp: leaky integrate-and-fire neuron with exponentially decaying synaptic
// conductances, NEST 3.10's model (docs/models/iaf_cond_exp.md).
//
//  State per cell: y = (V_m [mV], g_ex, g_in [nS]), the refractory counter r, I_stim (the
//  current input read at the previous step) and the integrator's sub-step size.
//   dV/dt    = (-g_L (V - E_L) - g_ex (V - E_ex) - g_in (V - E_in) + I_e + I_stim) / C_m
//   dg_x/dt  = -g_x / tau_syn_x
//  with V in the currents bounded by V_th, and while refractory V = V_reset, dV/dt = 0.
//  end_step(n), per cell (NEST's order):
//   1. y advanced over h by the ODE layer (ode/adaptive_integrator.hpp)
//   2. g_ex += the step's inputs with w > 0, g_in += -w of the others (nS)
//   3. r > 0: --r, V = V_reset;  else V >= V_th: r = t_ref in steps, V = V_reset, spike at n
//   4. I_stim = the currents delivered for step n
//  A spike at step n is NEST's spike at time (n+1)*h.
#include <memory>
#include <vector>

#include "spikex/models/cell_group.hpp"
#include "spikex/models/model_registry.hpp"

namespace spikex {
namespace iaf_cond_exp {

// The cells `local_gids` (ascending, all of iaf_cond_exp populations of spec).
std::unique_ptr<cell_group> make_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                       local_index first_local = 0);

} // namespace iaf_cond_exp

model_entry iaf_cond_exp_model();

} // namespace spikex
