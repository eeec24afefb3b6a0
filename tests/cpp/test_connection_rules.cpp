// NEST's connection rules as drawn on the target's rank: exact counts, statistics, flags,
// independence of how the targets are split over ranks, weights and delays from
// distributions, the exact count samplers, and check_rule's errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/core/random.hpp"
#include "spikex/network/connectivity.hpp"
#include "spikex/network/discrete_sampling.hpp"
#include "spikex/network/rule_check.hpp"

using namespace spikex;

namespace {

constexpr double dt = 0.1;

connection_rule make_rule(connection_rule_kind kind, gid_type source_first, std::uint32_t sources,
                          gid_type target_first, std::uint32_t targets) {
    connection_rule r;
    r.kind = kind;
    r.source_first = source_first;
    r.source_size = sources;
    r.target_first = target_first;
    r.target_size = targets;
    r.weight = random_distribution::constant(1.0);
    r.delay_ms = random_distribution::constant(1.0);
    return r;
}

random_distribution normal_clipped(double mean, double std, double low, double high) {
    random_distribution d;
    d.kind = distribution_kind::normal_clipped;
    d.mean = mean;
    d.std = std;
    d.low = low;
    d.high = high;
    return d;
}

random_distribution uniform(double low, double high) {
    random_distribution d;
    d.kind = distribution_kind::uniform;
    d.low = low;
    d.high = high;
    return d;
}

using network = std::map<gid_type, std::vector<incoming_connection>>;

// The rule's connections with the targets split into `parts` (each part one rank: its own
// drawer, given only its targets), put together by target.
network draw_split(const connection_rule& rule, std::uint32_t seed, const std::vector<std::vector<gid_type>>& parts,
                   std::uint32_t rule_index = 0) {
    network net;
    rule_scratch scratch;
    for (const auto& part: parts) {
        const rule_drawer drawer(rule, rule_index, seed, dt, part);
        for (gid_type g: part) {
            auto& in = net[g];
            drawer.draw(g, in, scratch);
            // Drawn twice (count and place pass): the same sequence.
            std::vector<incoming_connection> again;
            drawer.draw(g, again, scratch);
            EXPECT_EQ(again.size(), in.size());
            for (std::size_t k = 0; k < in.size() && k < again.size(); ++k) {
                EXPECT_EQ(again[k].source, in[k].source);
                EXPECT_EQ(again[k].weight, in[k].weight);
                EXPECT_EQ(again[k].delay, in[k].delay);
            }
        }
    }
    return net;
}

std::vector<gid_type> all_targets(const connection_rule& rule) {
    std::vector<gid_type> t(rule.target_size);
    std::iota(t.begin(), t.end(), rule.target_first);
    return t;
}

network draw_all(const connection_rule& rule, std::uint32_t seed, std::uint32_t rule_index = 0) {
    return draw_split(rule, seed, {all_targets(rule)}, rule_index);
}

// Targets split as round robin, in blocks, or in a scrambled order over `p` parts.
enum class split_kind { round_robin, blocks, scrambled };

std::vector<std::vector<gid_type>> split(const connection_rule& rule, int p, split_kind how) {
    std::vector<std::vector<gid_type>> parts(p);
    const auto targets = all_targets(rule);
    const std::size_t n = targets.size();
    for (std::size_t k = 0; k < n; ++k) {
        std::size_t part = 0;
        switch (how) {
        case split_kind::round_robin:
            part = k % p;
            break;
        case split_kind::blocks:
            part = k * p / n;
            break;
        case split_kind::scrambled:
            part = (k * 2654435761u >> 7) % p;
            break;
        }
        parts[part].push_back(targets[k]);
    }
    // A rank's local gids need not be ascending (random_shuffle): hand them over reversed.
    if (how == split_kind::scrambled) {
        for (auto& part: parts) std::reverse(part.begin(), part.end());
    }
    return parts;
}

bool same(const network& a, const network& b) {
    if (a.size() != b.size()) return false;
    for (const auto& [g, in]: a) {
        auto it = b.find(g);
        if (it == b.end() || it->second.size() != in.size()) return false;
        for (std::size_t k = 0; k < in.size(); ++k) {
            const auto &x = in[k], &y = it->second[k];
            if (x.source != y.source || x.weight != y.weight || x.delay != y.delay) return false;
        }
    }
    return true;
}

std::uint64_t total(const network& net) {
    std::uint64_t n = 0;
    for (const auto& [g, in]: net) n += in.size();
    return n;
}

// Every rule with a few flag settings, on overlapping source and target ranges.
std::vector<connection_rule> every_rule() {
    std::vector<connection_rule> rules;
    auto add = [&](connection_rule r) {
        for (bool autapses: {false, true}) {
            for (bool multapses: {false, true}) {
                r.allow_autapses = autapses;
                r.allow_multapses = multapses;
                rules.push_back(r);
            }
        }
    };
    auto r = make_rule(connection_rule_kind::fixed_indegree, 0, 60, 30, 70);
    r.indegree = 12;
    r.weight = normal_clipped(0.5, 0.2, 0.0, 1.0);
    r.delay_ms = uniform(0.1, 2.0);
    add(r);
    r.kind = connection_rule_kind::fixed_outdegree;
    r.outdegree = 9;
    add(r);
    r.kind = connection_rule_kind::fixed_total_number;
    r.total_number = 1500;
    add(r);
    r.kind = connection_rule_kind::pairwise_bernoulli;
    r.probability = 0.15;
    add(r);
    r.kind = connection_rule_kind::all_to_all;
    add(r);
    auto o = make_rule(connection_rule_kind::one_to_one, 10, 50, 30, 50);
    o.weight = uniform(-1, 1);
    add(o);
    auto legacy = make_rule(connection_rule_kind::random, 0, 100, 0, 100);
    legacy.indegree = 10;
    legacy.indegree_spread = 4;
    legacy.weight_spread = 0.3;
    rules.push_back(legacy);
    legacy.kind = connection_rule_kind::adjacent;
    rules.push_back(legacy);
    return rules;
}

} // namespace

