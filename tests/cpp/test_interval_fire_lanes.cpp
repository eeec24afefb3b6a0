// interval_fire's eight-at-a-time inputs (interval_fire_lanes.hpp) against the formulas one
// input at a time: the same state bits, and every step the bracket decides is the step
// std::log gives, including firing times placed on step boundaries (where it must defer).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "spikex/models/interval_fire.hpp"
#include "spikex/models/interval_fire_lanes.hpp"
#include "spikex/models/ode/lanes.hpp"

using namespace spikex;
using interval_fire::input_lanes;

namespace {

constexpr double dt = 0.025;

// The group's scalar step: the self-event due at t + time_to_fire, never before now + 1.
std::int64_t precise_step(double t, std::int64_t now, double m, double minf, double log_excess, double tau) {
    const double t_event = t + interval_fire::time_to_fire(m, minf, log_excess, tau);
    const auto s = static_cast<std::int64_t>(std::ceil(t_event / dt - 1e-9));
    return s > now ? s : now + 1;
}

struct outcome {
    int decided = 0, deferred = 0;
};

// Eight inputs at step `now`; `target_boundary` places each input's firing time on a step
// boundary of the exact formula (w chosen for it) instead of drawing w.
outcome check_chunk(std::mt19937_64& random, std::int64_t now, bool target_boundary) {
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    const double t = static_cast<double>(now) * dt;
    std::vector<interval_fire::cell_state> cells(64);
    std::vector<double> log_excess(cells.size());
    for (std::size_t i = 0; i < cells.size(); ++i) {
        // invl/tau below 12: minf - 1 large enough for the direct formula (longer intervals
        // always go to std::log, interval_fire.hpp)
        const double tau = 3.5 + 6.5 * uniform(random);
        const double invl = 20.0 + 20.0 * uniform(random);
        cells[i] = {-1.0 + 2.0 * uniform(random), t - 30.0 * uniform(random), interval_fire::steady_state(invl, tau),
                    tau};
        if (i % 5 == 0) cells[i].t0 = t; // an input earlier in this step: exp(-0)
        log_excess[i] = interval_fire::log_excess(invl, tau);
    }
    std::uint32_t cell[input_lanes];
    double w[input_lanes];
    for (std::size_t l = 0; l < input_lanes; ++l) {
        cell[l] = static_cast<std::uint32_t>(l * 7 + random() % 7); // all different
        const auto& c = cells[cell[l]];
        const double m_now = interval_fire::state_at(t, c.m, c.t0, c.minf, c.tau);
        if (target_boundary) {
            const double boundary = (static_cast<double>(now + 1 + random() % 400) + 1e-9) * dt;
            const double m_target = c.minf - (c.minf - 1.0) * std::exp((boundary - t) / c.tau);
            w[l] = m_target - m_now;
            for (int k = static_cast<int>(random() % 5); k > 0; --k) w[l] = std::nextafter(w[l], (l % 2) ? 1.0 : -1.0);
        } else {
            w[l] = -0.5 + 1.6 * uniform(random);
        }
    }
    double m_after[input_lanes], step[input_lanes];
    interval_fire::inputs_wide(cells.data(), cell, w, t, now, dt, m_after, step);

    outcome o;
    for (std::size_t l = 0; l < input_lanes; ++l) {
        const auto& c = cells[cell[l]];
        const double m = interval_fire::state_at(t, c.m, c.t0, c.minf, c.tau) + w[l];
        EXPECT_EQ(std::bit_cast<std::uint64_t>(m_after[l]), std::bit_cast<std::uint64_t>(m)) << "lane " << l;
        if (m > 1.0) continue; // fires: no step
        if (std::isnan(step[l])) {
            ++o.deferred;
            continue;
        }
        ++o.decided;
        EXPECT_EQ(static_cast<std::int64_t>(step[l]), precise_step(t, now, m, c.minf, log_excess[cell[l]], c.tau))
            << "m " << m << " minf " << c.minf << " tau " << c.tau << " t " << t;
    }
    return o;
}

// 4,000 chunks at steps drawn below `steps`, their outcomes summed.
outcome check_chunks(std::uint64_t seed, std::int64_t steps, bool target_boundary) {
    std::mt19937_64 random(seed);
    outcome sum;
    for (int round = 0; round < 4000; ++round) {
        const outcome o = check_chunk(random, static_cast<std::int64_t>(random() % steps), target_boundary);
        sum.decided += o.decided;
        sum.deferred += o.deferred;
    }
    return sum;
}

} // namespace

TEST(interval_fire_lanes, approximate_log_is_within_its_bound) {
    if (!ode::wide_vectors()) GTEST_SKIP() << "no AVX-512 vector exp here: the lanes do not run";
    std::mt19937_64 random(7);
    double worst = 0.0;
    for (int round = 0; round < 20000; ++round) {
        double x[8], ln[8];
        for (double& v: x) {
            const double mantissa = 1.0 + std::ldexp(static_cast<double>(random() >> 12), -52);
            v = std::ldexp(mantissa, static_cast<int>(random() % 2044) - 1021);
        }
        interval_fire::approximate_log_wide(x, ln);
        for (int l = 0; l < 8; ++l) worst = std::max(worst, std::abs(ln[l] - std::log(x[l])));
    }
    EXPECT_LE(worst, interval_fire::approximate_log_error);
    EXPECT_GT(worst, 0.0); // an approximation, not std::log
}

TEST(interval_fire_lanes, states_and_decided_steps_equal_the_formulas_one_input_at_a_time) {
    if (!ode::wide_vectors()) GTEST_SKIP() << "no AVX-512 vector exp here: the lanes do not run";
    const outcome drawn = check_chunks(11, 400000, false);
    EXPECT_GT(drawn.decided, 10000);
    EXPECT_LE(drawn.deferred, drawn.decided / 1000); // std::log only near a boundary
}

TEST(interval_fire_lanes, firing_times_on_step_boundaries_defer_to_std_log) {
    if (!ode::wide_vectors()) GTEST_SKIP() << "no AVX-512 vector exp here: the lanes do not run";
    // early steps: x small enough that its ulp is finer than the approximate log's error
    const outcome placed = check_chunks(13, 200, true);
    // Most firing times placed within rounding of a boundary leave the bracket straddling it.
    EXPECT_GT(placed.deferred, placed.decided);
}
