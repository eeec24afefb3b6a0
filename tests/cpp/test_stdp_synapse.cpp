// stdp_synapse against pre- and postsynaptic spike sequences worked out by hand from NEST's
// rule (docs/models/stdp_synapse.md): additive and multiplicative weight dependence,
// clipping at 0 and Wmax, a negative Wmax, parameter checks; and the registry's view of it.
#include <gtest/gtest.h>

#include <cmath>

#include "spikex/core/errors.hpp"
#include "spikex/synapses/stdp_synapse.hpp"
#include "spikex/synapses/synapse_registry.hpp"

using namespace spikex;

namespace {
constexpr double dt = 0.1, tau_minus = 20.0;
constexpr step_type delay = 10, max_delay = 10;

stdp_parameters parameters(double mu_plus, double mu_minus, double w_max = 10.0) {
    stdp_parameters p = parse_stdp_parameters({});
    p.tau_plus = 16.0;
    p.lambda = 0.05;
    p.alpha = 1.2;
    p.mu_plus = mu_plus;
    p.mu_minus = mu_minus;
    p.Wmax = w_max;
    return p;
}
} // namespace

TEST(stdp_synapse, additive_facilitation_and_depression_by_hand) {
    const stdp_parameters p = parameters(0.0, 0.0);
    const stdp_rule rule(p, dt);
    post_history post;
    stdp_pre_state pre;
    post.record(50, dt, tau_minus, 1, max_delay);
    post.record(120, dt, tau_minus, 1, max_delay);

    // Pre spike 1, stamp 100: K+ = 0, so no facilitation; depression by K- of spike 50 at 90.
    double w = 4.0;
    double expected = (w / 10.0 - 1.2 * 0.05 * std::exp((50 - 90) * dt / tau_minus)) * 10.0;
    w = stdp_weight(w, pre, 100, delay, post, rule, tau_minus);
    EXPECT_DOUBLE_EQ(w, expected);
    stdp_pre_advance(pre, 100, dt, p.tau_plus);

    // Pre spike 2, stamp 200: post spike 120 facilitates (K+ = 1 seen from 100), then
    // depression by K- of spike 120 (1 + decayed spike 50) at 190.
    const double f = (expected / 10.0 + 0.05 * std::exp((100 - (120 + 10)) * dt / 16.0)) * 10.0;
    const double k_minus = (std::exp((50 - 120) * dt / tau_minus) + 1.0) * std::exp((120 - 190) * dt / tau_minus);
    expected = (f / 10.0 - 1.2 * 0.05 * k_minus) * 10.0;
    EXPECT_DOUBLE_EQ(stdp_weight(w, pre, 200, delay, post, rule, tau_minus), expected);
    EXPECT_GT(f, w); // facilitation did something
}

TEST(stdp_synapse, multiplicative_steps_scale_with_the_distance_to_the_bounds) {
    const stdp_parameters p = parameters(1.0, 1.0);
    const stdp_rule rule(p, dt);
    post_history post;
    stdp_pre_state pre{2.0, 60}; // K+ = 2 after a spike at stamp 60
    post.record(80, dt, tau_minus, 1, max_delay);
    const double w = 6.0;
    const double k_plus = 2.0 * std::exp((60 - (80 + 10)) * dt / 16.0);
    const double f = (w / 10.0 + 0.05 * (1.0 - w / 10.0) * k_plus) * 10.0;
    const double k_minus = std::exp((80 - 190) * dt / tau_minus);
    const double expected = (f / 10.0 - 1.2 * 0.05 * (f / 10.0) * k_minus) * 10.0;
    EXPECT_DOUBLE_EQ(stdp_weight(w, pre, 200, delay, post, rule, tau_minus), expected);
}

TEST(stdp_synapse, weights_stay_between_zero_and_wmax) {
    stdp_parameters p = parameters(0.0, 0.0);
    p.lambda = 5.0; // steps far larger than the range
    const stdp_rule rule(p, dt);
    post_history post;
    post.record(80, dt, tau_minus, 2, max_delay);
    stdp_pre_state pre{1.0, 60};
    // Facilitation by spike 80 clips at Wmax; depression by the same spike (before 190) at 0.
    EXPECT_EQ(stdp_weight(9.0, pre, 200, delay, post, rule, tau_minus), 0.0);
    p.alpha = 0.0; // no depression: facilitation alone, clipped at Wmax
    const stdp_rule no_depression(p, dt);
    EXPECT_EQ(stdp_weight(9.0, pre, 200, delay, post, no_depression, tau_minus), 10.0);
}

TEST(stdp_synapse, negative_wmax_makes_inhibitory_weights_grow_in_magnitude) {
    stdp_parameters p = parameters(0.0, 0.0, -10.0);
    p.alpha = 0.0;
    const stdp_rule rule(p, dt);
    post_history post;
    post.record(80, dt, tau_minus, 1, max_delay);
    stdp_pre_state pre{1.0, 60};
    const double w = stdp_weight(-4.0, pre, 200, delay, post, rule, tau_minus);
    EXPECT_DOUBLE_EQ(w, (-4.0 / -10.0 + 0.05 * std::exp((60 - 90) * dt / 16.0)) * -10.0);
    EXPECT_LT(w, -4.0);
}

TEST(stdp_synapse, parameters_are_validated_and_named) {
    EXPECT_THROW(parse_stdp_parameters({{"tau_plus", 0.0}}), user_error);
    EXPECT_THROW(parse_stdp_parameters({{"mu_plus", -1.0}}), user_error);
    EXPECT_THROW(parse_stdp_parameters({{"mu", 1.0}}), user_error); // stdp_pl's name
    try {
        parse_stdp_parameters({{"Wmax", 0.0}});
        FAIL() << "Wmax = 0 accepted";
    } catch (const user_error& e) {
        EXPECT_NE(std::string(e.what()).find("stdp_synapse parameter Wmax = 0: must not be 0"), std::string::npos)
            << e.what();
    }
    const stdp_parameters p = parse_stdp_parameters({{"lambda", 0.2}});
    EXPECT_EQ(p.lambda, 0.2);
    EXPECT_EQ(p.Wmax, 100.0); // NEST's default
}

TEST(synapse_registry, knows_every_type_with_its_weight_range) {
    EXPECT_EQ(find_synapse("static").make_rule, nullptr);
    const synapse_entry& stdp = find_synapse("stdp_synapse");
    EXPECT_EQ(stdp.defaults.at("mu_plus"), 1.0);
    EXPECT_EQ(stdp.weight_range({{"Wmax", 5.0}}), (std::pair{0.0, 5.0}));
    EXPECT_EQ(stdp.weight_range({{"Wmax", -5.0}}), (std::pair{-5.0, 0.0}));
    EXPECT_EQ(find_synapse("stdp_pl_synapse_hom").weight_range({}).first, 0.0);
    try {
        find_synapse("tsodyks");
        FAIL();
    } catch (const user_error& e) {
        EXPECT_NE(std::string(e.what()).find("\"stdp_synapse\""), std::string::npos) << e.what();
    }
}