// --- independence of the split over ranks -------------------------------------------

TEST(connection_rules, the_same_connections_for_every_split_of_the_targets) {
    for (const auto& rule: every_rule()) {
        const std::string name = rule_name(rule.kind) + " autapses " + std::to_string(rule.allow_autapses) +
                                 " multapses " + std::to_string(rule.allow_multapses);
        const network one = draw_all(rule, 17, 3);
        ASSERT_GT(total(one), 0u) << name;
        for (int p: {2, 3, 4}) {
            for (auto how: {split_kind::round_robin, split_kind::blocks, split_kind::scrambled}) {
                EXPECT_TRUE(same(one, draw_split(rule, 17, split(rule, p, how), 3)))
                    << name << " differs on " << p << " ranks (split " << int(how) << ")";
            }
        }
        // ... and the seed and the rule index do matter.
        EXPECT_FALSE(same(one, draw_all(rule, 18, 3))) << name;
        if (rule.kind != connection_rule_kind::all_to_all && rule.kind != connection_rule_kind::one_to_one) {
            EXPECT_FALSE(same(one, draw_all(rule, 17, 4))) << name;
        }
    }
}

TEST(connection_rules, a_target_outside_its_drawers_local_targets_is_an_internal_error) {
    auto rule = make_rule(connection_rule_kind::fixed_total_number, 0, 10, 0, 10);
    rule.total_number = 50;
    const rule_drawer drawer(rule, 0, 1, dt, {2, 4});
    rule_scratch scratch;
    std::vector<incoming_connection> out;
    EXPECT_NO_THROW(drawer.draw(4, out, scratch));
    EXPECT_THROW(drawer.draw(3, out, scratch), internal_error);
    EXPECT_THROW(drawer.draw(10, out, scratch), internal_error); // not a target of the rule
}

// --- fixed_indegree ---------------------------------------------------------------

TEST(connection_rules, fixed_indegree_counts_and_flags) {
    auto rule = make_rule(connection_rule_kind::fixed_indegree, 0, 30, 0, 30);
    rule.indegree = 30;
    for (bool autapses: {false, true}) {
        for (bool multapses: {false, true}) {
            rule.allow_autapses = autapses;
            rule.allow_multapses = multapses;
            rule.indegree = autapses || multapses ? 30 : 29;
            bool any_self = false, any_double = false;
            for (const auto& [g, in]: draw_all(rule, 5)) {
                ASSERT_EQ(in.size(), rule.indegree);
                std::set<gid_type> distinct;
                for (const auto& c: in) {
                    ASSERT_LT(c.source, 30u);
                    if (c.source == g) any_self = true;
                    if (!distinct.insert(c.source).second) any_double = true;
                }
            }
            EXPECT_EQ(any_self, autapses) << "autapses " << autapses << " multapses " << multapses;
            EXPECT_EQ(any_double, multapses) << "autapses " << autapses << " multapses " << multapses;
        }
    }
}

