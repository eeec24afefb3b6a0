#pragma once
// aeif_cond_alpha_multisynapse and aeif_cond_beta_multisynapse: NEST 3.10's adaptive
// exponential integrate-and-fire neurons with one conductance per receptor port
// (docs/models/aeif_cond_multisynapse.md): the family's group (aeif_family.hpp, where the
// equations and the update are) with the ports' reversal potentials and time constants
// from lists per cell (E_rev; tau_syn, or tau_rise and tau_decay), one port per entry.
//  y = (V_m [mV], w [pA], dg_1 [nS/ms], g_1 [nS], dg_2, g_2, ...: NEST's order);
//  an input of weight w >= 0 nS through port k adds w g0_k to dg_k, g0_k = e / tau_syn_k
//  (alpha) or NEST's beta normalisation (the conductance peaks at w nS; e / tau_decay_k
//  when tau_rise_k = tau_decay_k, where the beta function is the alpha function).
// Ports: 1 to max_receptor_ports per cell, the same number for every cell of a population;
// checkpoints keep max_receptor_ports ports per cell (0 past the cell's own), so that a
// model's checkpoint width is fixed.
#include <cstdint>
#include <memory>
#include <vector>

#include "spikex/models/cell_group.hpp"
#include "spikex/models/model_registry.hpp"

namespace spikex {
namespace aeif_cond_multisynapse {

inline constexpr std::uint32_t max_receptor_ports = 16;

enum class synapse_shape { alpha, beta };

// What an input of 1 nS adds to dg of a beta conductance (tau_rise <= tau_decay) so that
// the conductance then peaks at 1 nS: (1/tau_rise - 1/tau_decay) / (exp(-t*/tau_decay) -
// exp(-t*/tau_rise)) at the peak time t* = tau_rise tau_decay ln(tau_decay/tau_rise) /
// (tau_decay - tau_rise); e / tau_decay (the alpha function's) when the time constants, or
// the difference of the exponentials, differ by no more than the double's epsilon (NEST's rule).
double beta_peak_factor(double tau_rise, double tau_decay);

// The number of receptor ports of a population's cells (its first cell's lists, checked):
// model_entry::receptor_ports.
std::uint32_t receptor_ports(synapse_shape shape, const population_spec& pop);

// The cells `local_gids` (ascending, all of populations of the shape's model).
std::unique_ptr<cell_group> make_group(synapse_shape shape, const network_spec& spec,
                                       const std::vector<gid_type>& local_gids, local_index first_local = 0);

} // namespace aeif_cond_multisynapse

model_entry aeif_cond_alpha_multisynapse_model();
model_entry aeif_cond_beta_multisynapse_model();

} // namespace spikex
