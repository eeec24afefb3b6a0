#pragma once
// iaf_cond_exp: leaky integrate-and-fire neuron with exponentially decaying synaptic
// conductances, NEST 3.10's model (docs/models/iaf_cond_exp.md). The update is the
// conductance-based family's (iaf_cond_group.hpp); the conductances:
//   dg_x/dt = -g_x / tau_syn_x,  an input w adds |w| to g_x.
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