TEST(connection_rules, legacy_fixed_indegree_draws_as_before) {
    // The draws of the bindings' fixed_indegree (no autapses, multapses): source k of target
    // j is next_below(S - 1) of j's connections stream, skipping j; weights value + (u-1/2) *
    // spread from the weights stream. hpc_benchmark's spike hashes depend on this.
    auto rule = make_rule(connection_rule_kind::fixed_indegree, 0, 200, 0, 200);
    rule.indegree = 20;
    rule.allow_autapses = false;
    rule.allow_multapses = true;
    rule.weight = random_distribution::constant(0.2);
    rule.weight_spread = 0.05;
    rule.delay_ms = random_distribution::constant(1.5);
    const auto net = draw_all(rule, 9, 2);
    for (gid_type j: {0u, 57u, 199u}) {
        random_stream rng(9, j, purpose::connections, 2), w(9, j, purpose::weights, 2);
        const auto& in = net.at(j);
        ASSERT_EQ(in.size(), 20u);
        for (const auto& c: in) {
            const std::uint32_t v = rng.next_below(199);
            EXPECT_EQ(c.source, v >= j ? v + 1 : v);
            EXPECT_EQ(c.weight, 0.2 + (w.next_uniform() - 0.5) * 0.05);
            EXPECT_EQ(c.delay, 15);
        }
    }
}

TEST(connection_rules, fixed_indegree_sources_are_uniform) {
    // 40 sources outside the targets, 2000 targets of in-degree 10: 500 expected per source.
    auto rule = make_rule(connection_rule_kind::fixed_indegree, 0, 40, 100, 2000);
    rule.indegree = 10;
    for (bool multapses: {false, true}) {
        rule.allow_multapses = multapses;
        std::vector<double> hits(40, 0);
        for (const auto& [g, in]: draw_all(rule, 3)) {
            for (const auto& c: in) hits[c.source] += 1;
        }
        double chi2 = 0;
        for (double h: hits) chi2 += (h - 500) * (h - 500) / 500;
        EXPECT_LT(chi2, 85.0) << "39 degrees of freedom; multapses " << multapses; // p ~ 3e-5
    }
}

// --- fixed_outdegree --------------------------------------------------------------

TEST(connection_rules, fixed_outdegree_counts_per_source_and_flags) {
    auto rule = make_rule(connection_rule_kind::fixed_outdegree, 0, 40, 0, 40);
    for (bool autapses: {false, true}) {
        for (bool multapses: {false, true}) {
            rule.allow_autapses = autapses;
            rule.allow_multapses = multapses;
            rule.outdegree = autapses || multapses ? 40 : 39;
            std::map<gid_type, std::vector<gid_type>> targets_of;
            for (const auto& [g, in]: draw_all(rule, 8)) {
                // Sources in ascending order (creation order of the replay).
                for (std::size_t k = 1; k < in.size(); ++k) ASSERT_LE(in[k - 1].source, in[k].source);
                for (const auto& c: in) targets_of[c.source].push_back(g);
            }
            bool any_self = false, any_double = false;
            for (gid_type s = 0; s < 40; ++s) {
                const auto& t = targets_of[s];
                ASSERT_EQ(t.size(), rule.outdegree) << "source " << s;
                std::set<gid_type> distinct(t.begin(), t.end());
                any_double |= distinct.size() != t.size();
                any_self |= distinct.count(s) > 0;
            }
            EXPECT_EQ(any_self, autapses) << "autapses " << autapses << " multapses " << multapses;
            EXPECT_EQ(any_double, multapses) << "autapses " << autapses << " multapses " << multapses;
        }
    }
}

TEST(connection_rules, fixed_outdegree_keeps_only_the_local_connections) {
    auto rule = make_rule(connection_rule_kind::fixed_outdegree, 0, 1000, 0, 1000);
    rule.outdegree = 50;
    const auto parts = split(rule, 4, split_kind::round_robin);
    const rule_drawer whole(rule, 0, 1, dt, all_targets(rule));
    const rule_drawer quarter(rule, 0, 1, dt, parts[1]);
    // 50 000 connections: 4 bytes each for the whole, about a quarter of it for one of 4 ranks.
    EXPECT_GE(whole.bytes(), 50000u * 4);
    EXPECT_LT(quarter.bytes(), whole.bytes() / 3);
}

