// Connection rules: random in-degree range, distinct/uniform sources, no self, weights; adjacent exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/network/connectivity.hpp"

using namespace spikex;

namespace {

constexpr double dt = 0.025;

connection_rule random_rule(gid_type src_first, std::uint32_t src_size, gid_type tgt_first, std::uint32_t tgt_size,
                            std::uint32_t c, std::uint32_t dc) {
    connection_rule r;
    r.kind = connection_rule_kind::random;
    r.source_first = src_first;
    r.source_size = src_size;
    r.target_first = tgt_first;
    r.target_size = tgt_size;
    r.indegree = c;
    r.indegree_spread = dc;
    r.weight = random_distribution::constant(0.5);
    r.weight_spread = 0.2;
    r.delay_ms = random_distribution::constant(1.5);
    // As the bindings give the legacy rules.
    r.allow_autapses = false;
    r.allow_multapses = false;
    return r;
}

connection_rule adjacent_rule(gid_type first, std::uint32_t size, std::uint32_t c) {
    connection_rule r = random_rule(first, size, first, size, c, 0);
    r.kind = connection_rule_kind::adjacent;
    return r;
}

// The rule drawer of one target (the legacy rules need no per-rank plan).
void draw_incoming(const connection_rule& rule, std::uint32_t rule_index, gid_type target, std::uint32_t seed,
                   double dt_ms, rule_scratch& scratch, std::vector<incoming_connection>& out) {
    rule_drawer(rule, rule_index, seed, dt_ms, {target}).draw(target, out, scratch);
}

std::vector<incoming_connection> draw(const connection_rule& rule, std::uint32_t rule_index, gid_type target,
                                      std::uint32_t seed) {
    rule_scratch scratch;
    std::vector<incoming_connection> out;
    draw_incoming(rule, rule_index, target, seed, dt, scratch, out);
    return out;
}

std::vector<gid_type> sources_of(const std::vector<incoming_connection>& conns) {
    std::vector<gid_type> s;
    for (auto& c: conns) s.push_back(c.source);
    return s;
}

bool same_draw(const std::vector<incoming_connection>& a, const std::vector<incoming_connection>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].source != b[i].source || a[i].weight != b[i].weight || a[i].delay != b[i].delay) return false;
    }
    return true;
}

} // namespace

TEST(connectivity, random_indegree_in_range_distinct_no_self_within_sources) {
    // Targets inside the source population: self must be excluded.
    const std::uint32_t n = 300;
    for (auto [c, dc]: {std::pair{50u, 20u}, std::pair{50u, 21u}, std::pair{10u, 0u}, std::pair{3u, 6u}}) {
        auto rule = random_rule(0, n, 0, n, c, dc);
        const std::uint32_t low = c - std::min(c, dc / 2), high = c + dc / 2;
        std::set<std::uint32_t> degrees;
        for (gid_type j = 0; j < n; ++j) {
            auto conns = draw(rule, 0, j, 11);
            degrees.insert(conns.size());
            ASSERT_GE(conns.size(), low) << "C " << c << " dC " << dc;
            ASSERT_LE(conns.size(), high) << "C " << c << " dC " << dc;
            std::set<gid_type> distinct;
            for (auto& k: conns) {
                ASSERT_NE(k.source, j) << "self-connection";
                ASSERT_LT(k.source, n);
                distinct.insert(k.source);
            }
            EXPECT_EQ(distinct.size(), conns.size()) << "duplicate source for target " << j;
        }
        // Both ends of the in-degree range are actually drawn.
        EXPECT_EQ(*degrees.begin(), low);
        EXPECT_EQ(*degrees.rbegin(), high);
        EXPECT_EQ(degrees.size(), high - low + 1);
    }
}

