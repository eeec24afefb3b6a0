#pragma once
// fixed_outdegree: the sources of a rank's targets, as NEST builds this rule (every rank
// replays every source's draws and keeps those that end on its targets).
//
// Source s draws its K targets from its own stream (key (seed, s), purpose connections,
// sub-stream rule index) over the rule's target range (without s unless autapses are
// allowed; distinct unless multapses are allowed: network/source_pool.hpp). So the
// network is a function of (seed, rule, source) and does not depend on the ranks; a
// target's incoming connections are ordered by source gid, then by the source's draw
// order.
//
// Cost on every rank: all S * K draws of the rule (this does not shrink with more ranks;
// NEST pays the same); memory kept: 4 bytes per local connection + 12 per local target
// (while building also 8 bytes per local connection and a bit per target of the rule).
#include <cstdint>
#include <span>
#include <vector>

#include "spikex/network/network_spec.hpp"

namespace spikex {

class outdegree_plan {
public:
    // `local_targets` ascending, each inside the rule's target range.
    outdegree_plan(const connection_rule& rule, std::uint32_t rule_index, std::uint32_t seed,
                   std::vector<gid_type> local_targets);

    // Sources of a local target, in creation order (internal_error for any other gid).
    std::span<const gid_type> sources(gid_type target) const;
    std::size_t bytes() const;

private:
    std::vector<gid_type> targets_;
    std::vector<std::uint64_t> offsets_; // CSR over targets_
    std::vector<gid_type> sources_;
};

} // namespace spikex