// --- fixed_total_number -----------------------------------------------------------

TEST(connection_rules, fixed_total_number_in_degrees_are_multinomial) {
    // 1000 targets outside the sources, N = 100 000: in-degree ~ Binomial(N, 1/1000).
    auto rule = make_rule(connection_rule_kind::fixed_total_number, 0, 500, 500, 1000);
    rule.total_number = 100000;
    const auto net = draw_all(rule, 4);
    EXPECT_EQ(total(net), rule.total_number);
    double sum = 0, sum2 = 0;
    for (const auto& [g, in]: net) {
        sum += double(in.size());
        sum2 += double(in.size()) * double(in.size());
    }
    const double n = 1000, mean = sum / n, var = (sum2 - sum * sum / n) / (n - 1);
    EXPECT_DOUBLE_EQ(mean, 100.0);
    // Variance 99.9; its estimate has a standard deviation of ~4.5.
    EXPECT_NEAR(var, 99.9, 25.0);
    // Multapses (allowed by default, as NEST) do happen with 100 of 500 sources.
    bool any_double = false;
    for (const auto& [g, in]: net) {
        std::set<gid_type> s;
        for (const auto& c: in) any_double |= !s.insert(c.source).second;
    }
    EXPECT_TRUE(any_double);
}

TEST(connection_rules, fixed_total_number_weights_targets_by_their_allowed_sources) {
    // Sources 0..9, targets 5..14, no autapses: targets 5..9 have 9 allowed sources, 10..14
    // have 10 (95 pairs). N = 10^6: expected 94 737 and 105 263, standard deviation ~300.
    auto rule = make_rule(connection_rule_kind::fixed_total_number, 0, 10, 5, 10);
    rule.allow_autapses = false;
    rule.total_number = 1000000;
    const auto net = draw_all(rule, 12);
    EXPECT_EQ(total(net), rule.total_number);
    for (const auto& [g, in]: net) {
        const double expected = 1e6 * (g < 10 ? 9.0 : 10.0) / 95.0;
        EXPECT_NEAR(double(in.size()), expected, 1600.0) << "target " << g;
        for (std::size_t k = 0; k < in.size(); k += 97) ASSERT_NE(in[k].source, g);
    }
}

TEST(connection_rules, fixed_total_number_without_multapses) {
    // 20 sources x 30 targets (overlap 10..19, no autapses: 590 pairs), N = 580.
    auto rule = make_rule(connection_rule_kind::fixed_total_number, 0, 20, 10, 30);
    rule.allow_autapses = false;
    rule.allow_multapses = false;
    rule.total_number = 580;
    auto net = draw_all(rule, 2);
    EXPECT_EQ(total(net), 580u);
    for (const auto& [g, in]: net) {
        std::set<gid_type> s;
        for (const auto& c: in) {
            ASSERT_NE(c.source, g);
            ASSERT_TRUE(s.insert(c.source).second) << "multapse on target " << g;
        }
    }
    // Every allowed pair: all_to_all without autapses.
    rule.total_number = 590;
    net = draw_all(rule, 2);
    for (const auto& [g, in]: net) EXPECT_EQ(in.size(), g < 20 ? 19u : 20u);
}

TEST(connection_rules, fixed_total_number_without_multapses_in_degrees_are_hypergeometric) {
    // 200 targets x 10 sources (2000 pairs), N = 1000: in-degree mean 5, variance
    // N p (1-p) (W-N)/(W-1) = 1000 * 0.005 * 0.995 * 1000/1999 = 2.489. Over 20 seeds.
    auto rule = make_rule(connection_rule_kind::fixed_total_number, 0, 10, 10, 200);
    rule.allow_multapses = false;
    rule.total_number = 1000;
    double sum = 0, sum2 = 0, n = 0;
    for (std::uint32_t seed = 0; seed < 20; ++seed) {
        for (const auto& [g, in]: draw_all(rule, seed)) {
            sum += double(in.size());
            sum2 += double(in.size()) * double(in.size());
            n += 1;
        }
    }
    const double mean = sum / n, var = (sum2 - sum * sum / n) / (n - 1);
    EXPECT_DOUBLE_EQ(mean, 5.0);
    EXPECT_NEAR(var, 2.489, 0.25); // the multinomial would give 4.975
}

// --- pairwise_bernoulli -----------------------------------------------------------

