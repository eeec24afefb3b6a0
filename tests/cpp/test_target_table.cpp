// The presynaptic tier: packed 8-byte targets and the target table built from the
// postsynaptic side (serial backend: one rank sends its entries to itself).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "spikex/comm/context.hpp"
#include "spikex/connections/sender_numbering.hpp"
#include "spikex/connections/target_table.hpp"
#include "spikex/core/errors.hpp"

using namespace spikex;

TEST(packed_target, round_trip_at_the_limits) {
    for (std::uint32_t rank: {0u, 1u, (1u << 20) - 1}) {
        for (std::uint32_t location: {0u, 12345u, (1u << 27) - 1}) {
            auto t = packed_target::pack(rank, 1023, 63, location);
            EXPECT_EQ(packed_target::rank(t), rank);
            EXPECT_EQ(packed_target::thread(t), 1023u);
            EXPECT_EQ(packed_target::synapse_type(t), 63u);
            EXPECT_EQ(packed_target::location(t), location);
        }
    }
}

TEST(packed_target, exceeding_a_field_is_a_user_error_naming_it) {
    try {
        packed_target::pack(0, 0, 0, 1u << 27);
        FAIL() << "no error";
    } catch (const user_error& e) {
        EXPECT_NE(std::string(e.what()).find("location"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("134217727"), std::string::npos);
    }
    EXPECT_THROW(packed_target::pack(1u << 20, 0, 0, 0), user_error);
    EXPECT_THROW(packed_target::pack(0, 1024, 0, 0), user_error);
    EXPECT_THROW(packed_target::pack(0, 0, 64, 0), user_error);
}

namespace {

std::vector<built_connection> some_connections() {
    // sources 0..9 onto local targets 0..3, some sources repeated, two delays
    std::vector<built_connection> c;
    for (std::uint32_t k = 0; k < 40; ++k) c.push_back({(k * 7) % 10, k % 4, 0.1 * k, 1 + (k % 2)});
    return c;
}

// (local source cell -> locations) from a target table on one rank, each entry's index
// mapped back to its location through the numbering; a cell's indices ascend.
std::map<std::uint32_t, std::vector<std::uint32_t>> walk(const target_table& t, std::uint32_t cells,
                                                         const sender_numbering& numbering) {
    std::map<std::uint32_t, std::vector<std::uint32_t>> out;
    for (std::uint32_t i = 0; i < cells; ++i) {
        for (auto k = t.begin(i); k < t.end(i); ++k) {
            EXPECT_EQ(packed_target::rank(t.data()[k]), 0u);
            if (k > t.begin(i))
                EXPECT_LT(packed_target::location(t.data()[k - 1]), packed_target::location(t.data()[k]));
            out[i].push_back(numbering.location(0, packed_target::location(t.data()[k])));
        }
    }
    return out;
}

} // namespace

TEST(target_table, sorted_layout_has_one_entry_per_source_run) {
    auto comm = make_serial_context();
    distribution cells(distribution_scheme::round_robin, 10, 1, 1);
    connection_table table(some_connections(), true);
    target_table_stats stats;
    sender_numbering numbering(cells, table);
    auto t = target_table::build(*comm, cells, table, numbering, 1 << 20, stats);
    EXPECT_EQ(t.size(), table.source_count());
    auto runs = walk(t, 10, numbering);
    for (std::uint32_t run = 0; run < table.source_count(); ++run) {
        auto& locations = runs[table.sources()[run]];
        EXPECT_EQ(std::count(locations.begin(), locations.end(), run), 1);
    }
    EXPECT_EQ(stats.rounds, 1u);
}

TEST(target_table, creation_order_has_one_entry_per_connection_and_rounds_respect_the_bound) {
    auto comm = make_serial_context();
    distribution cells(distribution_scheme::round_robin, 10, 1, 1);
    auto conns = some_connections();
    connection_table table(conns, false);
    target_table_stats stats;
    // 5 records of 16 bytes: 4 entries per round, 40 connections -> 10 rounds
    sender_numbering numbering(cells, table);
    auto t = target_table::build(*comm, cells, table, numbering, 5 * 16, stats);
    EXPECT_EQ(t.size(), conns.size());
    EXPECT_EQ(stats.section_entries, 4u);
    EXPECT_EQ(stats.rounds, 10u);
    auto per_source = walk(t, 10, numbering);
    std::vector<int> seen(conns.size(), 0);
    for (auto& [source, locations]: per_source) {
        for (auto c: locations) {
            EXPECT_EQ(table.source_of(c), source);
            ++seen[c];
        }
    }
    for (int s: seen) EXPECT_EQ(s, 1);
}

TEST(target_table, too_small_a_buffer_is_a_user_error) {
    auto comm = make_serial_context();
    distribution cells(distribution_scheme::round_robin, 10, 1, 1);
    connection_table table(some_connections(), true);
    target_table_stats stats;
    EXPECT_THROW(target_table::build(*comm, cells, table, sender_numbering(cells, table), 16, stats), user_error);
}

TEST(sender_numbering, numbers_the_locations_of_each_sending_rank_in_its_local_order) {
    // 10 cells on 3 ranks: round robin (gid g on rank g mod 3, local order = gid order) and
    // a random shuffle (local order unrelated to the gids)
    for (auto [scheme, sorted]:
         {std::pair{distribution_scheme::round_robin, true}, std::pair{distribution_scheme::round_robin, false},
          std::pair{distribution_scheme::random_shuffle, true},
          std::pair{distribution_scheme::random_shuffle, false}}) {
        distribution cells(scheme, 10, 3, 7);
        connection_table table(some_connections(), sorted);
        sender_numbering numbering(cells, table);
        const std::size_t locations = table.location_count();
        std::vector<int> seen(locations, 0);
        std::size_t total = 0;
        for (int r = 0; r < 3; ++r) {
            total += numbering.count(r);
            for (std::uint32_t i = 0; i < numbering.count(r); ++i) {
                const std::uint32_t l = numbering.location(r, i);
                ASSERT_LT(l, locations);
                EXPECT_EQ(cells.rank_of(table.location_source(l)), r);
                if (i > 0) { // by the source's local index on r, then by location
                    const std::uint32_t before = numbering.location(r, i - 1);
                    const auto local = cells.local_of(table.location_source(l));
                    const auto local_before = cells.local_of(table.location_source(before));
                    EXPECT_TRUE(local_before < local || (local_before == local && before < l));
                }
                ++seen[l];
            }
        }
        EXPECT_EQ(total, locations);
        for (int s: seen) EXPECT_EQ(s, 1);
        // sources 0..9: ranks 0, 1, 2 hold 4, 3 and 3 of them
        if (sorted && scheme == distribution_scheme::round_robin) EXPECT_EQ(numbering.count(0), 4u);
    }
}
