// The dry run's own arithmetic: synchronisation points as the engine makes them, and a
// virtual partition that agrees with the distribution and the connection rules.
#include <gtest/gtest.h>

#include <algorithm>

#include "spikex/dryrun/exchange_counts.hpp"
#include "spikex/dryrun/virtual_partition.hpp"

using namespace spikex;

namespace {

network_spec small_network(std::uint32_t cells, std::uint32_t indegree) {
    network_spec spec;
    spec.dt_ms = 0.1;
    spec.seed = 3;
    spec.populations.push_back({"interval_fire", 0, cells, {}});
    connection_set set;
    set.rule.kind = connection_rule_kind::random;
    set.rule.source_size = cells;
    set.rule.target_size = cells;
    set.rule.indegree = indegree;
    set.rule.delay_ms = random_distribution::constant(1.0);
    spec.connection_sets.push_back(set);
    return spec;
}

} // namespace

TEST(dryrun, sync_rows_one_subinterval) {
    auto rows = sync_rows({35}, 10, 1);
    ASSERT_EQ(rows.size(), 4u); // 10, 20, 30 and the end of the run at 35
    EXPECT_EQ(rows[0].step, 10);
    EXPECT_EQ(rows[0].due, 10);
    EXPECT_EQ(rows[3].step, 35);
    EXPECT_EQ(rows[3].due, 35);
}

TEST(dryrun, sync_rows_two_subintervals_and_chunks) {
    // boundaries at 5, 10, 15, 20; due lags by half an interval; each run_until call
    // (chunk) that ends before what is due synchronises once more.
    auto rows = sync_rows({10, 20}, 10, 2);
    std::vector<std::pair<step_type, step_type>> got;
    for (auto r: rows) got.emplace_back(r.step, r.due);
    std::vector<std::pair<step_type, step_type>> want = {{5, 0}, {10, 5}, {10, 10}, {15, 10}, {20, 15}, {20, 20}};
    EXPECT_EQ(got, want);
}

TEST(dryrun, partition_holds_every_connection_once) {
    auto spec = small_network(64, 8);
    virtual_partition all(spec, distribution_scheme::round_robin, 4, {}, true);
    EXPECT_TRUE(all.all_ranks());
    EXPECT_EQ(all.connections_drawn(), 64u * 8u);
    EXPECT_EQ(all.min_delay(), 10);
    std::uint64_t received = 0, sent = 0;
    for (std::size_t k = 0; k < all.sampled().size(); ++k) received += all.receive(k).total_connections;
    for (gid_type g = 0; g < 64; ++g) {
        auto ranks = all.target_ranks(g);
        EXPECT_TRUE(std::is_sorted(ranks.begin(), ranks.end()));
        for (auto c: all.target_connections(g)) sent += c;
    }
    EXPECT_EQ(received, 64u * 8u);
    EXPECT_EQ(sent, 64u * 8u);

    // A sample sees the same send side for its cells as the full partition.
    virtual_partition some(spec, distribution_scheme::round_robin, 4, {1, 3}, true);
    EXPECT_FALSE(some.all_ranks());
    for (gid_type g = 1; g < 64; g += 2) {
        auto a = all.target_ranks(g), b = some.target_ranks(g);
        EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end())) << g;
    }
    EXPECT_EQ(some.receive(0).sources, all.receive(1).sources);
}

TEST(dryrun, sample_spreads_ranks) {
    EXPECT_EQ(dryrun_sample(5, 8).size(), 5u);
    auto s = dryrun_sample(1000, 10);
    ASSERT_EQ(s.size(), 10u);
    EXPECT_EQ(s.front(), 0);
    EXPECT_EQ(s.back(), 999);
}

TEST(dryrun, every_method_conserves_what_it_sends) {
    // With every rank counted, what the ranks send is what they receive, for every method.
    auto spec = small_network(96, 12);
    virtual_partition part(spec, distribution_scheme::random_shuffle, 8, {}, true);
    std::vector<gid_type> gids;
    std::vector<step_type> steps;
    for (gid_type g = 0; g < 96; ++g) {
        for (step_type s = g % 7; s < 100; s += 23 + g % 5) {
            gids.push_back(g);
            steps.push_back(s);
        }
    }
    auto total = [](const exchange_counts& c, const char* name) {
        double sum = 0;
        for (double v: c.per_rank.at(name)) sum += v;
        return sum;
    };
    option_values options;
    for (const auto& entry: exchange_registry()) {
        const std::string& method = entry.name;
        const auto& can = entry.capabilities;
        auto c = count_exchange(part, method, options, 3, gids, steps, {100});
        EXPECT_EQ(c.rows.size(), 10u) << method;
        if (can.presynaptic_targets) {
            EXPECT_EQ(total(c, "entries_sent"), total(c, "entries_received")) << method;
        } else if (can.process_grid) {
            EXPECT_EQ(total(c, "items_sent"), total(c, "spikes_received"));
        } else if (!can.broadcast) {
            EXPECT_EQ(total(c, "messages_sent"), total(c, "spikes_received")) << method;
        } else {
            EXPECT_EQ(total(c, "spikes_sent"), double(gids.size()));
        }
    }
    options["phases"] = std::int64_t{2};
    auto two = count_exchange(part, "multisend", options, 3, gids, steps, {50, 100});
    EXPECT_EQ(total(two, "messages_sent"), total(two, "spikes_received"));
    EXPECT_GT(total(two, "phase_two_sent"), 0.0);
    auto routed = count_exchange(part, "routed", {{"route_dims", std::string("hypercube")}}, 3, gids, steps, {100});
    EXPECT_GT(total(routed, "forwarded"), 0.0);
}