TEST(connection_rules, pairwise_bernoulli_counts_are_binomial_and_sources_uniform) {
    // 400 targets outside 250 sources, p = 0.1: total ~ Binomial(100 000, 0.1): mean
    // 10 000, standard deviation ~95; per-target in-degree variance 22.5.
    auto rule = make_rule(connection_rule_kind::pairwise_bernoulli, 0, 250, 1000, 400);
    rule.probability = 0.1;
    const auto net = draw_all(rule, 6);
    EXPECT_NEAR(double(total(net)), 10000.0, 480.0);
    double sum = 0, sum2 = 0;
    std::vector<double> hits(250, 0);
    for (const auto& [g, in]: net) {
        sum += double(in.size());
        sum2 += double(in.size()) * double(in.size());
        for (std::size_t k = 0; k < in.size(); ++k) {
            hits[in[k].source] += 1;
            if (k > 0) ASSERT_LT(in[k - 1].source, in[k].source) << "ascending, no multapses";
        }
    }
    const double var = (sum2 - sum * sum / 400) / 399;
    EXPECT_NEAR(var, 22.5, 6.0);
    // Each source 40 expected hits; chi-square with 249 degrees of freedom (p ~ 1e-5 at 345).
    double chi2 = 0;
    const double expected = sum / 250;
    for (double h: hits) chi2 += (h - expected) * (h - expected) / expected;
    EXPECT_LT(chi2, 345.0);
}

TEST(connection_rules, pairwise_bernoulli_edges_and_autapses) {
    auto rule = make_rule(connection_rule_kind::pairwise_bernoulli, 0, 50, 0, 50);
    rule.probability = 0.0;
    EXPECT_EQ(total(draw_all(rule, 1)), 0u);
    rule.probability = 1.0;
    rule.allow_autapses = false;
    for (const auto& [g, in]: draw_all(rule, 1)) {
        ASSERT_EQ(in.size(), 49u);
        for (const auto& c: in) ASSERT_NE(c.source, g);
    }
    rule.allow_autapses = true;
    EXPECT_EQ(total(draw_all(rule, 1)), 2500u);
    rule.probability = 0.5;
    rule.allow_autapses = false;
    for (const auto& [g, in]: draw_all(rule, 1)) {
        for (const auto& c: in) ASSERT_NE(c.source, g);
    }
}

// --- one_to_one, all_to_all -------------------------------------------------------

TEST(connection_rules, one_to_one_and_all_to_all_are_exact) {
    auto one = make_rule(connection_rule_kind::one_to_one, 100, 20, 200, 20);
    for (const auto& [g, in]: draw_all(one, 1)) {
        ASSERT_EQ(in.size(), 1u);
        EXPECT_EQ(in[0].source, g - 100);
    }
    one.source_first = 200; // the same population: autapses only if allowed
    one.allow_autapses = false;
    EXPECT_EQ(total(draw_all(one, 1)), 0u);
    one.allow_autapses = true;
    EXPECT_EQ(total(draw_all(one, 1)), 20u);

    auto all = make_rule(connection_rule_kind::all_to_all, 0, 10, 5, 10);
    all.allow_autapses = false;
    for (const auto& [g, in]: draw_all(all, 1)) {
        std::vector<gid_type> expected;
        for (gid_type s = 0; s < 10; ++s) {
            if (s != g) expected.push_back(s);
        }
        std::vector<gid_type> got;
        for (const auto& c: in) got.push_back(c.source);
        EXPECT_EQ(got, expected);
    }
}

// --- weights and delays -----------------------------------------------------------

