// The ODE layer (models/ode/adaptive_integrator.hpp): the state after each accepted
// sub-step is handed to the model, which may change it (a reset) before the next sub-step
// starts from it; a collapsing sub-step ends advance() unless the model allows any size.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "spikex/models/ode/adaptive_integrator.hpp"

using namespace spikex;

TEST(ode_integrator, after_substep_sees_each_accepted_sub_step_up_to_h) {
    // y = (x, t): x' = -x, t' = 1 (the clock of the sub-steps).
    ode::adaptive_integrator<2> integrator({.absolute = 1e-9});
    using state = ode::adaptive_integrator<2>::state;
    auto f = [](const state& y, state& dydt) {
        dydt[0] = -y[0];
        dydt[1] = 1.0;
    };
    state y = {1.0, 0.0};
    double substep = 0.05;
    std::vector<double> times;
    ASSERT_TRUE(integrator.advance(f, y, 2.0, substep, [&](state& z) {
        times.push_back(z[1]);
        EXPECT_NEAR(z[0], std::exp(-z[1]), 1e-7);
    }));
    ASSERT_GE(times.size(), 3u);
    EXPECT_TRUE(std::is_sorted(times.begin(), times.end()));
    EXPECT_NEAR(times.back(), 2.0, 1e-12);
    // Without the function: the same result, bit for bit.
    state plain = {1.0, 0.0};
    double plain_substep = 0.05;
    ASSERT_TRUE(integrator.advance(f, plain, 2.0, plain_substep));
    EXPECT_EQ(plain, y);
    EXPECT_EQ(plain_substep, substep);
}

TEST(ode_integrator, a_reset_between_sub_steps_is_where_the_next_one_starts) {
    // x' = 1 with x = 0 whenever a sub-step ends at x >= 0.3: at the end x is the time since
    // the last reset.
    ode::adaptive_integrator<2> integrator;
    using state = ode::adaptive_integrator<2>::state;
    auto f = [](const state&, state& dydt) { dydt = {1.0, 1.0}; };
    state y = {0.0, 0.0};
    double substep = 0.1, last_reset = 0.0;
    int resets = 0;
    ASSERT_TRUE(integrator.advance(f, y, 1.0, substep, [&](state& z) {
        if (z[0] >= 0.3) {
            z[0] = 0.0;
            last_reset = z[1];
            ++resets;
        }
    }));
    EXPECT_GE(resets, 1);
    EXPECT_NEAR(y[0], y[1] - last_reset, 1e-12);
}

TEST(ode_integrator, sub_steps_far_below_h_are_a_collapse_unless_allowed) {
    // x' = exp(min(x, 30)), reset at x >= 30: near the cap the sub-steps need about e^-30 of
    // the step (as an aeif cell's at V_peak).
    using state = ode::adaptive_integrator<1>::state;
    auto f = [](const state& y, state& dydt) { dydt[0] = std::exp(std::min(y[0], 30.0)); };
    auto reset = [](state& z) {
        if (z[0] >= 30.0) z[0] = 0.0;
    };
    const ode::tolerances tight{.absolute = 1e-6, .relative = 1e-6, .state_weight = 0.0, .derivative_weight = 1.0};
    ode::tolerances any_size = tight;
    any_size.smallest_substep = 0.0;
    state y = {0.0};
    double substep = 1.0;
    EXPECT_FALSE(ode::adaptive_integrator<1>(tight).advance(f, y, 1.0, substep, reset));
    y = {0.0};
    substep = 1.0;
    EXPECT_TRUE(ode::adaptive_integrator<1>(any_size).advance(f, y, 1.0, substep, reset));
    EXPECT_LT(y[0], 30.0);
}
