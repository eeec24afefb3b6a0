#pragma once
// iaf_cond_alpha: leaky integrate-and-fire neuron with alpha-shaped synaptic conductances,
// NEST 3.10's model (docs/models/iaf_cond_alpha.md). The update is the conductance-based
// family's (iaf_cond_group.hpp); the conductances:
//   d(dg_x)/dt = -dg_x / tau_syn_x,  dg_x/dt = dg_x - g_x / tau_syn_x,
//   an input w adds |w| e / tau_syn_x to dg_x (a conductance peaking at |w| after tau_syn_x).
#include <memory>
#include <vector>

#include "spikex/models/cell_group.hpp"
#include "spikex/models/model_registry.hpp"

namespace spikex {
namespace iaf_cond_alpha {

// The cells `local_gids` (ascending, all of iaf_cond_alpha populations of spec).
std::unique_ptr<cell_group> make_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                       local_index first_local = 0);

} // namespace iaf_cond_alpha

model_entry iaf_cond_alpha_model();

} // namespace spikex
