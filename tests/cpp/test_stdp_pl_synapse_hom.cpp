// stdp_pl_synapse_hom against a sequence of pre- and postsynaptic spikes worked out by hand
// from the rule in spec/hpc_benchmark.md.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/synapses/stdp_pl_synapse_hom.hpp"

using namespace spikex;

namespace {
constexpr double dt = 0.1, tau_minus = 30.0;
constexpr step_type delay = 10, max_delay = 10;
} // namespace

TEST(stdp_pl_synapse_hom, facilitation_and_depression_by_hand) {
    stdp_pl_parameters p{0.5, 0.1, 0.4, 15.0}; // alpha, lambda, mu, tau_plus
    const stdp_pl_rule rule(p, dt);
    post_history post;
    stdp_pre_state pre;
    post.record(50, dt, tau_minus, 1, max_delay);
    post.record(120, dt, tau_minus, 1, max_delay);

    // Spike 1, stamp 100: post spike 50 lies in (0 - 10, 90] but K+ = 0: no facilitation.
    // Depression by K- of spike 50 (= 1) decayed to 90.
    double w = 10.0;
    double expected = w - 0.1 * 0.5 * w * std::exp((50 - 90) * dt / tau_minus);
    w = stdp_pl_weight(w, pre, 100, delay, post, rule, tau_minus);
    EXPECT_DOUBLE_EQ(w, expected);
    stdp_pl_advance(pre, 100, rule);
    EXPECT_DOUBLE_EQ(pre.k_plus, 1.0);
    EXPECT_EQ(pre.last_stamp, 100);

    // Spike 2, stamp 200: post spike 120 in (90, 190] facilitates with K+ = 1 seen from
    // t_last = 100; then depression by K- of spike 120 (1 + decayed 1 of spike 50) at 190.
    double f = expected + 0.1 * std::pow(expected, 0.4) * 1.0 * std::exp((100 - (120 + 10)) * dt / 15.0);
    double k_minus_120 = std::exp((50 - 120) * dt / tau_minus) + 1.0;
    expected = f - 0.1 * 0.5 * f * k_minus_120 * std::exp((120 - 190) * dt / tau_minus);
    w = stdp_pl_weight(w, pre, 200, delay, post, rule, tau_minus);
    EXPECT_DOUBLE_EQ(w, expected);
    EXPECT_GT(f, 9.0); // facilitation did something
    stdp_pl_advance(pre, 200, rule);
    EXPECT_DOUBLE_EQ(pre.k_plus, std::exp((100 - 200) * dt / 15.0) + 1.0);

    // Spike 3, stamp 300: no post spike in (190, 290]; depression only, from spike 120.
    expected = w - 0.1 * 0.5 * w * k_minus_120 * std::exp((120 - 290) * dt / tau_minus);
    EXPECT_DOUBLE_EQ(stdp_pl_weight(w, pre, 300, delay, post, rule, tau_minus), expected);
}

TEST(stdp_pl_synapse_hom, depression_clips_at_zero) {
    stdp_pl_parameters p{100.0, 0.1, 0.4, 15.0};
    const stdp_pl_rule rule(p, dt);
    post_history post;
    stdp_pre_state pre;
    post.record(80, dt, tau_minus, 1, max_delay);
    EXPECT_EQ(stdp_pl_weight(5.0, pre, 100, delay, post, rule, tau_minus), 0.0);
}

TEST(stdp_pl_synapse_hom, no_post_spikes_leaves_the_weight) {
    stdp_pl_parameters p = parse_stdp_pl_parameters({});
    const stdp_pl_rule rule(p, dt);
    post_history post;
    stdp_pre_state pre{3.0, 10};
    EXPECT_EQ(stdp_pl_weight(7.0, pre, 100, delay, post, rule, tau_minus), 7.0);
    // A post spike at exactly t - d is not "strictly before" it: no depression from it,
    // but it lies in the facilitation window.
    post.record(90, dt, tau_minus, 1, max_delay);
    double expected = 7.0 + p.lambda * std::pow(7.0, p.mu) * 3.0 * std::exp((10 - 100) * dt / p.tau_plus);
    EXPECT_DOUBLE_EQ(stdp_pl_weight(7.0, pre, 100, delay, post, rule, tau_minus), expected);
}

