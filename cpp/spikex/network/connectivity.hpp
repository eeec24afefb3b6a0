#pragma once
// Connection rules, drawn on the target's rank (postsynaptic construction: no
// communication). A target's incoming connections of a rule are a function of (seed, rule,
// rule index, target) only: never of the ranks, threads or cell distribution
// (docs/user/connection_rules.md).
//
// Sources, per rule (S sources, T targets; "pool" = the source range, without the target
// unless autapses are allowed; streams: key (seed, gid), sub-stream = rule index):
//  random:          C_j ~ UniformInt[C - dC/2, C + dC/2] (integer halves) distinct sources,
//                   never the target itself (flags ignored): Floyd's sampling from the
//                   target's connections stream. Hines et al. 2011.
//  adjacent:        target i receives from i - C/2 .. i + (C - C/2) except i, wrapping
//                   modulo the source range (exactly C sources, flags ignored).
//  fixed_indegree:  C sources from the pool, from the target's connections stream: each
//                   uniform (multapses) or C distinct (Floyd).
//  fixed_outdegree: each source draws C targets from its own connections stream; every
//                   rank replays all sources (network/outdegree_plan.hpp). Order: source
//                   gid, then the source's draw order.
//  fixed_total_number: in-degrees from a fixed binary tree of binomial (hypergeometric
//                   without multapses) splits (network/total_number_plan.hpp), then as
//                   fixed_indegree with that in-degree.
//  pairwise_bernoulli: each pool cell with probability p, in ascending gid order, skipping
//                   geometric gaps (one uniform per connection, + 1); no multapses.
//  one_to_one:      target offset i <- source offset i (none if that is the target itself
//                   and autapses are not allowed).
//  all_to_all:      every pool cell, ascending.
// Weights: draw(weight) from the target's weights stream, in the target's creation order
// of the rule's connections (a constant draws nothing; legacy: a constant with
// weight_spread != 0 is weight + (u - 1/2) * weight_spread). Delays likewise from the
// target's delays stream, rounded to steps by delay_steps (NEST's rounding).
#include <cstdint>
#include <memory>
#include <vector>

#include "spikex/core/random.hpp"
#include "spikex/network/network_spec.hpp"

namespace spikex {

class outdegree_plan;
class total_number_plan;

struct incoming_connection {
    gid_type source;
    double weight;
    step_type delay; // steps, >= 1
};

// A thread's working memory for draws (reused across targets; one per thread).
struct rule_scratch {
    std::vector<std::uint64_t> bitmap; // all zero between draws
    std::vector<gid_type> sources;
};

class rule_drawer {
public:
    // Prepares what the rule needs on this rank (fixed_outdegree: the sources of the
    // local targets; fixed_total_number: their in-degrees). `local_targets`: the gids this
    // rank will ask for (any order; those outside the rule's targets are ignored).
    // Checks the rule first (check_rule: user_error).
    rule_drawer(const connection_rule& rule, std::uint32_t rule_index, std::uint32_t seed, double dt_ms,
                const std::vector<gid_type>& local_targets);
    ~rule_drawer();
    rule_drawer(rule_drawer&&) noexcept;
    rule_drawer& operator=(rule_drawer&&) noexcept;

    // Whether gid is one of the rule's targets.
    bool targets(gid_type gid) const {
        return gid >= rule_.target_first && gid - rule_.target_first < rule_.target_size;
    }
    // Appends the incoming connections of `target` (one of the rule's targets, and for
    // fixed_outdegree / fixed_total_number one of local_targets) in creation order. The
    // same sequence every time; thread-safe with one scratch per thread.
    // with_weights = false leaves every weight 0 and draws none (a pass that only needs
    // sources and delays: the weights stream is separate, so nothing else changes).
    void draw(gid_type target, std::vector<incoming_connection>& out, rule_scratch& scratch,
              bool with_weights = true) const;
    // The same, handing each connection to emit(source, weight, delay) as it is drawn
    // (the engine builds the table's runs from them without a list in between).
    template <typename Emit>
    void draw_each(gid_type target, rule_scratch& scratch, bool with_weights, Emit&& emit) const;
    // Whether every connection of the rule has one weight and one delay: then a target's
    // inputs differ only in their sources, which sources_of gives as drawn (in the order
    // draw_each gives them), with constant_weight() and constant_delay().
    bool uniform() const {
        return rule_.weight.is_constant() && rule_.weight_spread == 0.0 && rule_.delay_ms.is_constant();
    }
    const std::vector<gid_type>& sources_of(gid_type target, rule_scratch& scratch) const {
        check_target(target);
        draw_sources(target, scratch);
        return scratch.sources;
    }
    double constant_weight() const { return rule_.weight.value; }
    step_type constant_delay() const { return constant_delay_; }
    // Memory held for this rank (the plans).
    std::size_t bytes() const;

private:
    void check_target(gid_type target) const; // internal_error if not one of the rule's
    void draw_sources(gid_type target, rule_scratch& scratch) const;
    step_type drawn_delay(random_stream& delays) const; // checked: user_error

    connection_rule rule_;
    std::uint32_t rule_index_;
    std::uint32_t seed_;
    double dt_ms_;
    step_type constant_delay_ = 0;
    std::unique_ptr<outdegree_plan> outdegree_;
    std::unique_ptr<total_number_plan> total_number_;
};

template <typename Emit>
void rule_drawer::draw_each(gid_type target, rule_scratch& scratch, bool with_weights, Emit&& emit) const {
    check_target(target);
    draw_sources(target, scratch);
    const auto& r = rule_;
    random_stream weights(seed_, target, purpose::weights, rule_index_);
    random_stream delays(seed_, target, purpose::delays, rule_index_);
    const bool spread = r.weight.is_constant() && r.weight_spread != 0.0;
    // A constant weight costs nothing to give: also when weights are not asked for (the
    // connection table's counting pass, table_shape::weights_when_counting).
    const bool constant = r.weight.is_constant() && !spread;
    for (gid_type s: scratch.sources) {
        double w = constant        ? r.weight.value
                   : !with_weights ? 0.0
                   : spread        ? r.weight.value + (weights.next_uniform() - 0.5) * r.weight_spread
                                   : spikex::draw(r.weight, weights);
        const step_type d = r.delay_ms.is_constant() ? constant_delay_ : drawn_delay(delays);
        emit(s, w, d);
    }
}

} // namespace spikex