TEST(connection_rules, weights_and_delays_from_distributions_on_the_targets_streams) {
    auto rule = make_rule(connection_rule_kind::fixed_indegree, 0, 100, 0, 400);
    rule.indegree = 50;
    rule.weight = normal_clipped(0.0, 1.0, -0.5, 2.0);
    rule.delay_ms = normal_clipped(0.3, 1.0, dt, 3.0);
    const auto net = draw_all(rule, 21, 5);
    double sum = 0;
    std::size_t n = 0, clipped_low = 0;
    std::set<step_type> delays;
    for (const auto& [g, in]: net) {
        random_stream w(21, g, purpose::weights, 5), d(21, g, purpose::delays, 5);
        for (const auto& c: in) {
            ASSERT_GE(c.weight, -0.5);
            ASSERT_LE(c.weight, 2.0);
            ASSERT_GE(c.delay, 1);
            ASSERT_LE(c.delay, 30);
            // Drawn in creation order from the target's own streams.
            EXPECT_EQ(c.weight, draw(rule.weight, w));
            EXPECT_EQ(c.delay, delay_steps(draw(rule.delay_ms, d), dt));
            sum += c.weight;
            clipped_low += c.weight < -0.45;
            delays.insert(c.delay);
            ++n;
        }
    }
    // Mean of the standard normal clipped to [-0.5, 2]: (phi(-0.5) - phi(2)) / (Phi(2) - Phi(-0.5)) = 0.44575;
    // standard deviation 0.614, so the mean of 20 000 has a standard error of 0.0043.
    EXPECT_NEAR(sum / double(n), 0.44575, 0.025);
    EXPECT_GT(clipped_low, 0u);
    EXPECT_EQ(*delays.begin(), 1);
    EXPECT_GT(delays.size(), 20u);
}

TEST(connection_rules, a_constant_consumes_nothing_and_delays_round_as_nest) {
    auto rule = make_rule(connection_rule_kind::all_to_all, 0, 10, 0, 3);
    rule.weight = random_distribution::constant(0.25);
    rule.delay_ms = uniform(0.1, 1.0);
    for (const auto& [g, in]: draw_all(rule, 3)) {
        random_stream d(3, g, purpose::delays, 0);
        for (const auto& c: in) {
            EXPECT_EQ(c.weight, 0.25);
            EXPECT_EQ(c.delay, delay_steps(draw(rule.delay_ms, d), dt));
        }
    }
    // NEST's ld_round(ms * steps_per_ms): nearest step, halves up.
    EXPECT_EQ(delay_steps(0.15, 0.1), 2);
    EXPECT_EQ(delay_steps(0.149, 0.1), 1);
    EXPECT_EQ(delay_steps(0.05, 0.1), 1);
    EXPECT_EQ(delay_steps(0.049, 0.1), 0);
    EXPECT_EQ(delay_steps(1.5, 0.1), 15);
    EXPECT_EQ(delay_steps(1.0, 0.025), 40);
}

// --- the exact samplers -----------------------------------------------------------

namespace {

// Chi-square of `draws` samples against the pmf over [lo, hi] (bins with expectation < 5
// merged into their neighbours by pooling the tails).
template <typename Sample, typename Pmf>
double chi_square(Sample sample, Pmf pmf, std::uint64_t lo, std::uint64_t hi, int draws, int& degrees) {
    std::vector<double> observed(hi - lo + 1, 0);
    random_stream rng(77, 1, purpose::rule_plan, 0);
    for (int k = 0; k < draws; ++k) {
        const std::uint64_t x = sample(rng.next_uniform());
        EXPECT_GE(x, lo);
        EXPECT_LE(x, hi);
        if (x >= lo && x <= hi) observed[x - lo] += 1;
    }
    double chi2 = 0, pooled_o = 0, pooled_e = 0;
    degrees = -1;
    for (std::uint64_t x = lo; x <= hi; ++x) {
        pooled_o += observed[x - lo];
        pooled_e += pmf(x) * draws;
        if (pooled_e >= 5) {
            chi2 += (pooled_o - pooled_e) * (pooled_o - pooled_e) / pooled_e;
            pooled_o = pooled_e = 0;
            ++degrees;
        }
    }
    if (pooled_e > 0) chi2 += (pooled_o - pooled_e) * (pooled_o - pooled_e) / std::max(pooled_e, 1.0);
    return chi2;
}

double log_choose(double n, double k) { return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1); }

} // namespace

TEST(discrete_sampling, binomial_matches_its_distribution) {
    for (auto [n, p]: {std::pair{20ull, 0.3}, std::pair{200ull, 0.02}, std::pair{1000ull, 0.9}, std::pair{7ull, 0.5}}) {
        int degrees = 0;
        auto pmf = [&](std::uint64_t k) {
            return std::exp(log_choose(double(n), double(k)) + double(k) * std::log(p) +
                            double(n - k) * std::log1p(-p));
        };
        const double chi2 =
            chi_square([&](double u) { return binomial_from_uniform(n, p, u); }, pmf, 0, n, 20000, degrees);
        // 99.99 % quantile of chi-square: below degrees + 4.5 sqrt(2 degrees) + 10.
        EXPECT_LT(chi2, degrees + 4.5 * std::sqrt(2.0 * degrees) + 10) << "n " << n << " p " << p;
    }
    EXPECT_EQ(binomial_from_uniform(0, 0.5, 0.3), 0u);
    EXPECT_EQ(binomial_from_uniform(10, 0.0, 0.99), 0u);
    EXPECT_EQ(binomial_from_uniform(10, 1.0, 0.01), 10u);
    EXPECT_EQ(binomial_split(10, 0, 5, 0.9), 0u);
    EXPECT_EQ(binomial_split(10, 5, 5, 0.1), 10u);
}

