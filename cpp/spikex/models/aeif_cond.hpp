#pragma once
// aeif_cond_exp and aeif_cond_alpha: NEST 3.10's adaptive exponential integrate-and-fire
// neurons (Brette & Gerstner 2005) with conductance-based synapses, exponentially decaying
// or alpha-shaped (docs/models/aeif_cond.md): the family's group (aeif_family.hpp, where
// the equations and the update are) with two conductances, the weight's sign choosing:
//  y = (V_m [mV], w [pA], g_ex, g_in [nS]; alpha also dg_ex, dg_in [nS/ms]);
//  an input w > 0 adds w to g_ex (exp) or w e / tau_syn_ex to dg_ex (alpha), one of
//  w <= 0 adds -w the same way to g_in or dg_in.
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
