// thread_pace (engine/thread_pace.hpp): the team or one thread, stretch by stretch, from
// each way's seconds per unit of work.
#include <gtest/gtest.h>

#include <vector>

#include "spikex/engine/thread_pace.hpp"

namespace spikex {
namespace {

// Runs `stretches` stretches at the given seconds per unit for each way; returns how many
// ran alone.
int run(thread_pace& pace, int stretches, double team, double alone) {
    int alone_count = 0;
    for (int i = 0; i < stretches; ++i) {
        const bool a = pace.alone_next();
        alone_count += a;
        pace.record(a, a ? alone : team);
    }
    return alone_count;
}

TEST(thread_pace, the_opening_tries_each_way_three_times_then_keeps_the_faster) {
    thread_pace pace;
    std::vector<bool> ways;
    for (int i = 0; i < 9; ++i) {
        ways.push_back(pace.alone_next());
        pace.record(ways.back(), ways.back() ? 2e-9 : 1e-9);
    }
    // Alone every third stretch; the team's stretch after one alone (its threads woke) is
    // not a sample, so each way has three.
    EXPECT_EQ(ways, (std::vector<bool>{false, false, true, false, false, true, false, false, true}));
    EXPECT_DOUBLE_EQ(pace.estimate(false), 1e-9);
    EXPECT_DOUBLE_EQ(pace.estimate(true), 2e-9);
    // The team is faster: no stretch alone until the first try after 64 stretches.
    EXPECT_EQ(run(pace, 50, 1e-9, 2e-9), 0);
}

TEST(thread_pace, one_slow_opening_stretch_does_not_decide) {
    // The team's first measured stretch took a thousand times its pace (a worker's first
    // wake-up): the median of the opening's samples ignores it.
    thread_pace pace;
    bool first_team_sample = true;
    for (int i = 0; i < 9; ++i) {
        const bool a = pace.alone_next();
        double seconds = a ? 2e-9 : 1e-9;
        if (!a && i == 1 && first_team_sample) {
            seconds = 1e-6;
            first_team_sample = false;
        }
        pace.record(a, seconds);
    }
    EXPECT_DOUBLE_EQ(pace.estimate(false), 1e-9);
    EXPECT_FALSE(pace.alone_next());
}

TEST(thread_pace, the_opening_compares_typical_stretches_not_the_luckiest) {
    // The team's three samples 1, 5 and 3 ns per unit (typically 3), alone's 2, 2 and 2:
    // alone is faster. The least of each (1 against 2) would have kept the team.
    thread_pace pace;
    const double team[] = {1e-9, 5e-9, 3e-9};
    int team_samples = 0;
    for (int i = 0; i < 9; ++i) {
        const bool a = pace.alone_next();
        const bool woke = i % 3 == 0; // the team's first stretch, and each after one alone: no sample
        pace.record(a, a ? 2e-9 : (woke ? 1e-9 : team[team_samples++]));
    }
    ASSERT_EQ(team_samples, 3);
    EXPECT_DOUBLE_EQ(pace.estimate(false), 3e-9);
    EXPECT_TRUE(pace.alone_next());
}

TEST(thread_pace, a_team_that_became_slow_is_left_and_tried_again_later) {
    thread_pace pace;
    run(pace, 9, 1e-9, 2e-9);
    // Another job takes a core: the team now needs 4 ns per unit, alone still 2.
    int alone = 0;
    for (int i = 0; i < 200; ++i) {
        const bool a = pace.alone_next();
        alone += a;
        pace.record(a, a ? 2e-9 : 4e-9);
    }
    EXPECT_GT(alone, 180); // within a few stretches the caller runs alone
    EXPECT_LT(pace.estimate(true), pace.estimate(false));
    // The job ends: the team is faster again. The tries (at gaps doubling from 64
    // stretches) find it, and then the team runs every stretch until the next try.
    run(pace, 600, 1e-9, 2e-9);
    EXPECT_LT(pace.estimate(false), pace.estimate(true));
    EXPECT_EQ(run(pace, 50, 1e-9, 2e-9), 0);
}

} // namespace
} // namespace spikex
