// The interval rule (engine/interval_schedule.hpp): boundaries, what is due, sub-interval
// numbering, for one and two sub-intervals, odd and even M, and a run that ends
// mid-interval (the loop of engine::run_until, replayed here).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/engine/interval_schedule.hpp"

using namespace spikex;

namespace {

// (step, due) of every synchronisation of engine::run_until for the given stops.
std::vector<std::pair<step_type, step_type>> loop(const interval_schedule& s, std::vector<step_type> stops) {
    std::vector<std::pair<step_type, step_type>> out;
    step_type step = 0, exchanged = 0;
    for (step_type stop: stops) {
        while (step < stop) {
            const step_type boundary = s.next_boundary(step);
            step = std::min(boundary, stop);
            if (step == boundary) {
                out.emplace_back(step, s.due(step));
                exchanged = s.due(step);
            }
        }
        if (step > exchanged) {
            out.emplace_back(step, step);
            exchanged = step;
        }
    }
    return out;
}

} // namespace

TEST(interval_schedule, one_subinterval) {
    interval_schedule s(10, 1);
    EXPECT_EQ(s.first_part(), 10);
    EXPECT_EQ(s.next_boundary(0), 10);
    EXPECT_EQ(s.next_boundary(9), 10);
    EXPECT_EQ(s.next_boundary(10), 20);
    EXPECT_EQ(s.due(10), 10);
    EXPECT_EQ(s.due(20), 20);
    EXPECT_EQ(s.sub_of(0), 0);
    EXPECT_EQ(s.sub_of(9), 0);
    EXPECT_EQ(s.sub_of(10), 1);
    EXPECT_EQ(s.due_sub(0), -1);
    EXPECT_EQ(s.due_sub(10), 0);
    EXPECT_EQ(s.due_sub(20), 1);
}

TEST(interval_schedule, two_subintervals_even_interval) {
    interval_schedule s(10, 2);
    EXPECT_EQ(s.first_part(), 5);
    EXPECT_EQ(s.next_boundary(0), 5);
    EXPECT_EQ(s.next_boundary(4), 5);
    EXPECT_EQ(s.next_boundary(5), 10);
    EXPECT_EQ(s.next_boundary(10), 15);
    // At the end of A only what came before A is due; at the end of B, A is.
    EXPECT_EQ(s.due(5), 0);
    EXPECT_EQ(s.due(10), 5);
    EXPECT_EQ(s.due(15), 10);
    EXPECT_EQ(s.sub_of(4), 0);
    EXPECT_EQ(s.sub_of(5), 1);
    EXPECT_EQ(s.sub_of(9), 1);
    EXPECT_EQ(s.sub_of(10), 2);
    EXPECT_EQ(s.sub_of(15), 3);
    EXPECT_EQ(s.due_sub(s.due(5)), -1);
    EXPECT_EQ(s.due_sub(s.due(10)), 0);
    EXPECT_EQ(s.due_sub(s.due(15)), 1);
    EXPECT_EQ(s.due_sub(s.due(20)), 2);
}

TEST(interval_schedule, two_subintervals_odd_interval) {
    // M = 7: A = 3 steps, B = 4 steps.
    interval_schedule s(7, 2);
    EXPECT_EQ(s.first_part(), 3);
    EXPECT_EQ(s.next_boundary(0), 3);
    EXPECT_EQ(s.next_boundary(3), 7);
    EXPECT_EQ(s.next_boundary(7), 10);
    EXPECT_EQ(s.next_boundary(10), 14);
    EXPECT_EQ(s.due(3), 0);
    EXPECT_EQ(s.due(7), 3);
    EXPECT_EQ(s.due(10), 7);
    EXPECT_EQ(s.due(14), 10);
    EXPECT_EQ(s.sub_of(2), 0);
    EXPECT_EQ(s.sub_of(3), 1);
    EXPECT_EQ(s.sub_of(6), 1);
    EXPECT_EQ(s.sub_of(7), 2);
    EXPECT_EQ(s.sub_of(10), 3);
    // Every step of a sub-interval lies before its boundary and at or after the previous.
    for (step_type n = 0; n < 70; ++n) {
        const auto sub = s.sub_of(n);
        EXPECT_EQ(s.sub_of(s.next_boundary(n) - 1), sub) << n;
        EXPECT_EQ(s.sub_of(s.next_boundary(n)), sub + 1) << n;
    }
}

TEST(interval_schedule, two_subintervals_smallest_interval) {
    interval_schedule s(2, 2);
    EXPECT_EQ(s.next_boundary(0), 1);
    EXPECT_EQ(s.next_boundary(1), 2);
    EXPECT_EQ(s.due(1), 0);
    EXPECT_EQ(s.due(2), 1);
    EXPECT_EQ(s.sub_of(0), 0);
    EXPECT_EQ(s.sub_of(1), 1);
    EXPECT_EQ(s.sub_of(2), 2);
}

TEST(interval_schedule, run_ending_mid_interval_synchronises_once_more) {
    using rows = std::vector<std::pair<step_type, step_type>>;
    EXPECT_EQ(loop(interval_schedule(10, 1), {35}), (rows{{10, 10}, {20, 20}, {30, 30}, {35, 35}}));
    // Continuing after a mid-interval stop: the next boundary is the interval's end.
    EXPECT_EQ(loop(interval_schedule(10, 1), {7, 20}), (rows{{7, 7}, {10, 10}, {20, 20}}));
    EXPECT_EQ(loop(interval_schedule(10, 2), {12}), (rows{{5, 0}, {10, 5}, {12, 12}}));
    // A stop at the end of B still delivers B's own spikes: one more synchronisation.
    EXPECT_EQ(loop(interval_schedule(10, 2), {10}), (rows{{5, 0}, {10, 5}, {10, 10}}));
    EXPECT_EQ(loop(interval_schedule(7, 2), {9}), (rows{{3, 0}, {7, 3}, {9, 9}}));
}

TEST(interval_schedule, rule_checked_with_one_wording) {
    EXPECT_THROW(interval_schedule(10, 3), user_error);
    EXPECT_THROW(interval_schedule(10, 0), user_error);
    EXPECT_THROW(interval_schedule(1, 2), user_error);
    EXPECT_NO_THROW(interval_schedule(1, 1));
    EXPECT_NO_THROW(interval_schedule(2, 2));
    EXPECT_EQ(interval_schedule::check(10, 3), "exchange.subintervals = 3: must be 1 or 2");
    EXPECT_EQ(interval_schedule::check(1, 2),
              "exchange.subintervals = 2: needs at least 2 steps per interval (min delay / dt), this run has 1; use 1");
    EXPECT_EQ(interval_schedule::check(2, 2), "");
}
