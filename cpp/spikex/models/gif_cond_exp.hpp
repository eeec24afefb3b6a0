#pragma once
// gif_cond_exp: the generalized integrate-and-fire neuron of Mensi et al. (2012) and
// Pozzorini et al. (2015) with exponential synaptic conductances, as NEST 3.10 implements
// it (docs/models/gif_cond_exp.md; PyNN's GIF_cond_exp).
//
//  C_m dV/dt = -g_L (V - E_L) - g_ex (V - E_ex) - g_in (V - E_in) - I_stc + I_e + I_stim
//  dg_x/dt   = -g_x / tau_syn_x
//  I_stc = sum_k eta_k (spike-triggered currents), V_T = V_T_star + sum_k gamma_k (the
//  moving threshold); each kernel decays with its own time constant (tau_stc, tau_sfa:
//  lists per cell) and jumps by its q (q_stc, q_sfa) at each spike.
//  Escape noise: in a step h a cell spikes with probability 1 - exp(-lambda h),
//  lambda = lambda_0 exp((V - V_T) / Delta_V), decided by a uniform number from the
//  cell's own counter-based stream keyed (seed, gid, escape_noise, step): the spikes do
//  not depend on ranks or threads.
//
//  end_step(n), per cell (NEST's order):
//   1. I_stc and V_T of the kernels' values, then every kernel decays over h
//   2. (V, g_ex, g_in) advanced over h by NEST's RKF45 scheme (ode/rkf45_integrator.hpp,
//      absolute error gsl_error_tol), I_stc constant; while refractory V = V_reset in the
//      currents and dV/dt = 0
//   3. the step's inputs: w >= 0 into g_ex, -w of the others into g_in (nS)
//   4. r == 0: lambda from V and V_T; a spike when the step's uniform < -expm1(-lambda h):
//      the kernels jump, r = t_ref in steps (V is not reset here: NEST's model);
//      r > 0: --r, V = V_reset
//   5. I_stim = the currents delivered for step n
//  A spike at step n is NEST's spike at time (n+1)*h.
#include <cstddef>
#include <memory>
#include <vector>

#include "spikex/models/cell_group.hpp"
#include "spikex/models/model_registry.hpp"

namespace spikex {
namespace gif_cond_exp {

// Kernels per cell and list (tau_stc, tau_sfa): the checkpoint keeps this many of each.
inline constexpr std::size_t max_kernels = 8;

// The cells `local_gids` (ascending, all of gif_cond_exp populations of spec).
std::unique_ptr<cell_group> make_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                       local_index first_local = 0);

} // namespace gif_cond_exp

model_entry gif_cond_exp_model();

} // namespace spikex
