// The RKF45 integrator of the ODE layer (models/ode/rkf45_integrator.hpp): accuracy within
// its bound, the step-size control's documented rules (growth at most 5-fold, the size
// proposed after a clipped last sub-step kept, a rejected sub-step tried again smaller),
// a system it cannot follow reported, GSL's derivative-weighted bound (NEST's aeif models) and
// a function acting between sub-steps. That it is NEST's scheme to the bit is shown
// against NEST (tests/python/nest_validation/test_nest_hh.py, test_nest_aeif*.py).
#include <gtest/gtest.h>

#include <cmath>

#include "spikex/models/ode/rkf45_integrator.hpp"

using namespace spikex;

TEST(rkf45_integrator, decays_within_its_bound_and_grows_the_sub_step_at_most_five_fold) {
    ode::rkf45_integrator<1> integrator;
    auto decay = [](const std::array<double, 1>& y, std::array<double, 1>& f) { f[0] = -y[0]; };
    std::array<double, 1> y = {1.0};
    double substep = 0.1;
    ASSERT_TRUE(integrator.advance(decay, y, 0.1, substep));
    EXPECT_EQ(substep, 0.5); // an easy sub-step: 5 times larger, no more
    // The next sub-step (0.5) is clipped to the 0.1 left; the size proposed after it is
    // 5 times the clipped one, kept for the next step.
    for (int n = 1; n < 100; ++n) {
        ASSERT_TRUE(integrator.advance(decay, y, 0.1, substep));
        EXPECT_EQ(substep, 0.5);
    }
    EXPECT_NEAR(y[0], std::exp(-10.0), 1e-9);
}

TEST(rkf45_integrator, a_sub_step_too_large_is_rejected_and_tried_again_smaller) {
    // y' = -50 (y - cos t) with an error bound of 1e-6: the first sub-step of 1 is refused.
    ode::rkf45_integrator<2> integrator({.absolute = 1e-6});
    auto stiffish = [](const std::array<double, 2>& y, std::array<double, 2>& f) {
        f[0] = -50.0 * (y[0] - std::cos(y[1]));
        f[1] = 1.0; // time
    };
    std::array<double, 2> y = {0.0, 0.0};
    double substep = 1.0;
    ASSERT_TRUE(integrator.advance(stiffish, y, 1.0, substep));
    EXPECT_LT(substep, 0.2);
    EXPECT_GT(substep, 0.0);
    // The exact solution at t = 1: 50/(2501) (50 cos 1 + sin 1) - 2500/2501 exp(-50).
    const double exact = 50.0 / 2501.0 * (50.0 * std::cos(1.0) + std::sin(1.0)) - 2500.0 / 2501.0 * std::exp(-50.0);
    EXPECT_NEAR(y[0], exact, 1e-5);
    EXPECT_DOUBLE_EQ(y[1], 1.0);
}

TEST(rkf45_integrator, a_system_it_cannot_follow_is_reported) {
    // Stable only for sub-steps below ~3e-13 ms: below 1e-10 of the step.
    ode::rkf45_integrator<1> integrator;
    auto violent = [](const std::array<double, 1>& y, std::array<double, 1>& f) { f[0] = -1e13 * y[0] + 1e13; };
    std::array<double, 1> y = {0.0};
    double substep = 0.1;
    EXPECT_FALSE(integrator.advance(violent, y, 0.1, substep));
}

TEST(rkf45_integrator, the_derivative_bound_scales_with_the_change_over_the_sub_step) {
    // GSL's yp control (NEST's aeif models): a bound of tol (1 + |dt y'|) with y' at the
    // sub-step's end. y' = -y from 1e6 over 0.1: the error estimate (~1e-2) is far above
    // an absolute 1e-6, but below 1e-6 of the change (9e4): accepted whole, and grown.
    auto decay = [](const std::array<double, 1>& y, std::array<double, 1>& f) { f[0] = -y[0]; };
    ode::rkf45_integrator<1> absolute({.absolute = 1e-6});
    ode::rkf45_integrator<1> with_change(
        {.absolute = 1e-6, .relative = 1e-6, .state_weight = 0.0, .derivative_weight = 1.0, .smallest_substep = 0.0});
    std::array<double, 1> a = {1e6}, b = {1e6};
    double sa = 0.1, sb = 0.1;
    ASSERT_TRUE(absolute.advance(decay, a, 0.1, sa));
    ASSERT_TRUE(with_change.advance(decay, b, 0.1, sb));
    EXPECT_LT(sa, 0.05); // rejected, and shrunk
    EXPECT_GT(sb, 0.1);  // accepted whole, and grown
    EXPECT_NEAR(b[0], 1e6 * std::exp(-0.1), 0.1);
}

TEST(rkf45_integrator, a_function_acts_after_every_accepted_sub_step_and_the_next_starts_from_it) {
    // y' = 1 from 0, reset to 0 whenever y >= 0.25 after a sub-step (an aeif model's spike
    // and reset): sub-steps of 0.1 (the first proposal is kept: the error estimate is 0).
    ode::rkf45_integrator<1> integrator;
    auto rise = [](const std::array<double, 1>&, std::array<double, 1>& f) { f[0] = 1.0; };
    std::array<double, 1> y = {0.0};
    double substep = 0.1;
    int calls = 0, resets = 0;
    ASSERT_TRUE(integrator.advance(rise, y, 1.0, substep, [&](std::array<double, 1>& x) {
        ++calls;
        if (x[0] >= 0.25) x[0] = 0.0, ++resets;
    }));
    EXPECT_GE(calls, 2);
    EXPECT_GE(resets, 1);
    EXPECT_LT(y[0], 0.25);
}
