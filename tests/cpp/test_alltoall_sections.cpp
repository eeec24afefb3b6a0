// The alltoall section rule (exchange/alltoall_sections.hpp): round split and adaptation.
#include <gtest/gtest.h>

#include "spikex/exchange/alltoall_sections.hpp"

using namespace spikex;

TEST(alltoall_sections, starts_at_the_minimum) {
    alltoall_sections s(16, 1024);
    EXPECT_EQ(s.entries(), 16u);
}

TEST(alltoall_sections, one_round_when_the_largest_fill_fits) {
    alltoall_sections s(16, 1024);
    for (std::uint32_t largest: {0u, 1u, 16u}) {
        auto r = s.rounds(largest);
        EXPECT_EQ(r.first_records, 17u);
        EXPECT_EQ(r.overflow_records, 0u);
        EXPECT_EQ(r.overflow_rounds, 0u);
    }
}

TEST(alltoall_sections, overflow_moves_the_rest_in_rounds_bounded_by_the_maximum) {
    alltoall_sections s(16, 100);
    auto r = s.rounds(40); // 24 left: one round of 24
    EXPECT_EQ(r.overflow_records, 24u);
    EXPECT_EQ(r.overflow_rounds, 1u);
    r = s.rounds(16 + 250); // 250 left, at most 100 per round: 3 rounds
    EXPECT_EQ(r.overflow_records, 100u);
    EXPECT_EQ(r.overflow_rounds, 3u);
    r = s.rounds(16 + 200); // exactly 2 rounds
    EXPECT_EQ(r.overflow_records, 100u);
    EXPECT_EQ(r.overflow_rounds, 2u);
}

TEST(alltoall_sections, grows_to_the_largest_within_the_maximum) {
    alltoall_sections s(16, 100);
    s.adapt(40);
    EXPECT_EQ(s.entries(), 40u);
    s.adapt(500);
    EXPECT_EQ(s.entries(), 100u);
}

TEST(alltoall_sections, shrinks_by_an_eighth_under_half_never_below_min_or_largest) {
    alltoall_sections s(16, 1000);
    s.adapt(800);
    EXPECT_EQ(s.entries(), 800u);
    s.adapt(400); // exactly half: stays
    EXPECT_EQ(s.entries(), 800u);
    s.adapt(399); // under half: 800 - 100
    EXPECT_EQ(s.entries(), 700u);
    s.adapt(0);
    EXPECT_EQ(s.entries(), 700u - 700u / 8);
    for (int i = 0; i < 100; ++i) s.adapt(0);
    EXPECT_EQ(s.entries(), 16u); // the minimum
    alltoall_sections t(1, 1000);
    t.adapt(100);
    t.adapt(49); // 100 - 12 = 88 >= 49
    EXPECT_EQ(t.entries(), 88u);
    alltoall_sections u(1, 1000);
    u.adapt(9);
    u.adapt(4); // 9 - 1 = 8 > 4
    EXPECT_EQ(u.entries(), 8u);
}