TEST(discrete_sampling, binomial_is_exact_for_huge_n) {
    // n = 10^12, p = 0.3: mean 3e11, variance 2.1e11 (sd 458 258). 400 draws.
    const std::uint64_t n = 1000000000000ull;
    random_stream rng(5, 2, purpose::rule_plan, 0);
    double sum = 0, sum2 = 0;
    const int draws = 400;
    for (int k = 0; k < draws; ++k) {
        const double x = double(binomial_from_uniform(n, 0.3, rng.next_uniform())) - 3e11;
        sum += x;
        sum2 += x * x;
    }
    const double sd = std::sqrt(2.1e11);
    EXPECT_NEAR(sum / draws, 0.0, 5 * sd / std::sqrt(double(draws)));
    EXPECT_NEAR(std::sqrt(sum2 / draws), sd, 0.2 * sd);
    // The probabilities sum to one (Loader's formula at the mode, ratios around it).
    double mass = 0;
    for (double k = 3e11 - 8 * sd; k <= 3e11 + 8 * sd; k += 1) mass += binomial_probability(k, double(n), 0.3, 0.7);
    EXPECT_NEAR(mass, 1.0, 1e-9);
}

TEST(discrete_sampling, hypergeometric_matches_its_distribution) {
    for (auto [total, good, draws]: {std::tuple{50ull, 20ull, 10ull}, std::tuple{1000ull, 30ull, 400ull},
                                     std::tuple{60ull, 55ull, 50ull}, std::tuple{10ull, 5ull, 10ull}}) {
        const std::uint64_t lo = draws > total - good ? draws - (total - good) : 0, hi = std::min(draws, good);
        auto pmf = [&](std::uint64_t k) {
            return std::exp(log_choose(double(good), double(k)) + log_choose(double(total - good), double(draws - k)) -
                            log_choose(double(total), double(draws)));
        };
        int degrees = 0;
        const double chi2 = chi_square([&](double u) { return hypergeometric_from_uniform(total, good, draws, u); },
                                       pmf, lo, hi, 20000, degrees);
        EXPECT_LT(chi2, degrees + 4.5 * std::sqrt(2.0 * std::max(degrees, 1)) + 10)
            << total << " " << good << " " << draws;
    }
    EXPECT_EQ(hypergeometric_from_uniform(10, 5, 10, 0.7), 5u);
    EXPECT_EQ(hypergeometric_from_uniform(10, 0, 4, 0.7), 0u);
}

TEST(discrete_sampling, geometric_gap) {
    EXPECT_EQ(geometric_gap(1.0, 0.999), 0u);
    EXPECT_EQ(geometric_gap(0.0, 0.1), UINT64_MAX);
    // P(gap >= k) = (1 - p)^k: the median of p = 0.5 is between 0 and 1.
    EXPECT_EQ(geometric_gap(0.5, 0.49), 0u);
    EXPECT_EQ(geometric_gap(0.5, 0.51), 1u);
    EXPECT_EQ(geometric_gap(0.5, 0.76), 2u);
}

// --- check_rule -------------------------------------------------------------------

namespace {

std::string error_of(const connection_rule& rule, double dt_ms = dt) {
    try {
        check_rule(rule, dt_ms, "connect_rule(\"x\")");
    } catch (const user_error& e) {
        return e.what();
    }
    return "";
}

} // namespace

