#pragma once
// fixed_total_number: the in-degrees of a rank's targets, without anything of the size of
// the network's connections on any rank, and the same whatever the number of ranks.
//
// The N connections are N draws from the allowed (source, target) pairs: with multapses
// independently (the in-degrees are multinomial, target t's probability w_t / W with w_t
// its allowed sources and W = sum w_t), without multapses a uniformly chosen N-subset
// (multivariate hypergeometric in-degrees). Either law is split down a fixed binary tree
// over the rule's target offsets [0, T): a node [lo, hi) with c connections splits at
// mid = lo + (hi - lo) / 2, the left half getting
//   with multapses:    Binomial(c, w[lo, mid) / w[lo, hi))
//   without:           Hypergeometric(w[lo, hi) pairs, w[lo, mid) of them left, c drawn)
// (exact draws, network/discrete_sampling.hpp), from the stream with key (seed, rule
// index), purpose rule_plan, sub-stream mid (mid identifies the node: every inner node has
// its own). The leaves are the in-degrees; each target then draws its sources itself
// (network/connectivity.hpp).
//
// A rank descends only into nodes that hold one of its targets: cost O(local targets *
// log T) draws (plus O(T / P) for the shared upper levels), each O(sqrt(c)) steps; memory
// 12 bytes per local target.
#include <cstdint>
#include <vector>

#include "spikex/network/network_spec.hpp"

namespace spikex {

class total_number_plan {
public:
    // `local_targets` ascending, each inside the rule's target range.
    total_number_plan(const connection_rule& rule, std::uint32_t rule_index, std::uint32_t seed,
                      std::vector<gid_type> local_targets);

    // In-degree of a local target (internal_error for any other gid).
    std::uint64_t indegree(gid_type target) const;
    std::size_t bytes() const;

private:
    std::vector<gid_type> targets_;
    std::vector<std::uint64_t> indegree_;
};

// Allowed (source, target) pairs of the rule's targets with offsets [lo, hi).
std::uint64_t allowed_pairs(const connection_rule& rule, std::uint64_t lo, std::uint64_t hi);

} // namespace spikex