TEST(connectivity, random_sources_stay_in_an_offset_source_range) {
    // Sources 1000..1099, targets 0..49 (outside the sources: nobody to exclude, all 100 allowed).
    auto rule = random_rule(1000, 100, 0, 50, 100, 0);
    for (gid_type j = 0; j < 50; ++j) {
        auto s = sources_of(draw(rule, 0, j, 3));
        std::sort(s.begin(), s.end());
        ASSERT_EQ(s.size(), 100u);
        for (std::uint32_t k = 0; k < 100; ++k) EXPECT_EQ(s[k], 1000 + k);
    }
    // Target inside an offset source range: gid 1042 must never be its own source.
    auto rule2 = random_rule(1000, 100, 1000, 100, 99, 0);
    auto s = sources_of(draw(rule2, 0, 1042, 3));
    std::sort(s.begin(), s.end());
    ASSERT_EQ(s.size(), 99u);
    EXPECT_FALSE(std::binary_search(s.begin(), s.end(), 1042u));
    EXPECT_EQ(s.front(), 1000u);
    EXPECT_EQ(s.back(), 1099u);
}

TEST(connectivity, random_all_other_cells_when_indegree_is_n_minus_1) {
    const std::uint32_t n = 64;
    auto rule = random_rule(0, n, 0, n, n - 1, 0);
    for (gid_type j: {0u, 31u, 63u}) {
        auto s = sources_of(draw(rule, 0, j, 5));
        std::sort(s.begin(), s.end());
        std::vector<gid_type> expected;
        for (gid_type g = 0; g < n; ++g)
            if (g != j) expected.push_back(g);
        EXPECT_EQ(s, expected);
    }
}

TEST(connectivity, random_draw_depends_on_seed_gid_rule_index_only) {
    auto rule = random_rule(0, 1000, 0, 1000, 100, 10);
    auto base = draw(rule, 0, 17, 99);
    EXPECT_TRUE(same_draw(base, draw(rule, 0, 17, 99)));
    // Sources and weights each depend on the rule index.
    auto other_rule = draw(rule, 1, 17, 99);
    EXPECT_NE(sources_of(base), sources_of(other_rule)) << "rule index must select another connection sub-stream";
    EXPECT_NE(base.front().weight, other_rule.front().weight) << "and another weight sub-stream";
    EXPECT_NE(sources_of(base), sources_of(draw(rule, 0, 17, 98)));
    EXPECT_NE(sources_of(base), sources_of(draw(rule, 0, 18, 99)));
    // Reused scratch (as the engine does over many targets) changes nothing.
    rule_scratch scratch;
    std::vector<incoming_connection> out;
    draw_incoming(rule, 0, 500, 99, dt, scratch, out);
    out.clear();
    draw_incoming(rule, 0, 17, 99, dt, scratch, out);
    EXPECT_TRUE(same_draw(base, out));
    // draw_incoming appends: existing entries are kept.
    std::vector<incoming_connection> two = base;
    draw_incoming(rule, 0, 17, 99, dt, scratch, two);
    ASSERT_EQ(two.size(), 2 * base.size());
    EXPECT_TRUE(same_draw(std::vector(two.begin() + base.size(), two.end()), base));
}

