#pragma once
// glif_cond: NEST 3.10's generalized leaky integrate-and-fire neuron (the five GLIF levels of
// the Allen Institute's models, Teeter et al. 2018) with alpha-shaped synaptic
// conductances, one per receptor port (docs/models/glif_cond.md). The threshold and the
// after-spike currents are glif_common.hpp's; the membrane and the conductances are
// integrated with NEST's own scheme (ode/rkf45_integrator.hpp, absolute error 1e-3, NEST's
// right-hand side in NEST's order of operations).
//
//  y = (U = V_m - E_L, dg_1, g_1, dg_2, g_2, ...: NEST's order), with
//   C_m dU/dt = -g_m U - sum_k g_k (U + E_L - E_rev_k) + I + ASCurrents_sum
//   d dg_k/dt = -dg_k / tau_syn_k,  dg_k/dt = dg_k - g_k / tau_syn_k
//  I (the current input of the step before) and ASCurrents_sum (of the last step that was
//  not refractory) constant over the step; while refractory U = V_reset in the currents
//  and dU/dt = 0.
//  end_step(n), per cell (NEST's order):
//   1. y advanced over h (v_old = U before), eight cells of a parameter set side by side,
//      each with its own sub-steps (rkf45_integrator::advance_cells: the same operations
//      as one cell at a time)
//   2. r == 0: the threshold's spike component and the after-spike currents decay, the
//      voltage component, the threshold and the spike test with its reset
//      (glif_common.hpp); else --r, U = v_old
//   3. dg_k += e/tau_syn_k * (the port's weights of step n): a weight w (nS, either sign,
//      as NEST) peaks at w nS tau_syn_k later
//   4. I = the current inputs of step n
//  A spike at step n is NEST's spike at (n + 1) h.
#include "spikex/models/model_registry.hpp"

namespace spikex {

model_entry glif_cond_model();

} // namespace spikex
