#pragma once
// What the short-term plasticity rules (tsodyks_synapse.hpp, tsodyks2_synapse.hpp) keep:
// the resources x (recovered), y (active, tsodyks_synapse only) and the release probability
// u. These depend only on the presynaptic spike times and the synapse type's parameters,
// so every synapse of one source, delay and type shares one state (per delay group, as the
// STDP rules' presynaptic trace; NEST keeps a copy per synapse, all equal). A spike scales
// the weight it is delivered with by the rule's factor; the stored weight never changes.
#include "spikex/core/types.hpp"

namespace spikex {

struct short_term_state {
    double x = 0.0, y = 0.0, u = 0.0;
    // Stamp (steps) of the previous spike; tsodyks2_synapse: -1 before the first.
    step_type last_stamp = 0;
    // The weight factor of the group's latest spike (what the step's deliveries read; set
    // again at every arrival, so a checkpoint need not keep it).
    double factor = 0.0;
};

} // namespace spikex
