// The RKF45 integrator of the ODE layer (models/ode/rkf45_integrator.hpp): accuracy within
// its bound, the step-size control's documented rules (growth at most 5-fold, the size
// proposed after a clipped last sub-step kept, a rejected sub-step tried again smaller),
// and a system it cannot follow reported. That it is NEST's scheme to the bit is shown
// against NEST (tests/python/nest_validation/test_nest_hh.py).
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
