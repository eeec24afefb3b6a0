#pragma once
// Connection rules, drawn on the target's rank from the target's own Philox stream
// (postsynaptic construction: no communication).
//  random:   target j draws C_j ~ UniformInt[C - dC/2, C + dC/2] (integer halves) distinct
//            sources uniformly from the source range without j (Floyd's sampling, exactly
//            C_j draws). Connection order = draw order.
//  fixed_indegree: exactly C sources, each uniform over the source range without the
//            target (multapses allowed; NEST's fixed_indegree rule). Order = draw order.
//  adjacent: target i receives from i - C/2 .. i + (C - C/2) except i, wrapping modulo
//            the source range (C/2 below, C - C/2 above: exactly C sources). Needs the
//            target inside the source range; indegree_spread is ignored.
//  weights:  weight + (u - 1/2) * weight_spread, u uniform [0,1), from the weights stream.
#include <cstdint>
#include <vector>

#include "spikex/network/network_spec.hpp"

namespace spikex {

struct incoming_connection {
    gid_type source;
    double weight;
    step_type delay;
};

// Appends the incoming connections of `target` under `rule` (rule number `rule_index`
// selects the random sub-stream). `scratch` is a bitmap sized to the source range.
void draw_incoming(const connection_rule& rule, std::uint32_t rule_index, gid_type target, std::uint32_t seed,
                   double dt_ms, std::vector<std::uint64_t>& scratch, std::vector<incoming_connection>& out);

} // namespace spikex
