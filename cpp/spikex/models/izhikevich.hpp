#pragma once
// izhikevich: Izhikevich's (2003) two-variable neuron, NEST 3.10's model
// (docs/models/izhikevich.md).
//
//  State per cell: V_m [mV], U_m, I_stim (the current input read at the previous step).
//   dV/dt = 0.04 V^2 + 5 V + 140 - U + I_stim + I_e      dU/dt = a (b V - U)
//  Spike inputs make V jump by their weight (mV). end_step(n), per cell, NEST's expressions
//  in NEST's order:
//   1. consistent_integration = 1 (NEST's default): one forward-Euler step from (V, U) of
//      the step's start, V += h f(V, U) + the step's input sum; U += h a (b V_old - U_old)
//      consistent_integration = 0: Izhikevich's published scheme (two half steps for V, the
//      input inside them, then U from the new V), meant for h = 1 ms
//   2. V = max(V, V_min)
//   3. V >= V_th: V = c, U += d, spike at step n (never refractory)
//   4. I_stim = the currents delivered for step n
//  A spike at step n is NEST's spike at time (n+1)*h.
#include <memory>
#include <vector>

#include "spikex/models/cell_group.hpp"
#include "spikex/models/model_registry.hpp"

namespace spikex {
namespace izhikevich {

// The cells `local_gids` (ascending, all of izhikevich populations of spec).
std::unique_ptr<cell_group> make_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                       local_index first_local = 0);

} // namespace izhikevich

model_entry izhikevich_model();

} // namespace spikex
