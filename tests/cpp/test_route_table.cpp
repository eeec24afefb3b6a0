// route: the process grid (shapes, "auto", "hypercube", ragged planes, errors) and the
// next-hop rule / lookup table: every route arrives within the grid's hop bound, uses
// channels in increasing order (the deadlock-freedom premise) and only partner ranks.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/route/process_grid.hpp"
#include "spikex/route/route_table.hpp"
#include "spikex/route/router.hpp"

using namespace spikex;

namespace {

using dims_t = std::vector<int>;

int differing_coordinates(const process_grid& g, int a, int b) {
    auto ca = g.coords(a), cb = g.coords(b);
    int n = 0;
    for (int i = 0; i < g.dimensions(); ++i) n += ca[i] != cb[i];
    return n;
}

// Walks every route of the grid and checks the rule's promises; returns the total hops.
long walk_all_routes(const process_grid& g) {
    long total = 0;
    for (int s = 0; s < g.ranks(); ++s) {
        for (int t = 0; t < g.ranks(); ++t) {
            int at = s, hops = 0, last_channel = -1;
            for (;;) {
                route_hop hop = next_hop(g, at, t);
                if (hop.channel < 0) break;
                EXPECT_GE(hop.rank, 0) << g.text() << " " << s << "->" << t;
                EXPECT_LT(hop.rank, g.ranks());
                EXPECT_EQ(differing_coordinates(g, at, hop.rank), 1) << "a hop changes exactly one coordinate";
                EXPECT_GT(hop.channel, last_channel) << g.text() << " " << s << "->" << t << ": channels must rise";
                EXPECT_LT(hop.channel, g.channels());
                last_channel = hop.channel;
                at = hop.rank;
                if (++hops > g.max_hops()) break;
            }
            EXPECT_EQ(at, t) << g.text() << ": route " << s << "->" << t << " does not arrive";
            EXPECT_LE(hops, g.max_hops()) << g.text() << " " << s << "->" << t;
            if (!g.ragged()) EXPECT_EQ(hops, differing_coordinates(g, s, t)) << "full grid: one hop per coordinate";
            total += hops;
        }
    }
    return total;
}

// All shapes that fit P, up to 3 dimensions of size <= P (ragged ones included).
std::vector<dims_t> shapes_for(int p) {
    std::vector<dims_t> shapes;
    for (int a = 1; a <= p; ++a) {
        if (grid_problem(p, {a}).empty()) shapes.push_back({a});
        for (int b = 1; b <= p; ++b) {
            if (grid_problem(p, {a, b}).empty()) shapes.push_back({a, b});
            for (int c = 1; c <= 4; ++c) {
                if (grid_problem(p, {a, b, c}).empty()) shapes.push_back({a, b, c});
            }
        }
    }
    return shapes;
}

} // namespace

TEST(process_grid, coordinates_run_dimension_zero_fastest) {
    process_grid g(8, {4, 2});
    EXPECT_EQ(g.coords(5), (dims_t{1, 1}));
    EXPECT_EQ(g.rank_at({3, 1}), 7);
    EXPECT_FALSE(g.ragged());
    EXPECT_EQ(g.buckets(), 6);
    EXPECT_EQ(g.channels(), 2);
}

TEST(process_grid, ragged_last_plane_holds_the_remaining_ranks) {
    process_grid g(7, {4, 2}); // row 0: ranks 0-3, row 1: ranks 4-6, position (3, 1) missing
    EXPECT_TRUE(g.ragged());
    EXPECT_EQ(g.rank_at({2, 1}), 6);
    EXPECT_EQ(g.rank_at({3, 1}), -1);
    EXPECT_EQ(g.channels(), 3);
    EXPECT_EQ(g.buckets(), 7);
}