TEST(connectivity, random_source_choice_is_roughly_uniform) {
    // 50 sources, 4000 targets outside them, 10 inputs each: every source expects 800 hits.
    const std::uint32_t s = 50, targets = 4000, c = 10;
    auto rule = random_rule(0, s, 10000, targets, c, 0);
    std::vector<double> hits(s, 0);
    rule_scratch scratch;
    std::vector<incoming_connection> out;
    for (gid_type j = 10000; j < 10000 + targets; ++j) {
        out.clear();
        draw_incoming(rule, 0, j, 21, dt, scratch, out);
        for (auto& k: out) hits[k.source] += 1;
    }
    auto chi2 = [](const std::vector<double>& h, double expected) {
        double x = 0;
        for (double o: h) x += (o - expected) * (o - expected) / expected;
        return x;
    };
    // 49 degrees of freedom: mean 49, the 99.99 % quantile is about 95.
    EXPECT_LT(chi2(hits, double(targets) * c / s), 95.0);

    // In-degrees: C = 10, dC = 4 over 5000 targets, each of 8..12 expects 1000 (4 degrees of freedom).
    auto rule_deg = random_rule(0, s, 10000, 5000, 10, 4);
    std::vector<double> degree(5, 0);
    for (gid_type j = 10000; j < 15000; ++j) degree[draw(rule_deg, 0, j, 21).size() - 8] += 1;
    double x = 0;
    for (double o: degree) x += (o - 1000) * (o - 1000) / 1000;
    EXPECT_LT(x, 25.0);

    // Self excluded: for one target over many seeds, the other 49 sources are equally likely.
    auto rule_in = random_rule(0, s, 0, s, 5, 0);
    std::vector<double> h(s, 0);
    const int seeds = 4900;
    for (int seed = 0; seed < seeds; ++seed) {
        for (auto& k: draw(rule_in, 0, 7, seed)) h[k.source] += 1;
    }
    EXPECT_EQ(h[7], 0);
    h.erase(h.begin() + 7);
    EXPECT_LT(chi2(h, seeds * 5.0 / 49), 95.0);
}

TEST(connectivity, weights_within_spread_reproducible_and_centered) {
    auto rule = random_rule(0, 1000, 0, 1000, 200, 0);
    rule.weight = random_distribution::constant(2.0);
    rule.weight_spread = 0.4;
    double sum = 0, lo = 1e9, hi = -1e9;
    std::size_t count = 0;
    for (gid_type j = 0; j < 100; ++j) {
        auto conns = draw(rule, 0, j, 8);
        EXPECT_TRUE(same_draw(conns, draw(rule, 0, j, 8)));
        for (auto& k: conns) {
            ASSERT_GE(k.weight, 1.8);
            ASSERT_LT(k.weight, 2.2);
            sum += k.weight;
            lo = std::min(lo, k.weight);
            hi = std::max(hi, k.weight);
            ++count;
        }
    }
    EXPECT_NEAR(sum / count, 2.0, 0.005);
    // The whole width is used, not a constant.
    EXPECT_LT(lo, 1.81);
    EXPECT_GT(hi, 2.19);
    // Weights come from their own stream: the rule index changes them too.
    auto a = draw(rule, 0, 3, 8), b = draw(rule, 1, 3, 8);
    EXPECT_NE(a.front().weight, b.front().weight);
}

TEST(connectivity, zero_spread_gives_exact_weight_and_delay_is_rounded_to_steps) {
    auto rule = random_rule(0, 100, 0, 100, 10, 0);
    rule.weight = random_distribution::constant(-0.75);
    rule.weight_spread = 0;
    rule.delay_ms = random_distribution::constant(1.5); // 60 steps of 0.025 ms
    for (auto& k: draw(rule, 0, 4, 1)) {
        EXPECT_EQ(k.weight, -0.75);
        EXPECT_EQ(k.delay, 60);
    }
    rule.delay_ms = random_distribution::constant(0.0374); // 1.496 steps -> 1
    for (auto& k: draw(rule, 0, 4, 1)) EXPECT_EQ(k.delay, 1);
    rule.delay_ms = random_distribution::constant(0.0376); // 1.504 steps -> 2
    for (auto& k: draw(rule, 0, 4, 1)) EXPECT_EQ(k.delay, 2);
}

TEST(connectivity, random_indegree_larger_than_sources_throws_user_error) {
    // 10 cells, target inside: only 9 possible sources.
    EXPECT_THROW(draw(random_rule(0, 10, 0, 10, 10, 0), 0, 3, 1), user_error);
    EXPECT_NO_THROW(draw(random_rule(0, 10, 0, 10, 9, 0), 0, 3, 1));
    // Target outside: all 10 possible.
    EXPECT_NO_THROW(draw(random_rule(0, 10, 20, 10, 10, 0), 0, 25, 1));
    EXPECT_THROW(draw(random_rule(0, 10, 20, 10, 11, 0), 0, 25, 1), user_error);
}

