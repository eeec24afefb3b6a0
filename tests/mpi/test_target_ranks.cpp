// Set-up tables of the multisend family, on several ranks: the target ranks of each cell
// (built from the postsynaptic side with one Alltoall + one Alltoallv) equal the ranks that
// asked for it, with the right positions; and the two-phase relay plan covers every target
// rank of every cell exactly once (phase one or phase two), never the owner.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "mpi_context_fixture.hpp"
#include "spikex/connections/relay_plan.hpp"
#include "spikex/connections/target_ranks.hpp"
#include "spikex/core/random.hpp"

using namespace spikex;

namespace {

constexpr std::uint32_t cells_total = 300;

// The sources a rank "has connections from": a pseudo-random subset that depends on
// (gid, rank) only; rank 1 (if any) has none, like a rank whose cells have no inputs.
std::vector<gid_type> sources_of(int rank, std::uint32_t seed) {
    std::vector<gid_type> out;
    if (rank == 1) return out;
    for (gid_type g = 0; g < cells_total; ++g) {
        if (random_block(seed, g, purpose::connections, static_cast<std::uint32_t>(rank))[0] % 3 == 0) out.push_back(g);
    }
    return out;
}

struct fixture_tables {
    distribution cells;
    std::vector<gid_type> sources;
    target_ranks targets;
};

fixture_tables build(distribution_scheme scheme) {
    context& comm = *test_context;
    fixture_tables t{distribution(scheme, cells_total, comm.size(), 11), sources_of(comm.rank(), 3), {}};
    t.targets = target_ranks::build(comm, t.cells, t.sources);
    return t;
}

} // namespace

TEST(target_ranks, every_cell_lists_exactly_the_ranks_that_need_it) {
    context& comm = *test_context;
    const int p = comm.size(), me = comm.rank();
    for (auto scheme:
         {distribution_scheme::round_robin, distribution_scheme::consecutive, distribution_scheme::random_shuffle}) {
        auto t = build(scheme);
        ASSERT_EQ(t.targets.cells(), t.cells.count(me));
        for (local_index i = 0; i < t.targets.cells(); ++i) {
            const gid_type gid = t.cells.gid_of(me, i);
            std::vector<int> expected;
            for (int r = 0; r < p; ++r) {
                auto s = sources_of(r, 3);
                if (std::binary_search(s.begin(), s.end(), gid)) expected.push_back(r);
            }
            auto got = t.targets.of(i);
            ASSERT_EQ(std::vector<int>(got.begin(), got.end()), expected) << "gid " << gid;
            // position k of rank r: the index of gid among r's requests to this rank
            auto pos = t.targets.positions(i);
            for (std::size_t k = 0; k < got.size(); ++k) {
                std::uint32_t index = 0;
                for (gid_type g: sources_of(got[k], 3)) {
                    if (g == gid) break;
                    if (t.cells.rank_of(g) == me) ++index;
                }
                EXPECT_EQ(pos[k], index) << "gid " << gid << " rank " << got[k];
            }
        }
        std::uint32_t asked = 0;
        for (int r = 0; r < p; ++r) asked += t.targets.requested_by()[r];
        EXPECT_EQ(asked, t.targets.entries());
        std::uint32_t mine = 0;
        for (int r = 0; r < p; ++r) mine += t.targets.requested_from()[r];
        EXPECT_EQ(mine, t.sources.size());
    }
}

TEST(relay_plan, phase_one_and_two_reach_every_target_rank_once) {
    context& comm = *test_context;
    const int me = comm.rank();
    for (auto scheme: {distribution_scheme::round_robin, distribution_scheme::random_shuffle}) {
        auto t = build(scheme);
        auto plan = relay_plan::build(comm, t.cells, t.targets, t.sources, 17);
        ASSERT_EQ(plan.source_runs(), t.sources.size());

        // Every delivery the tables imply: (gid, rank reached, phase).
        struct delivery {
            std::uint32_t gid;
            std::int32_t rank;
            std::int32_t phase;
            std::int32_t via; // the rank that sends it
        };
        std::vector<delivery> mine;
        for (local_index i = 0; i < t.targets.cells(); ++i) {
            for (int r: plan.phase_one(i)) mine.push_back({t.cells.gid_of(me, i), r, 1, me});
        }
        for (std::uint32_t run = 0; run < t.sources.size(); ++run) {
            for (int r: plan.phase_two(run)) mine.push_back({t.sources[run], r, 2, me});
        }
        auto all = comm.allgather_vector(mine);

        std::map<gid_type, std::multiset<int>> reached;
        std::map<std::pair<gid_type, int>, int> phase_one_of; // (gid, relay) -> 1
        for (const auto& d: all) {
            reached[d.gid].insert(d.rank);
            if (d.phase == 1) phase_one_of[{d.gid, d.rank}] = 1;
        }
        // A phase-two sender must have received the spike in phase one.
        for (const auto& d: all) {
            if (d.phase == 2) EXPECT_TRUE(phase_one_of.count({d.gid, d.via})) << "gid " << d.gid << " via " << d.via;
        }
        std::size_t phase_two = 0;
        for (const auto& d: all) phase_two += d.phase == 2;
        for (gid_type gid = 0; gid < cells_total; ++gid) {
            std::multiset<int> expected;
            for (int r = 0; r < comm.size(); ++r) {
                auto s = sources_of(r, 3);
                if (r != t.cells.rank_of(gid) && std::binary_search(s.begin(), s.end(), gid)) expected.insert(r);
            }
            EXPECT_EQ(reached[gid], expected) << "gid " << gid;
        }
        if (comm.size() >= 6) EXPECT_GT(phase_two, 0u) << "with >= 4 remote target ranks, relays forward";
    }
}