TEST(connection_rules, check_rule_rejects_impossible_rules_naming_key_and_value) {
    auto in = make_rule(connection_rule_kind::fixed_indegree, 0, 10, 0, 10);
    in.allow_multapses = false;
    in.allow_autapses = false;
    in.indegree = 9;
    EXPECT_EQ(error_of(in), "");
    in.indegree = 10;
    EXPECT_EQ(error_of(in), "connect_rule(\"x\"): indegree = 10: must be <= 9 without multapses (the sources a "
                            "target can choose from, autapses not allowed)");
    in.allow_autapses = true;
    EXPECT_EQ(error_of(in), "");
    in.allow_multapses = true;
    in.indegree = 1000;
    EXPECT_EQ(error_of(in), "");
    auto alone = make_rule(connection_rule_kind::fixed_indegree, 3, 1, 3, 1);
    alone.allow_autapses = false;
    alone.indegree = 1;
    EXPECT_NE(error_of(alone).find("indegree = 1: impossible"), std::string::npos) << error_of(alone);

    auto out = make_rule(connection_rule_kind::fixed_outdegree, 0, 10, 20, 5);
    out.allow_multapses = false;
    out.outdegree = 6;
    EXPECT_NE(error_of(out).find("outdegree = 6: must be <= 5"), std::string::npos) << error_of(out);

    auto total_rule = make_rule(connection_rule_kind::fixed_total_number, 0, 10, 5, 10);
    total_rule.allow_multapses = false;
    total_rule.allow_autapses = false;
    total_rule.total_number = 96;
    EXPECT_NE(error_of(total_rule).find("total_number = 96: must be <= 95"), std::string::npos);
    total_rule.total_number = 95;
    EXPECT_EQ(error_of(total_rule), "");

    auto bernoulli = make_rule(connection_rule_kind::pairwise_bernoulli, 0, 10, 0, 10);
    for (double p: {-0.1, 1.5, std::nan("")}) {
        bernoulli.probability = p;
        EXPECT_NE(error_of(bernoulli).find("probability = "), std::string::npos) << p;
        EXPECT_NE(error_of(bernoulli).find("must lie in [0, 1]"), std::string::npos) << p;
    }

    auto one = make_rule(connection_rule_kind::one_to_one, 0, 10, 10, 11);
    EXPECT_NE(error_of(one).find("targets = 11 cells: one_to_one needs as many targets as sources (10)"),
              std::string::npos)
        << error_of(one);

    auto adjacent = make_rule(connection_rule_kind::adjacent, 0, 10, 5, 10);
    adjacent.indegree = 2;
    EXPECT_NE(error_of(adjacent).find("targets = gids 5..14"), std::string::npos) << error_of(adjacent);

    auto random = make_rule(connection_rule_kind::random, 0, 10, 0, 10);
    random.indegree = 8;
    random.indegree_spread = 4;
    EXPECT_NE(error_of(random).find("indegree = 8: with indegree_spread = 4 a target needs up to 10 distinct sources "
                                    "but only 9 exist"),
              std::string::npos)
        << error_of(random);
}

TEST(connection_rules, check_rule_rejects_delays_below_one_step_and_bad_distributions) {
    auto rule = make_rule(connection_rule_kind::all_to_all, 0, 10, 0, 10);
    rule.delay_ms = random_distribution::constant(0.04);
    EXPECT_NE(error_of(rule).find("delay_ms = 0.04: every delay must be at least dt_ms = 0.1"), std::string::npos)
        << error_of(rule);
    rule.delay_ms = random_distribution::constant(0.05); // rounds to one step, as in NEST
    EXPECT_EQ(error_of(rule), "");
    random_distribution normal;
    normal.kind = distribution_kind::normal;
    normal.mean = 2.0;
    normal.std = 0.5;
    rule.delay_ms = normal; // unbounded below
    EXPECT_NE(error_of(rule).find("delay_ms = normal: every delay must be at least"), std::string::npos);
    rule.delay_ms = normal_clipped(2.0, 0.5, 0.1, 10.0);
    EXPECT_EQ(error_of(rule), "");
    rule.delay_ms = normal_clipped(2.0, 0.5, 0.01, 10.0);
    EXPECT_NE(error_of(rule).find("values down to 0.01 can be drawn"), std::string::npos);
    rule.delay_ms = random_distribution::constant(1.0);
    rule.weight = normal_clipped(0.0, 1.0, 1.0, -1.0);
    EXPECT_NE(error_of(rule).find("weight: normal_clipped low = 1"), std::string::npos) << error_of(rule);
    rule.weight = uniform(0, 1);
    rule.weight_spread = 0.1;
    EXPECT_NE(error_of(rule).find("weight_spread = 0.1: must be 0 when the weight is drawn"), std::string::npos)
        << error_of(rule);
    // The drawer checks too, before anything is drawn.
    EXPECT_THROW(rule_drawer(rule, 0, 1, dt, {0}), user_error);
}
