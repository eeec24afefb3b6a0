// Cell distribution over ranks: each scheme's map, its inverse, and P-independence of the shuffle.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/network/distribution.hpp"

using namespace spikex;

namespace {

const std::uint32_t cell_counts[] = {1, 7, 9, 256, 1000};
const int rank_counts[] = {1, 2, 3, 4, 8};
const distribution_scheme schemes[] = {distribution_scheme::round_robin, distribution_scheme::consecutive,
                                       distribution_scheme::random_shuffle};

// Every gid on exactly one rank, and all accessors agree with each other.
void expect_consistent(const distribution& d) {
    const std::uint32_t n = d.cells();
    const int p = d.ranks();
    std::vector<int> times_seen(n, 0);
    std::uint32_t total = 0, max_count = 0;
    for (int r = 0; r < p; ++r) {
        auto gids = d.gids_of(r);
        ASSERT_EQ(gids.size(), d.count(r)) << "rank " << r;
        total += d.count(r);
        max_count = std::max(max_count, d.count(r));
        for (local_index l = 0; l < gids.size(); ++l) {
            gid_type g = gids[l];
            ASSERT_LT(g, n);
            ++times_seen[g];
            EXPECT_EQ(d.gid_of(r, l), g);
            EXPECT_EQ(d.rank_of(g), r);
            EXPECT_EQ(d.local_of(g), l);
        }
    }
    EXPECT_EQ(total, n);
    EXPECT_EQ(d.max_count(), max_count);
    for (gid_type g = 0; g < n; ++g) {
        ASSERT_EQ(times_seen[g], 1) << "gid " << g;
        // The inverse the other way round: gid -> (rank, local) -> gid.
        EXPECT_EQ(d.gid_of(d.rank_of(g), d.local_of(g)), g);
        EXPECT_LT(d.local_of(g), d.count(d.rank_of(g)));
    }
}

} // namespace

TEST(distribution, every_gid_on_exactly_one_rank_and_accessors_agree) {
    for (auto scheme: schemes) {
        for (auto n: cell_counts) {
            for (int p: rank_counts) {
                SCOPED_TRACE(testing::Message() << "scheme " << int(scheme) << " N " << n << " P " << p);
                expect_consistent(distribution(scheme, n, p, 12345));
            }
        }
    }
}

TEST(distribution, round_robin_is_gid_mod_ranks) {
    for (auto n: cell_counts) {
        for (int p: rank_counts) {
            distribution d(distribution_scheme::round_robin, n, p, 1);
            for (gid_type g = 0; g < n; ++g) {
                EXPECT_EQ(d.rank_of(g), int(g % p));
                EXPECT_EQ(d.local_of(g), g / p);
            }
            for (int r = 0; r < p; ++r) {
                // count = number of i < N with i mod P == r
                std::uint32_t expected = 0;
                for (gid_type g = 0; g < n; ++g) expected += g % p == std::uint32_t(r);
                EXPECT_EQ(d.count(r), expected);
            }
        }
    }
}

TEST(distribution, consecutive_is_blocks_of_ceil_n_over_p) {
    for (auto n: cell_counts) {
        for (int p: rank_counts) {
            distribution d(distribution_scheme::consecutive, n, p, 1);
            const std::uint32_t block = (n + p - 1) / p;
            for (gid_type g = 0; g < n; ++g) {
                EXPECT_EQ(d.rank_of(g), int(g / block));
                EXPECT_EQ(d.local_of(g), g % block);
            }
            for (int r = 0; r < p; ++r) {
                auto gids = d.gids_of(r);
                // A contiguous, ascending run starting at r * block.
                for (std::size_t l = 0; l < gids.size(); ++l) EXPECT_EQ(gids[l], r * block + l);
            }
        }
    }
}

TEST(distribution, consecutive_leaves_trailing_ranks_empty) {
    // N=9, P=4: blocks of 3 -> 3, 3, 3, 0.
    distribution a(distribution_scheme::consecutive, 9, 4, 1);
    EXPECT_EQ(a.count(0), 3u);
    EXPECT_EQ(a.count(1), 3u);
    EXPECT_EQ(a.count(2), 3u);
    EXPECT_EQ(a.count(3), 0u);
    EXPECT_TRUE(a.gids_of(3).empty());
    EXPECT_EQ(a.max_count(), 3u);
    // P > N: one cell on each of the first N ranks.
    distribution b(distribution_scheme::consecutive, 7, 8, 1);
    for (int r = 0; r < 7; ++r) EXPECT_EQ(b.count(r), 1u);
    EXPECT_EQ(b.count(7), 0u);
}

TEST(distribution, random_shuffle_balances_counts) {
    for (auto n: cell_counts) {
        for (int p: rank_counts) {
            distribution d(distribution_scheme::random_shuffle, n, p, 7);
            for (int r = 0; r < p; ++r) {
                EXPECT_GE(d.count(r), n / p);
                EXPECT_LE(d.count(r), n / p + 1);
            }
        }
    }
}

TEST(distribution, random_shuffle_permutation_is_independent_of_ranks) {
    // Position of gid g in the permutation: local * P + rank (as documented). The gid at
    // each position must not depend on P.
    const std::uint32_t n = 1000;
    auto order = [&](int p, std::uint32_t seed) {
        distribution d(distribution_scheme::random_shuffle, n, p, seed);
        std::vector<gid_type> gid_at(n);
        for (gid_type g = 0; g < n; ++g) gid_at[d.local_of(g) * p + d.rank_of(g)] = g;
        return gid_at;
    };
    auto reference = order(1, 42);
    for (int p: rank_counts) EXPECT_EQ(order(p, 42), reference) << "P " << p;
    // It really is shuffled: not the identity, and another seed gives another order.
    std::vector<gid_type> identity(n);
    for (gid_type g = 0; g < n; ++g) identity[g] = g;
    EXPECT_NE(reference, identity);
    EXPECT_NE(order(1, 43), reference);
    // Reproducible for the same seed.
    EXPECT_EQ(order(3, 42), order(3, 42));
}

TEST(distribution, random_shuffle_spreads_a_gid_block_over_ranks) {
    // A shuffle must not put the first N/P gids all on one rank (as consecutive would).
    distribution d(distribution_scheme::random_shuffle, 1000, 4, 9);
    std::vector<int> per_rank(4, 0);
    for (gid_type g = 0; g < 250; ++g) ++per_rank[d.rank_of(g)];
    for (int r = 0; r < 4; ++r) {
        EXPECT_GT(per_rank[r], 30);
        EXPECT_LT(per_rank[r], 100);
    }
}

TEST(distribution, no_cells) {
    for (auto scheme: schemes) {
        for (int p: rank_counts) {
            distribution d(scheme, 0, p, 1);
            EXPECT_EQ(d.max_count(), 0u);
            for (int r = 0; r < p; ++r) EXPECT_TRUE(d.gids_of(r).empty());
        }
    }
}

TEST(distribution, parse_names_and_reject_unknown) {
    EXPECT_EQ(parse_distribution_scheme("round_robin"), distribution_scheme::round_robin);
    EXPECT_EQ(parse_distribution_scheme("consecutive"), distribution_scheme::consecutive);
    EXPECT_EQ(parse_distribution_scheme("random_shuffle"), distribution_scheme::random_shuffle);
    EXPECT_THROW(parse_distribution_scheme("block"), user_error);
    EXPECT_THROW(parse_distribution_scheme(""), user_error);
}
