#include <algorithm>
#include <cmath>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/core/random.hpp"
#include "spikex/core/random_batch.hpp"
#include "spikex/network/connectivity.hpp"
#include "spikex/network/discrete_sampling.hpp"
#include "spikex/network/outdegree_plan.hpp"
#include "spikex/network/rule_check.hpp"
#include "spikex/network/source_pool.hpp"
#include "spikex/network/total_number_plan.hpp"

namespace spikex {
namespace {

// Delays are stored as 32-bit step counts with room to spare (connection_table).
constexpr double longest_delay_steps = 2147483647.0;

step_type checked_delay(double delay_ms, double dt_ms) {
    if (!(delay_ms * (1.0 / dt_ms) < longest_delay_steps)) {
        throw user_error(spikex::format("delay_ms: a drawn delay of {} ms is longer than the longest possible, {} ms",
                                        delay_ms, longest_delay_steps * dt_ms));
    }
    const step_type d = delay_steps(delay_ms, dt_ms);
    if (d < 1) throw internal_error(spikex::format("delay_ms: drawn {} ms rounds to no step", delay_ms));
    return d;
}

} // namespace

rule_drawer::rule_drawer(const connection_rule& rule, std::uint32_t rule_index, std::uint32_t seed, double dt_ms,
                         const std::vector<gid_type>& local_targets):
    rule_(rule), rule_index_(rule_index), seed_(seed), dt_ms_(dt_ms) {
    check_rule(rule, dt_ms, spikex::format("connection rule {} ({})", rule_index, rule_name(rule.kind)));
    if (rule.delay_ms.is_constant()) constant_delay_ = checked_delay(rule.delay_ms.value, dt_ms);
    const bool planned =
        rule.kind == connection_rule_kind::fixed_outdegree || rule.kind == connection_rule_kind::fixed_total_number;
    if (!planned) return;
    std::vector<gid_type> mine;
    for (gid_type g: local_targets) {
        if (targets(g)) mine.push_back(g);
    }
    std::sort(mine.begin(), mine.end());
    mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
    if (rule.kind == connection_rule_kind::fixed_outdegree) {
        outdegree_ = std::make_unique<outdegree_plan>(rule, rule_index, seed, std::move(mine));
    } else {
        total_number_ = std::make_unique<total_number_plan>(rule, rule_index, seed, std::move(mine));
    }
}

rule_drawer::~rule_drawer() = default;
rule_drawer::rule_drawer(rule_drawer&&) noexcept = default;
rule_drawer& rule_drawer::operator=(rule_drawer&&) noexcept = default;

std::size_t rule_drawer::bytes() const {
    return (outdegree_ ? outdegree_->bytes() : 0) + (total_number_ ? total_number_->bytes() : 0);
}

void rule_drawer::draw_sources(gid_type target, rule_scratch& scratch) const {
    const auto& r = rule_;
    auto& sources = scratch.sources;
    sources.clear();
    random_stream rng(seed_, target, purpose::connections, rule_index_);
    switch (r.kind) {
    case connection_rule_kind::random: {
        const source_pool pool(r.source_first, r.source_size, target, true);
        const std::uint32_t half = r.indegree_spread / 2;
        const std::uint32_t low = r.indegree > half ? r.indegree - half : 0;
        const std::uint32_t count = low + rng.next_below(r.indegree + half - low + 1);
        if (count > pool.size()) {
            throw user_error(spikex::format("indegree: a cell would need {} distinct sources but only {} exist", count,
                                            pool.size()));
        }
        pool.draw_distinct(rng, count, scratch.bitmap, sources);
        break;
    }
    case connection_rule_kind::adjacent: {
        const std::int64_t n = r.source_size;
        const std::int64_t i = static_cast<std::int64_t>(target) - r.source_first;
        const std::int64_t below = r.indegree / 2;
        const std::int64_t above = r.indegree - below;
        for (std::int64_t k = i - below; k <= i + above; ++k) {
            if (k != i) sources.push_back(r.source_first + static_cast<gid_type>(((k % n) + n) % n));
        }
        break;
    }
    case connection_rule_kind::fixed_indegree:
    case connection_rule_kind::fixed_total_number: {
        const source_pool pool(r.source_first, r.source_size, target, !r.allow_autapses);
        const std::uint64_t count =
            r.kind == connection_rule_kind::fixed_indegree ? r.indegree : total_number_->indegree(target);
        if (r.allow_multapses) {
            // The same words as rng's (unused so far), computed in batches.
            batched_random_stream batched(seed_, target, purpose::connections, rule_index_);
            sources.reserve(count);
            pool.draw_with_replacement(batched, count, sources);
        } else {
            pool.draw_distinct(rng, static_cast<std::uint32_t>(count), scratch.bitmap, sources);
        }
        break;
    }
    case connection_rule_kind::fixed_outdegree: {
        const auto from = outdegree_->sources(target);
        sources.assign(from.begin(), from.end());
        break;
    }
    case connection_rule_kind::pairwise_bernoulli: {
        const source_pool pool(r.source_first, r.source_size, target, !r.allow_autapses);
        // Index of the next connection = previous + 1 + gap, gap ~ Geometric(p).
        std::uint64_t next = geometric_gap(r.probability, rng.next_uniform());
        while (next < pool.size()) {
            sources.push_back(pool.gid(static_cast<std::uint32_t>(next)));
            const std::uint64_t gap = geometric_gap(r.probability, rng.next_uniform());
            if (gap >= pool.size()) break;
            next += 1 + gap;
        }
        break;
    }
    case connection_rule_kind::one_to_one: {
        const gid_type source = r.source_first + (target - r.target_first);
        if (r.allow_autapses || source != target) sources.push_back(source);
        break;
    }
    case connection_rule_kind::all_to_all: {
        const source_pool pool(r.source_first, r.source_size, target, !r.allow_autapses);
        for (std::uint32_t k = 0; k < pool.size(); ++k) sources.push_back(pool.gid(k));
        break;
    }
    }
}

void rule_drawer::check_target(gid_type target) const {
    if (!targets(target)) {
        throw internal_error(
            spikex::format("connection rule {}: gid {} is not one of its targets", rule_index_, target));
    }
}

step_type rule_drawer::drawn_delay(random_stream& delays) const {
    return checked_delay(spikex::draw(rule_.delay_ms, delays), dt_ms_);
}

void rule_drawer::draw(gid_type target, std::vector<incoming_connection>& out, rule_scratch& scratch,
                       bool with_weights) const {
    draw_each(target, scratch, with_weights, [&](gid_type s, double w, step_type d) { out.push_back({s, w, d}); });
}

} // namespace spikex