TEST(process_grid, auto_minimises_the_modelled_cost_per_item) {
    // Direct while a bucket per rank still holds many items, then balanced grids; at
    // 32,768 ranks the paper's own Blue Gene/L shape.
    EXPECT_EQ(auto_dims(1), (dims_t{1}));
    EXPECT_EQ(auto_dims(2), (dims_t{2}));
    EXPECT_EQ(auto_dims(7), (dims_t{7}));
    EXPECT_EQ(auto_dims(16), (dims_t{16}));
    EXPECT_EQ(auto_dims(128), (dims_t{128}));
    EXPECT_EQ(auto_dims(256), (dims_t{16, 16}));
    EXPECT_EQ(auto_dims(1024), (dims_t{32, 32}));
    EXPECT_EQ(auto_dims(32768), (dims_t{32, 32, 32}));
    EXPECT_EQ(auto_dims(65536), (dims_t{16, 16, 16, 16}));
    EXPECT_EQ(auto_dims(512), (dims_t{32, 16})); // a full shape beats a ragged near-tie
    EXPECT_EQ(auto_dims(257).size(), 2u);        // prime: a ragged 2-D grid beats direct [257]
    EXPECT_TRUE(process_grid(257, auto_dims(257)).ragged());
    // A small budget leaves direct buckets nearly empty: routing pays earlier.
    EXPECT_EQ(auto_dims(16, 32), (dims_t{4, 4}));
    EXPECT_EQ(make_process_grid(16, "auto", "route.dims", 32).dims(), (dims_t{4, 4}));
    for (int p = 1; p <= 200; ++p) EXPECT_EQ(grid_problem(p, auto_dims(p)), "") << p;
    for (int p = 1; p <= 200; ++p) EXPECT_EQ(grid_problem(p, auto_dims(p, 16)), "") << p;
}

TEST(process_grid, auto_weighs_what_a_message_costs_in_hops) {
    // The default is the papers' machines (a message ~ 10 hops): direct up to 128 ranks.
    EXPECT_EQ(auto_dims(16, 1024, 1, default_message_hops), auto_dims(16));
    EXPECT_EQ(auto_dims(16, 1024, 1, 10.0), (dims_t{16}));
    // Dear messages (a slow network: thousands of hops) route early; free ones never do.
    EXPECT_EQ(auto_dims(16, 1024, 1, 2000.0), (dims_t{4, 4}));
    EXPECT_EQ(make_process_grid(16, "auto", "route.dims", 1024, 1, 2000.0).dims(), (dims_t{4, 4}));
    EXPECT_EQ(auto_dims(1024, 1024, 1, 0.0), (dims_t{1024}));
    // ... but only among the shapes the budget can give one item a bucket (budget_problem)
    const auto free_at_4096 = auto_dims(4096, 1024, 1, 0.0);
    EXPECT_EQ(free_at_4096.size(), 2u);
    EXPECT_EQ(budget_problem(process_grid(4096, free_at_4096), 1024), "");
    // Explicit shapes do not depend on it.
    EXPECT_EQ(make_process_grid(16, "[8, 2]", "route.dims", 1024, 1, 2000.0).dims(), (dims_t{8, 2}));
}

TEST(process_grid, auto_weighs_the_lanes_that_share_the_budget) {
    // Two lanes (spikex gups) give a direct bucket half the items: routing pays from
    // 128 ranks instead of 256 (measured: bench/results/routing_measured.json).
    EXPECT_EQ(auto_dims(64, 1024, 2), (dims_t{64}));
    EXPECT_EQ(auto_dims(128, 1024, 2), (dims_t{16, 8}));
    EXPECT_EQ(make_process_grid(128, "auto", "--dims", 1024, 2).dims(), (dims_t{16, 8}));
    // One lane is the sizing the spike exchange uses, and what the default gives.
    EXPECT_EQ(auto_dims(128, 1024, 1), auto_dims(128));
    for (int p = 1; p <= 200; ++p) EXPECT_EQ(grid_problem(p, auto_dims(p, 1024, 3)), "") << p;
}

TEST(process_grid, hypercube_only_for_powers_of_two) {
    EXPECT_EQ(hypercube_dims(8), (dims_t{2, 2, 2}));
    EXPECT_EQ(hypercube_dims(1), (dims_t{1}));
    EXPECT_TRUE(hypercube_dims(6).empty());
    EXPECT_EQ(make_process_grid(16, "hypercube", "route.dims").dims(), (dims_t{2, 2, 2, 2}));
    try {
        make_process_grid(6, "hypercube", "route.dims");
        FAIL() << "6 ranks cannot form a hypercube";
    } catch (const user_error& e) {
        EXPECT_NE(std::string(e.what()).find("route.dims = \"hypercube\": "), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("power-of-two"), std::string::npos) << e.what();
    }
}

TEST(process_grid, explicit_shapes_in_several_spellings) {
    for (const char* text: {"4x2", "[4, 2]", "4,2", "4 2", "4X2"}) {
        EXPECT_EQ(make_process_grid(8, text, "--dims").dims(), (dims_t{4, 2})) << text;
    }
    EXPECT_EQ(make_process_grid(8, "AUTO", "--dims").dims(), (dims_t{8}));
}

