#pragma once
// iaf_cond_exp_sfa_rr: iaf_cond_exp with spike-frequency adaptation and relative
// refractoriness, NEST 3.10's model (docs/models/iaf_cond_exp_sfa_rr.md; PyNN's
// IF_cond_exp_gsfa_grr). The update is the conductance-based family's
// (iaf_cond_group.hpp); besides the exponential synaptic conductances two conductances
// that a spike opens:
//   dg_sfa/dt = -g_sfa / tau_sfa,  dg_rr/dt = -g_rr / tau_rr,
//   membrane currents g_sfa (V - E_sfa) and g_rr (V - E_rr),
//   at each spike g_sfa += q_sfa, g_rr += q_rr.
#include <memory>
#include <vector>

#include "spikex/models/cell_group.hpp"
#include "spikex/models/model_registry.hpp"

namespace spikex {
namespace iaf_cond_exp_sfa_rr {

// The cells `local_gids` (ascending, all of iaf_cond_exp_sfa_rr populations of spec).
std::unique_ptr<cell_group> make_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                       local_index first_local = 0);

} // namespace iaf_cond_exp_sfa_rr

model_entry iaf_cond_exp_sfa_rr_model();

} // namespace spikex
