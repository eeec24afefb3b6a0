// gups: the HPCC RandomAccess stream (values that follow from its definition, jump-ahead
// against single steps, the published period) and the distributed table's layout.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/gups/gups.hpp"

using namespace spikex;

namespace {

std::uint64_t steps_from_one(std::int64_t n) {
    std::uint64_t a = 1;
    for (std::int64_t i = 0; i < n; ++i) a = hpcc_next(a);
    return a;
}

} // namespace

TEST(hpcc_stream, starts_zero_is_one) { EXPECT_EQ(hpcc_starts(0), 1u); }

TEST(hpcc_stream, values_of_the_definition) {
    // a_n = x^n mod x^64 + x^2 + x + 1 (POLY = 0x7)
    EXPECT_EQ(hpcc_starts(1), 2u);
    EXPECT_EQ(hpcc_starts(63), std::uint64_t(1) << 63);
    EXPECT_EQ(hpcc_starts(64), 0x7u); // x^64 = x^2 + x + 1
    EXPECT_EQ(hpcc_starts(65), 0xeu);
    EXPECT_EQ(hpcc_starts(128), 0x15u); // (x^2 + x + 1)^2 = x^4 + x^2 + 1
}

TEST(hpcc_stream, starts_n_equals_n_single_steps) {
    for (std::int64_t n: {1, 2, 3, 62, 63, 64, 65, 127, 128, 1000, 4097, 65536, 1000003}) {
        EXPECT_EQ(hpcc_starts(n), steps_from_one(n)) << "n = " << n;
    }
}

TEST(hpcc_stream, published_period) {
    EXPECT_EQ(hpcc_starts(hpcc_period), 1u);
    EXPECT_EQ(hpcc_next(hpcc_starts(hpcc_period - 1)), 1u);
    EXPECT_EQ(hpcc_starts(-1), hpcc_starts(hpcc_period - 1));
    EXPECT_EQ(hpcc_starts(hpcc_period + 77), hpcc_starts(77));
    // A smaller power of x returning to 1 would mean a shorter period; spot-check divisors
    // would need the factorisation: check at least that half the period is not 1.
    EXPECT_NE(hpcc_starts(hpcc_period / 2), 1u);
}

TEST(hpcc_stream, jump_ahead_composes) {
    std::mt19937_64 random(5);
    for (int k = 0; k < 20; ++k) {
        std::int64_t a = static_cast<std::int64_t>(random() % hpcc_period);
        std::int64_t b = static_cast<std::int64_t>(random() % hpcc_period);
        EXPECT_EQ(hpcc_multiply(hpcc_starts(a), hpcc_starts(b)), hpcc_starts((a + b) % hpcc_period));
        EXPECT_EQ(hpcc_next(hpcc_starts(a)), hpcc_starts(a + 1));
    }
    EXPECT_EQ(hpcc_multiply(0x1234, 1), 0x1234u);
    EXPECT_EQ(hpcc_multiply(0x1234, 2), hpcc_next(0x1234));
}

TEST(hpcc_stream, update_stream_is_a_piece_of_the_global_stream) {
    update_stream whole(0, 100), piece(40, 10);
    std::vector<std::uint64_t> all;
    while (!whole.done()) all.push_back(whole.next());
    for (int i = 0; i < 10; ++i) EXPECT_EQ(piece.next(), all[40 + i]);
    EXPECT_TRUE(piece.done());
    update_stream corrupt(40, 10, 2);
    EXPECT_EQ(corrupt.next(), all[40] ^ (std::uint64_t(1) << 63));
    EXPECT_EQ(corrupt.next(), all[41] ^ (std::uint64_t(1) << 63));
    EXPECT_EQ(corrupt.next(), all[42]);
}

TEST(gups_table, blocks_cover_the_table_once_for_any_rank_count) {
    for (int ranks: {1, 2, 3, 5, 7, 8, 16}) {
        std::uint64_t covered = 0;
        for (int r = 0; r < ranks; ++r) {
            gups_table t(5, ranks, r, /*huge_pages=*/r % 2 == 0); // the layout does not depend on it
            EXPECT_EQ(t.first(), covered) << ranks << " ranks, rank " << r;
            covered += t.local_size();
            for (std::uint64_t i = t.first(); i < t.first() + t.local_size(); ++i) {
                EXPECT_EQ(t.owner(i), r) << "word " << i;
                EXPECT_EQ(t.owner(i | (std::uint64_t(0xabc) << 40)), r) << "high bits do not choose the word";
            }
            EXPECT_EQ(t.count_errors(), 0u);
        }
        EXPECT_EQ(covered, 32u);
    }
}

TEST(gups_table, apply_twice_restores_and_errors_count_words) {
    gups_table t(4, 1, 0);
    t.apply(0x1235);
    EXPECT_EQ(t.count_errors(), 1u);
    t.apply(0x1235);
    EXPECT_EQ(t.count_errors(), 0u);
    EXPECT_THROW(gups_table(2, 8, 0), user_error); // fewer words than ranks
}