TEST(process_grid, shapes_that_do_not_fit_are_user_errors_naming_the_key) {
    EXPECT_EQ(grid_problem(7, {4, 2}), "");
    EXPECT_EQ(grid_problem(7, {3, 3}), "");
    EXPECT_NE(grid_problem(7, {4, 4}), ""); // fits 13..16
    EXPECT_NE(grid_problem(3, {4, 1}), ""); // the lower plane would be incomplete
    EXPECT_NE(grid_problem(8, {0, 8}), "");
    EXPECT_NE(grid_problem(9, {2, 2, 2}), ""); // too few positions
    try {
        make_process_grid(7, "[4, 4]", "route.dims");
        FAIL();
    } catch (const user_error& e) {
        std::string text = e.what();
        EXPECT_EQ(text.find("route.dims = [4, 4]: fits 13 to 16 ranks"), 0u) << text;
        EXPECT_EQ(text.find('\n'), std::string::npos);
    }
    EXPECT_THROW(make_process_grid(8, "4y2", "--dims"), user_error);
    EXPECT_THROW(make_process_grid(8, "", "--dims"), user_error);
}

TEST(route_table, every_route_arrives_with_rising_channels_on_every_shape) {
    for (int p = 1; p <= 13; ++p) {
        for (const auto& dims: shapes_for(p)) walk_all_routes(process_grid(p, dims));
    }
    walk_all_routes(process_grid(22, {4, 4, 2})); // ragged 3-D: in-plane detours
    walk_all_routes(process_grid(16, {2, 2, 2, 2}));
    walk_all_routes(process_grid(11, {2, 2, 3}));
}

TEST(route_table, ragged_three_dimensional_grid_needs_the_detour) {
    // Last plane of [4, 4, 2] with 22 ranks holds (0..3, 0) and (0..1, 1): from (1,1,1) to
    // (3,0,1) the x-first intermediate (3,1,1) is missing, so the route descends first.
    process_grid g(22, {4, 4, 2});
    int from = g.rank_at({1, 1, 1}), to = g.rank_at({3, 0, 1});
    route_hop first = next_hop(g, from, to);
    EXPECT_EQ(first.channel, 0);
    EXPECT_EQ(first.rank, g.rank_at({1, 1, 0}));
    EXPECT_EQ(g.max_hops(), 4);
}

TEST(route_table, paper_example_averages_two_hops_on_4x4x2) {
    // Section 6.2: on 4x4x2, 3/4 + 3/4 + 1/2 = 2 expected hops for a uniform destination.
    process_grid g(32, {4, 4, 2});
    long hops = walk_all_routes(g);
    EXPECT_DOUBLE_EQ(double(hops) / (32.0 * 32.0), 2.0);
}

TEST(route_table, table_matches_the_rule_and_partners_are_few) {
    for (auto [p, dims]: std::vector<std::pair<int, dims_t>>{
             {8, {4, 2}}, {7, {4, 2}}, {16, {4, 4}}, {16, {2, 2, 2, 2}}, {5, {5}}, {22, {4, 4, 2}}}) {
        process_grid g(p, dims);
        int bound = 0;
        for (int d: dims) bound += d - 1;
        for (int me = 0; me < p; ++me) {
            route_table t(g, me);
            EXPECT_LE(t.routers(), static_cast<std::size_t>(bound)) << g.text() << " rank " << me;
            std::set<int> partners;
            for (std::size_t k = 0; k < t.routers(); ++k) partners.insert(t.router_rank(k));
            EXPECT_EQ(partners.size(), t.routers()) << "one router per partner rank";
            for (int dest = 0; dest < p; ++dest) {
                route_hop hop = next_hop(g, me, dest);
                if (dest == me) {
                    EXPECT_EQ(t.router_of(dest), route_table::local);
                    continue;
                }
                auto k = t.router_of(dest);
                ASSERT_LT(k, t.routers());
                EXPECT_EQ(t.router_rank(k), hop.rank);
                EXPECT_EQ(t.router_channel(k), hop.channel);
            }
        }
    }
}

TEST(route_table, hypercube_partners_are_log2_p) {
    process_grid g(16, {2, 2, 2, 2});
    route_table t(g, 5);
    EXPECT_EQ(t.routers(), 4u);
    for (std::size_t k = 0; k < 4; ++k) EXPECT_EQ(__builtin_popcount(t.router_rank(k) ^ 5), 1);
}