TEST(connectivity, adjacent_is_exact_with_wrap_at_both_ends) {
    const std::uint32_t n = 20;
    auto expected = [&](gid_type i, std::uint32_t c) {
        // i - C/2 .. i + (C - C/2) without i, modulo N, in this order.
        std::vector<gid_type> v;
        int below = c / 2, above = c - c / 2;
        for (int k = int(i) - below; k <= int(i) + above; ++k) {
            if (k != int(i)) v.push_back(gid_type((k + int(n)) % int(n)));
        }
        return v;
    };
    // Spelled out once, so that the helper above is checked too.
    EXPECT_EQ(sources_of(draw(adjacent_rule(0, n, 4), 0, 0, 1)), (std::vector<gid_type>{18, 19, 1, 2}));
    EXPECT_EQ(sources_of(draw(adjacent_rule(0, n, 5), 0, 0, 1)), (std::vector<gid_type>{18, 19, 1, 2, 3}));
    EXPECT_EQ(sources_of(draw(adjacent_rule(0, n, 4), 0, 19, 1)), (std::vector<gid_type>{17, 18, 0, 1}));
    EXPECT_EQ(sources_of(draw(adjacent_rule(0, n, 5), 0, 10, 1)), (std::vector<gid_type>{8, 9, 11, 12, 13}));
    for (std::uint32_t c: {1u, 2u, 3u, 4u, 5u, 18u, 19u}) {
        for (gid_type i = 0; i < n; ++i) {
            auto got = sources_of(draw(adjacent_rule(0, n, c), 0, i, 1));
            EXPECT_EQ(got, expected(i, c)) << "C " << c << " i " << i;
            std::set<gid_type> distinct(got.begin(), got.end());
            EXPECT_EQ(distinct.size(), c);
            EXPECT_EQ(distinct.count(i), 0u);
        }
    }
}

TEST(connectivity, adjacent_in_an_offset_population) {
    // Population at gids 100..109: wrapping is modulo the population, then shifted.
    auto rule = adjacent_rule(100, 10, 4);
    EXPECT_EQ(sources_of(draw(rule, 0, 100, 1)), (std::vector<gid_type>{108, 109, 101, 102}));
    EXPECT_EQ(sources_of(draw(rule, 0, 109, 1)), (std::vector<gid_type>{107, 108, 100, 101}));
    // Indegree spread is ignored by adjacent.
    rule.indegree_spread = 4;
    EXPECT_EQ(draw(rule, 0, 105, 1).size(), 4u);
}

TEST(connectivity, adjacent_weights_and_delays) {
    auto rule = adjacent_rule(0, 50, 6);
    rule.weight = random_distribution::constant(1.0);
    rule.weight_spread = 0.5;
    auto a = draw(rule, 0, 10, 4);
    EXPECT_TRUE(same_draw(a, draw(rule, 0, 10, 4)));
    std::set<double> weights;
    for (auto& k: a) {
        EXPECT_GE(k.weight, 0.75);
        EXPECT_LT(k.weight, 1.25);
        EXPECT_EQ(k.delay, 60);
        weights.insert(k.weight);
    }
    EXPECT_EQ(weights.size(), a.size()) << "weights should be drawn per connection";
    EXPECT_FALSE(same_draw(a, draw(rule, 0, 10, 5))) << "weights depend on the seed";
}

TEST(connectivity, adjacent_rejects_too_large_indegree_and_outside_targets) {
    EXPECT_NO_THROW(draw(adjacent_rule(0, 10, 9), 0, 0, 1));
    EXPECT_THROW(draw(adjacent_rule(0, 10, 10), 0, 0, 1), user_error);
    EXPECT_THROW(draw(adjacent_rule(0, 10, 1000), 0, 5, 1), user_error);
    auto outside = adjacent_rule(0, 10, 2);
    outside.target_first = 10;
    EXPECT_THROW(draw(outside, 0, 12, 1), user_error);
}
