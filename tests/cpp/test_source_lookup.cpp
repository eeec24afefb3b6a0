// Source lookups (dense, hash, sorted) agree with a std::set on many source sets; names; bad kind.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "spikex/connections/source_lookup.hpp"
#include "spikex/core/errors.hpp"

using namespace spikex;

namespace {

const char* kinds[] = {"dense", "hash", "sorted"};

// Every gid in [0, N) and a few beyond must give the source run of the reference, or no_run.
void expect_matches(const std::set<gid_type>& reference, std::uint32_t cells) {
    const std::vector<gid_type> sources(reference.begin(), reference.end());
    std::vector<gid_type> queries;
    for (gid_type g = 0; g < cells; ++g) queries.push_back(g);
    for (gid_type g: {cells, cells + 1, cells + 1000, 0x7fffffffu, 0xfffffffeu, 0xffffffffu}) queries.push_back(g);
    for (const char* kind: kinds) {
        auto lookup = make_source_lookup(kind, sources, cells);
        EXPECT_EQ(lookup->name(), kind);
        for (gid_type g: queries) {
            std::uint32_t expected = no_run;
            if (reference.count(g)) {
                expected =
                    static_cast<std::uint32_t>(std::lower_bound(sources.begin(), sources.end(), g) - sources.begin());
            }
            ASSERT_EQ(lookup->find(g), expected)
                << kind << ": gid " << g << " of " << sources.size() << " sources, N = " << cells;
        }
    }
}

} // namespace

TEST(source_lookup, edge_sets) {
    for (std::uint32_t n: {1u, 2u, 16u, 64u, 100u}) {
        expect_matches({}, n);
        expect_matches({0}, n);
        expect_matches({n - 1}, n);
        expect_matches({0, n - 1}, n);
        std::set<gid_type> all;
        for (gid_type g = 0; g < n; ++g) all.insert(g);
        expect_matches(all, n); // every cell a source: a full hash table must still terminate
    }
}

TEST(source_lookup, random_sets_of_many_densities) {
    std::mt19937 rng(2024);
    for (std::uint32_t n: {10u, 1000u, 70000u}) {
        for (double density: {0.001, 0.05, 0.5, 0.95}) {
            std::set<gid_type> s;
            std::bernoulli_distribution pick(density);
            for (gid_type g = 0; g < n; ++g)
                if (pick(rng)) s.insert(g);
            if (rng() & 1) s.insert(0);
            if (rng() & 1) s.insert(n - 1);
            SCOPED_TRACE(testing::Message() << "N " << n << " density " << density);
            expect_matches(s, n);
        }
    }
}

TEST(source_lookup, round_robin_progressions) {
    // Sources of one rank under round robin: g = r + k*P, a worst case for naive hashing.
    const std::uint32_t n = 40000;
    for (std::uint32_t p: {2u, 16u, 64u, 1024u}) {
        std::set<gid_type> s;
        for (gid_type g = p / 3; g < n; g += p) s.insert(g);
        SCOPED_TRACE(testing::Message() << "P " << p);
        expect_matches(s, n);
    }
}

TEST(source_lookup, unknown_kind_is_a_user_error) {
    EXPECT_THROW(make_source_lookup("bitmap", {1, 2}, 10), user_error);
    EXPECT_THROW(make_source_lookup("", {}, 10), user_error);
    EXPECT_THROW(make_source_lookup("Dense", {}, 10), user_error);
}

TEST(source_lookup, dense_memory_grows_with_cells_hash_with_sources) {
    std::vector<gid_type> few = {3, 900000};
    auto dense = make_source_lookup("dense", few, 1000000);
    auto hash = make_source_lookup("hash", few, 1000000);
    EXPECT_GE(dense->bytes(), 1000000 * sizeof(std::uint32_t));
    EXPECT_LT(hash->bytes(), 1024u);
}
