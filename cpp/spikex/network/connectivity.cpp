#include <cmath>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/core/random.hpp"
#include "spikex/network/connectivity.hpp"

namespace spikex {

step_type delay_steps(double delay_ms, double dt_ms) { return static_cast<step_type>(std::llround(delay_ms / dt_ms)); }

namespace {

bool target_in_sources(const connection_rule& r, gid_type target) {
    return target >= r.source_first && target - r.source_first < r.source_size;
}

// Floyd's algorithm: `count` distinct values in [0, n) with exactly `count` draws.
// Marks chosen values in `bitmap` and clears them again before returning.
void sample_distinct(random_stream& rng, std::uint32_t n, std::uint32_t count, std::vector<std::uint64_t>& bitmap,
                     std::vector<std::uint32_t>& chosen) {
    bitmap.assign((n + 63) / 64, 0);
    auto test_and_set = [&](std::uint32_t v) {
        std::uint64_t bit = std::uint64_t{1} << (v & 63);
        bool was = bitmap[v >> 6] & bit;
        bitmap[v >> 6] |= bit;
        return was;
    };
    chosen.clear();
    for (std::uint32_t j = n - count; j < n; ++j) {
        std::uint32_t t = rng.next_below(j + 1);
        if (test_and_set(t)) {
            test_and_set(j);
            chosen.push_back(j);
        } else {
            chosen.push_back(t);
        }
    }
}

} // namespace

void draw_incoming(const connection_rule& rule, std::uint32_t rule_index, gid_type target, std::uint32_t seed,
                   double dt_ms, std::vector<std::uint64_t>& scratch, std::vector<incoming_connection>& out) {
    step_type delay = delay_steps(rule.delay_ms.value, dt_ms);
    bool exclude_self = target_in_sources(rule, target);
    std::uint32_t pool = rule.source_size - (exclude_self ? 1 : 0);
    std::vector<gid_type> sources;

    if (rule.kind == connection_rule_kind::random) {
        random_stream rng(seed, target, purpose::connections, rule_index);
        std::uint32_t half = rule.indegree_spread / 2;
        std::uint32_t low = rule.indegree > half ? rule.indegree - half : 0;
        std::uint32_t count = low + rng.next_below(rule.indegree + half - low + 1);
        if (count > pool) {
            throw user_error(spikex::format("network.indegree: a cell would need {} distinct sources but only {} exist",
                                            count, pool));
        }
        std::vector<std::uint32_t> chosen;
        sample_distinct(rng, pool, count, scratch, chosen);
        sources.reserve(count);
        std::uint32_t self = exclude_self ? target - rule.source_first : pool + 1;
        for (std::uint32_t v: chosen) {
            sources.push_back(rule.source_first + (v >= self ? v + 1 : v));
        }
    } else if (rule.kind == connection_rule_kind::fixed_indegree) {
        // Each of the C draws is uniform over the pool (multapses allowed), as NEST's
        // fixed_indegree with allow_multapses = True, allow_autapses = False.
        random_stream rng(seed, target, purpose::connections, rule_index);
        if (pool == 0 && rule.indegree > 0) {
            throw user_error("fixed_indegree: a cell would need sources but only itself is in the source range");
        }
        sources.reserve(rule.indegree);
        std::uint32_t self = exclude_self ? target - rule.source_first : pool + 1;
        for (std::uint32_t k = 0; k < rule.indegree; ++k) {
            std::uint32_t v = rng.next_below(pool);
            sources.push_back(rule.source_first + (v >= self ? v + 1 : v));
        }
    } else {
        if (!exclude_self) {
            throw user_error("network.connectivity = \"adjacent\": targets must lie in the source population");
        }
        if (rule.indegree > pool) {
            throw user_error(spikex::format(
                "network.indegree = {}: adjacent connectivity allows at most cells - 1 = {}", rule.indegree, pool));
        }
        std::int64_t n = rule.source_size;
        std::int64_t i = target - rule.source_first;
        std::int64_t below = rule.indegree / 2;
        std::int64_t above = rule.indegree - below;
        for (std::int64_t k = i - below; k <= i + above; ++k) {
            if (k == i) continue;
            sources.push_back(rule.source_first + static_cast<gid_type>(((k % n) + n) % n));
        }
    }

    random_stream wrng(seed, target, purpose::weights, rule_index);
    for (gid_type s: sources) {
        double w = rule.weight.value;
        if (rule.weight_spread != 0.0) w += (wrng.next_uniform() - 0.5) * rule.weight_spread;
        out.push_back({s, w, delay});
    }
}

} // namespace spikex
