// The RKF45 integrator of the ODE layer (models/ode/rkf45_integrator.hpp): accuracy within
// its bound, the step-size control's documented rules (growth at most 5-fold, the size
// proposed after a clipped last sub-step kept, a rejected sub-step tried again smaller),
// a system it cannot follow reported, GSL's derivative-weighted bound (NEST's aeif models) and
// a function acting between sub-steps, and cells side by side (lanes) ending where each
// alone ends, bit for bit. That it is NEST's scheme to the bit is shown
// against NEST (tests/python/nest_validation/test_nest_hh.py, test_nest_aeif*.py).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

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

namespace {

// GSL's standard control as its manual states it, with the power always evaluated: the
// reference for the integrator's two shortcuts (rkf45_integrator.hpp's header).
struct plain_control_reference {
    ode::tolerances t;
    template <class F>
    void advance(const F& f, std::array<double, 2>& y, double h, double& substep) const {
        // One rkf45_integrator does the arithmetic of a sub-step (whole_step on one lane
        // is exactly that); the control around it is written out here.
        ode::rkf45_integrator<2> stepper(t);
        double t_now = 0.0;
        while (t_now < h) {
            const std::array<double, 2> y0 = y;
            for (;;) {
                const bool last = substep > h - t_now;
                const double s = last ? h - t_now : substep;
                ode::rkf45_integrator<2>::state_lanes<1> lane = {ode::lanes<1>::all(y[0]), ode::lanes<1>::all(y[1])};
                auto lane_f = [&](const auto& x, auto& dxdt) {
                    std::array<double, 2> xs = {x[0][0], x[1][0]}, fs{};
                    f(xs, fs);
                    dxdt[0][0] = fs[0];
                    dxdt[1][0] = fs[1];
                };
                const double E = stepper.whole_step(lane_f, lane, s)[0];
                y = {lane[0][0], lane[1][0]};
                const double t_next = last ? h : t_now + s;
                if (E > 1.1) {
                    const double shrunk = std::max(0.9 / std::pow(E, 1.0 / 5.0), 0.2) * s;
                    if (shrunk < s && t_next + shrunk != t_next) {
                        y = y0;
                        substep = shrunk;
                        continue;
                    }
                    substep = s;
                } else if (E < 0.5) {
                    substep = std::max(std::min(0.9 / std::pow(E, 1.0 / 6.0), 5.0), 1.0) * s;
                } else {
                    substep = s;
                }
                t_now = t_next;
                break;
            }
        }
    }
};

// A driven, leaky pair (a membrane and a conductance) kicked at every step by a
// deterministic pseudo-random amount: quiet stretches (whole steps), and kicks large
// enough to force sub-steps and rejections.
struct kicked_pair {
    double drive = 0.0;
    void operator()(const std::array<double, 2>& y, std::array<double, 2>& f) const {
        f[0] = (-(y[0] + 70.0) - y[1] * (y[0] - 0.0) + drive) / 20.0;
        f[1] = -y[1] / 2.0;
    }
};

double kick(std::uint64_t n) { // a hash of n in [0, 1)
    std::uint64_t z = n * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return double((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

} // namespace

TEST(rkf45_integrator, its_shortcuts_leave_every_trajectory_as_the_plain_control_has_it) {
    for (const ode::tolerances t: {ode::tolerances{}, ode::tolerances{.absolute = 1e-6,
                                                      .relative = 1e-6,
                                                      .state_weight = 0.0,
                                                      .derivative_weight = 1.0,
                                                      .smallest_substep = 0.0}}) {
        const ode::rkf45_integrator<2> integrator(t);
        const plain_control_reference reference{t};
        std::array<double, 2> y = {-65.0, 0.0}, y_ref = y;
        double substep = 0.1, substep_ref = 0.1;
        int whole = 0, split = 0;
        for (std::uint64_t n = 0; n < 20000; ++n) {
            const double u = kick(n);
            kicked_pair f{.drive = n % 3000 < 1500 ? 400.0 : 0.0};
            ASSERT_TRUE(integrator.advance(f, y, 0.1, substep));
            reference.advance(f, y_ref, 0.1, substep_ref);
            ASSERT_EQ(y, y_ref) << "step " << n;
            // Proposals below h are used as they are: equal; from h up only their being
            // at least h matters.
            if (substep_ref < 0.1) {
                ASSERT_EQ(substep, substep_ref) << "step " << n;
                ++split;
            } else {
                ASSERT_GE(substep, 0.1) << "step " << n;
                ++whole;
            }
            if (u > 0.9) y[1] = y_ref[1] += 500.0 * u; // a volley: the next step is split
        }
        EXPECT_GT(whole, 20) << split;
        EXPECT_GT(split, 20) << whole;
    }
}

TEST(rkf45_integrator, whole_steps_on_lanes_end_where_advance_ends_cell_by_cell) {
    constexpr std::size_t L = 8;
    using integrator_type = ode::rkf45_integrator<2>;
    const integrator_type integrator;
    std::array<std::array<double, 2>, L> cells;
    std::array<double, L> substeps;
    int accepted = 0, refused = 0;
    for (std::uint64_t round = 0; round < 2000; ++round) {
        integrator_type::state_lanes<L> y;
        ode::lanes<L> drive;
        for (std::size_t l = 0; l < L; ++l) {
            const double u = kick(round * L + l);
            cells[l] = {-70.0 + 20.0 * u, u > 0.8 ? 200.0 * u : u}; // some kicked hard
            substeps[l] = u > 0.1 ? 0.5 : 0.01;                     // some below h
            y[0][l] = cells[l][0];
            y[1][l] = cells[l][1];
            drive[l] = 400.0 * kick(round * L + l + 7);
        }
        auto lanes_f = [&](const auto& x, auto& f) {
            f[0] = (-(x[0] + 70.0) - x[1] * (x[0] - 0.0) + drive) / 20.0;
            f[1] = -x[1] / 2.0;
        };
        const auto E = integrator.whole_step(lanes_f, y, 0.1);
        for (std::size_t l = 0; l < L; ++l) {
            std::array<double, 2> alone = cells[l];
            double substep_alone = substeps[l];
            ASSERT_TRUE(integrator.advance(kicked_pair{.drive = drive[l]}, alone, 0.1, substep_alone));
            double substep = substeps[l];
            if (integrator_type::starts_whole(substep, 0.1) && integrator_type::accept_whole_step(E[l], 0.1, substep)) {
                ASSERT_EQ(alone[0], y[0][l]);
                ASSERT_EQ(alone[1], y[1][l]);
                ASSERT_EQ(substep, substep_alone);
                ++accepted;
            } else {
                ++refused;
            }
        }
    }
    EXPECT_GT(accepted, 1000);
    EXPECT_GT(refused, 1000);
}

namespace {

// 13 kicked pairs with a reset between sub-steps (V >= -50: V = -65, as a spike), for
// advance_cells: the lanes' view of them.
struct resetting_cells {
    static constexpr std::size_t L = 8;
    using integrator_type = ode::rkf45_integrator<2>;
    std::vector<std::array<double, 2>> y;
    std::vector<double> substeps, drives;
    std::vector<int> resets;
    ode::lanes<L> drive{};

    std::array<double, 2>& state(std::size_t c) { return y[c]; }
    double& substep(std::size_t c) { return substeps[c]; }
    void load(std::size_t l, std::size_t c) { drive[l] = drives[c]; }
    void derivative(const integrator_type::state_lanes<L>& x, integrator_type::state_lanes<L>& f) const {
        const ode::lanes<L> d = drive;
        f[0] = (-(x[0] + 70.0) - x[1] * (x[0] - 0.0) + d) / 20.0;
        f[1] = -x[1] / 2.0;
    }
    static void reset(std::array<double, 2>& v, int& count) {
        if (v[0] >= -50.0) {
            v[0] = -65.0;
            ++count;
        }
    }
    void after_substeps(integrator_type::state_lanes<L>& x, const ode::lane_mask<L>& accepted,
                        const std::array<std::size_t, L>& cell) {
        for (std::size_t l = 0; l < L; ++l) {
            if (!accepted.v[l]) continue;
            std::array<double, 2> v{x[0][l], x[1][l]};
            reset(v, resets[cell[l]]);
            x[0][l] = v[0];
            x[1][l] = v[1];
        }
    }
    void collapsed(std::size_t) const { FAIL() << "collapsed"; }
};

} // namespace

TEST(rkf45_integrator, cells_side_by_side_end_where_advance_ends_each_alone) {
    const ode::tolerances tol{
        .absolute = 1e-6, .relative = 1e-6, .state_weight = 0.0, .derivative_weight = 1.0, .smallest_substep = 0.0};
    const resetting_cells::integrator_type integrator(tol);
    constexpr std::size_t cells = 13; // one full batch and a partial one
    resetting_cells lanes;
    for (std::size_t c = 0; c < cells; ++c) {
        lanes.y.push_back({-70.0 + 15.0 * kick(c), 0.0});
        lanes.substeps.push_back(0.1);
        lanes.drives.push_back(600.0 + 400.0 * kick(c + 100));
        lanes.resets.push_back(0);
    }
    resetting_cells alone = lanes;
    int substep_sizes_below_h = 0;
    for (std::uint64_t n = 0; n < 3000; ++n) {
        for (std::size_t c = 0; c < cells; ++c) {
            if (kick(n * cells + c) > 0.95) lanes.y[c][1] = alone.y[c][1] += 30.0; // volleys
        }
        integrator.advance_cells<resetting_cells::L>(lanes, 2, cells, 0.1); // cells 2 .. 12
        for (std::size_t c = 2; c < cells; ++c) {
            ASSERT_TRUE(integrator.advance(
                [&](const std::array<double, 2>& x, std::array<double, 2>& f) {
                    f[0] = (-(x[0] + 70.0) - x[1] * (x[0] - 0.0) + alone.drives[c]) / 20.0;
                    f[1] = -x[1] / 2.0;
                },
                alone.y[c], 0.1, alone.substeps[c],
                [&](std::array<double, 2>& v) { resetting_cells::reset(v, alone.resets[c]); }));
            ASSERT_EQ(lanes.y[c], alone.y[c]) << "cell " << c << " step " << n;
            ASSERT_EQ(lanes.substeps[c], alone.substeps[c]) << "cell " << c << " step " << n;
            substep_sizes_below_h += alone.substeps[c] < 0.1;
        }
    }
    EXPECT_EQ(lanes.resets, alone.resets);
    EXPECT_GT(alone.resets[2], 10); // the cells fire
    EXPECT_GT(substep_sizes_below_h, 1000);
    EXPECT_EQ(lanes.y[0], alone.y[0]); // outside the range: untouched
    EXPECT_EQ(lanes.y[1][0], -70.0 + 15.0 * kick(1));
}