TEST(stdp_pl_synapse_hom, history_is_trimmed_once_read) {
    post_history post;
    stdp_pre_state pre;
    stdp_pl_parameters p = parse_stdp_pl_parameters({});
    const stdp_pl_rule rule(p, dt);
    for (step_type t = 100; t <= 10000; t += 100) {
        post.record(t, dt, tau_minus, 1, max_delay);
        stdp_pl_weight(1.0, pre, t + 50, delay, post, rule, tau_minus); // the one input reads it
        stdp_pl_advance(pre, t + 50, rule);
    }
    EXPECT_LE(post.size(), 2u);
    // Unread entries stay.
    post_history unread;
    for (step_type t = 100; t <= 10000; t += 100) unread.record(t, dt, tau_minus, 1, max_delay);
    EXPECT_EQ(unread.size(), 100u);
}

TEST(stdp_pl_synapse_hom, parameters_are_validated) {
    EXPECT_THROW(parse_stdp_pl_parameters({{"tau_plus", 0.0}}), user_error);
    EXPECT_THROW(parse_stdp_pl_parameters({{"lambda", -1.0}}), user_error);
    EXPECT_THROW(parse_stdp_pl_parameters({{"Wmax", 1.0}}), user_error);
    auto p = parse_stdp_pl_parameters({{"alpha", 0.0513}, {"tau_plus", 15.0}});
    EXPECT_EQ(p.alpha, 0.0513);
    EXPECT_EQ(p.tau_plus, 15.0);
    EXPECT_EQ(p.mu, 0.4);
}

TEST(stdp_pl_synapse_hom, tabulated_decay_is_the_computed_one) {
    const step_decay decay(dt, 15.0, 100);
    for (step_type k: {0, 1, 7, 99, 100, 101, 5000}) {
        EXPECT_EQ(decay(k), std::exp(double(-k) * dt / 15.0)) << "k = " << k; // same bits
    }
}

TEST(stdp_pl_synapse_hom, window_reads_match_a_full_scan) {
    // A neuron whose history is never trimmed (many readers), windows of every kind:
    // empty, before the first spike, covering several spikes, ending after the newest.
    std::mt19937 rng(5);
    post_history post;
    std::vector<step_type> spikes;
    step_type t = 0;
    for (int i = 0; i < 200; ++i) {
        t += 1 + static_cast<step_type>(rng() % 40);
        post.record(t, dt, tau_minus, 1000, max_delay);
        spikes.push_back(t);
    }
    for (int round = 0; round < 2000; ++round) {
        const step_type t2 = static_cast<step_type>(rng() % (t + 60)) - 20;
        const step_type t1 = t2 - static_cast<step_type>(rng() % 300);
        std::vector<step_type> expected, got;
        for (auto s: spikes)
            if (s > t1 && s <= t2) expected.push_back(s);
        post.read_window(t1, t2, [&](step_type s) { got.push_back(s); });
        ASSERT_EQ(got, expected) << "window (" << t1 << ", " << t2 << "]";
    }
}

TEST(repeated_power, gives_std_pow_bits_for_repeats_and_changes) {
    for (const double mu: {0.0, 0.4, 1.0, 2.5}) {
        repeated_power power(mu);
        for (const double x: {0.0, 3.0, 3.0, 45.61, 45.61, 45.61, 3.0, -0.0, 0.0, 1e-300, 7.25, 7.25}) {
            const double expected = mu == 0.0 ? 1.0 : mu == 1.0 ? x : std::pow(x, mu);
            const double got = power(x);
            EXPECT_EQ(std::bit_cast<std::uint64_t>(got), std::bit_cast<std::uint64_t>(expected))
                << "mu " << mu << " x " << x;
        }
    }
}
