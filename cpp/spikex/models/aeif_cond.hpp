#pragma once
// aeif_cond_exp and aeif_cond_alpha: NEST 3.10's adaptive exponential integrate-and-fire
// neurons (Brette & Gerstner 2005) with conductance-based synapses, exponentially decaying
// or alpha-shaped (docs/models/aeif_cond.md). One family, one group class: the two differ
// only in the synaptic conductances' equations and where an input goes.
//
//  State per cell: y = (V_m [mV], w [pA], g_ex, g_in [nS]; alpha also dg_ex, dg_in [nS/ms]),
//  the refractory counter r, I_stim (the current input read at the previous step) and the
//  integrator's sub-step size.
//   C_m dV/dt = -g_L (V - E_L) + g_L Delta_T exp((V - V_th)/Delta_T) - g_ex (V - E_ex)
//               - g_in (V - E_in) - w + I_e + I_stim
//   tau_w dw/dt = a (V - E_L) - w
//   exp:   dg_x/dt = -g_x / tau_syn_x
//   alpha: ddg_x/dt = -dg_x / tau_syn_x,  dg_x/dt = dg_x - g_x / tau_syn_x
//  with V on the right-hand side bounded by V_peak, and while refractory V = V_reset in it
//  and dV/dt = 0. Delta_T = 0: no exponential term, the spike test is V >= V_th.
//  end_step(n), per cell (NEST's order):
//   1. y advanced over h by the ODE layer (ode/adaptive_integrator.hpp); after each
//      accepted sub-step: NEST's instability checks (V_m < -1000 mV, |w| > 1e6 pA: the run
//      ends), then r > 0: V = V_reset; else V >= V_peak (V_th if Delta_T = 0): V = V_reset,
//      w += b, r = t_ref in steps + 1 (0 if t_ref is 0 steps), a spike at n
//   2. r > 0: --r
//   3. exp: g_ex += the step's inputs with w > 0, g_in += -w of the others (nS);
//      alpha: dg_ex, dg_in += the same times e / tau_syn_x
//   4. I_stim = the currents delivered for step n
//  A spike at step n is NEST's spike at time (n+1)*h. With t_ref = 0 a cell may cross
//  V_peak twice in one step: both resets and both w += b happen, as in NEST, but the cell
//  spikes once in that step (spikex cells spike at most once per step; NEST sends two).
#include <memory>
#include <vector>

#include "spikex/models/cell_group.hpp"
#include "spikex/models/model_registry.hpp"

namespace spikex {
namespace aeif_cond {

enum class synapse_shape { exp, alpha };

// The cells `local_gids` (ascending, all of aeif_cond_exp or aeif_cond_alpha populations
// of spec, as `shape` says).
std::unique_ptr<cell_group> make_group(synapse_shape shape, const network_spec& spec,
                                       const std::vector<gid_type>& local_gids, local_index first_local = 0);

} // namespace aeif_cond

model_entry aeif_cond_exp_model();
model_entry aeif_cond_alpha_model();

} // namespace spikex
