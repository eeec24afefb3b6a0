// Connection table: (source, delay) groups in creation order, sentinels, connection indices, delays.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "spikex/connections/connection_table.hpp"
#include "spikex/core/errors.hpp"

using namespace spikex;

namespace {

// Builds the table from `conns` with weight = creation index, so that every connection can
// be traced back to where it was created.
// The weight at position `pos`, whether the table keeps one per connection or one per
// delay group (every group uniform, e.g. groups of one connection).
double weight_at(const connection_table& t, std::uint32_t pos) { return t.weight_of(t.group_of_connection(pos), pos); }

connection_table numbered(std::vector<built_connection>& conns) {
    for (std::size_t i = 0; i < conns.size(); ++i) conns[i].weight = double(i);
    return connection_table(conns);
}

// Walks all groups of the table and checks them against `conns` (weights = creation index).
void expect_grouped(const connection_table& t, const std::vector<built_connection>& conns) {
    ASSERT_EQ(t.size(), conns.size());

    // Reference: a stable sort of creation order by (source, delay, synapse).
    std::vector<std::size_t> order(conns.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return std::tie(conns[a].source, conns[a].delay, conns[a].synapse) <
               std::tie(conns[b].source, conns[b].delay, conns[b].synapse);
    });
    for (std::size_t pos = 0; pos < order.size(); ++pos) {
        ASSERT_EQ(weight_at(t, pos), double(order[pos])) << "position " << pos;
        ASSERT_EQ(t.target(pos), conns[order[pos]].target) << "position " << pos;
    }

    // Sources: distinct, ascending, exactly the sources that occur.
    std::set<gid_type> distinct;
    for (auto& c: conns) distinct.insert(c.source);
    EXPECT_EQ(t.sources(), std::vector<gid_type>(distinct.begin(), distinct.end()));
    EXPECT_EQ(t.source_count(), distinct.size());

    // Groups: source run s owns [group_begin(s), group_begin(s+1)); each group is the maximal
    // range of one (source, delay, synapse), (delay, synapse) ascending within a source;
    // groups tile [0, size).
    std::set<std::tuple<gid_type, std::uint32_t, std::uint16_t>> keys;
    for (auto& c: conns) keys.insert({c.source, c.delay, c.synapse});
    EXPECT_EQ(t.group_count(), keys.size());
    std::uint32_t expected_begin = 0;
    std::uint32_t g_expected = 0;
    for (std::uint32_t s = 0; s < t.source_count(); ++s) {
        ASSERT_EQ(t.group_begin(s), g_expected);
        std::pair<std::uint32_t, std::uint16_t> last_key{0, 0};
        for (auto g = t.group_begin(s); g < t.group_begin(s + 1); ++g, ++g_expected) {
            ASSERT_EQ(t.group(g).begin, expected_begin);
            ASSERT_LT(t.group(g).begin, t.group_end_connection(g)) << "empty group";
            const std::pair<std::uint32_t, std::uint16_t> key{t.group(g).delay, t.group(g).synapse};
            if (g > t.group_begin(s)) EXPECT_GT(key, last_key);
            last_key = key;
            for (auto c = t.group(g).begin; c < t.group_end_connection(g); ++c) {
                const auto& orig = conns[std::size_t(weight_at(t, c))];
                EXPECT_EQ(orig.source, t.sources()[s]);
                EXPECT_EQ(orig.delay, t.group(g).delay);
                EXPECT_EQ(orig.synapse, t.group(g).synapse);
            }
            expected_begin = t.group_end_connection(g);
        }
    }
    // Sentinels: one past the last source run, one past the last group.
    EXPECT_EQ(t.group_begin(t.source_count()), t.group_count());
    EXPECT_EQ(t.group(t.group_count()).begin, t.size());
    EXPECT_EQ(expected_begin, t.size());

    // Delays.
    if (!conns.empty()) {
        std::uint32_t lo = conns[0].delay, hi = conns[0].delay;
        for (auto& c: conns) lo = std::min(lo, c.delay), hi = std::max(hi, c.delay);
        EXPECT_EQ(t.min_delay(), lo);
        EXPECT_EQ(t.max_delay(), hi);
    }

    // Connection indices are kept exactly when some source has groups sharing a target.
    bool shares = false;
    for (std::uint32_t s = 0; s < t.source_count(); ++s) {
        std::set<local_index> seen;
        bool run_shares = false;
        for (auto g = t.group_begin(s); g < t.group_begin(s + 1); ++g) {
            std::set<local_index> mine;
            for (auto c = t.group(g).begin; c < t.group_end_connection(g); ++c) mine.insert(t.target(c));
            for (auto target: mine) run_shares = !seen.insert(target).second || run_shares;
        }
        EXPECT_EQ(t.source_run_groups_share_targets(s), run_shares) << "source run " << s;
        shares = shares || run_shares;
    }
    EXPECT_EQ(t.has_connection_index(), shares);

    // Connection index: position among the target's incoming connections in creation order,
    // kept exactly for the connections whose target occurs in several groups of their source.
    for (std::uint32_t s = 0; s < t.source_count(); ++s) {
        std::map<local_index, std::set<std::uint32_t>> groups_of_target;
        for (auto g = t.group_begin(s); g < t.group_begin(s + 1); ++g) {
            for (auto c = t.group(g).begin; c < t.group_end_connection(g); ++c) groups_of_target[t.target(c)].insert(g);
        }
        for (auto pos = t.group(t.group_begin(s)).begin; pos < t.group(t.group_begin(s + 1)).begin; ++pos) {
            std::uint32_t index = 0;
            if (groups_of_target[t.target(pos)].size() < 2) {
                EXPECT_FALSE(t.find_connection_index(pos, index)) << "position " << pos;
                continue;
            }
            std::size_t created = std::size_t(weight_at(t, pos));
            std::uint32_t expected = 0;
            for (std::size_t i = 0; i < created; ++i) expected += conns[i].target == conns[created].target;
            ASSERT_TRUE(t.find_connection_index(pos, index)) << "position " << pos;
            ASSERT_EQ(index, expected) << "position " << pos;
        }
    }
}

} // namespace

TEST(connection_table, empty) {
    for (const connection_table& t: {connection_table(), connection_table(std::vector<built_connection>{})}) {
        EXPECT_EQ(t.size(), 0u);
        EXPECT_EQ(t.source_count(), 0u);
        EXPECT_TRUE(t.sources().empty());
        EXPECT_EQ(t.group_count(), 0u);
        EXPECT_EQ(t.group_begin(0), 0u);
        EXPECT_EQ(t.group(0).begin, 0u);
        EXPECT_EQ(t.min_delay(), 0u);
        EXPECT_EQ(t.max_delay(), 0u);
        EXPECT_FALSE(t.has_connection_index());
    }
}

TEST(connection_table, groups_by_source_then_delay_keeping_creation_order) {
    // source, target, weight (overwritten), delay
    std::vector<built_connection> conns = {
        {7, 0, 0, 5}, {2, 1, 0, 3}, {7, 2, 0, 3}, {2, 0, 0, 3}, {7, 1, 0, 5},
        {0, 2, 0, 9}, {7, 0, 0, 3}, {2, 2, 0, 4}, {0, 1, 0, 9},
    };
    auto t = numbered(conns);
    EXPECT_EQ(t.sources(), (std::vector<gid_type>{0, 2, 7}));
    // Expected layout: (0,9): 5 8 | (2,3): 1 3 | (2,4): 7 | (7,3): 2 6 | (7,5): 0 4
    const std::vector<double> order = {5, 8, 1, 3, 7, 2, 6, 0, 4};
    for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(weight_at(t, i), order[i]) << i;
    ASSERT_EQ(t.group_count(), 5u);
    EXPECT_EQ(t.group_begin(0), 0u);
    EXPECT_EQ(t.group_begin(1), 1u);
    EXPECT_EQ(t.group_begin(2), 3u);
    EXPECT_EQ(t.group_begin(3), 5u);
    const std::uint32_t begins[] = {0, 2, 4, 5, 7, 9};
    const std::uint32_t delays[] = {9, 3, 4, 3, 5};
    for (std::uint32_t g = 0; g < 5; ++g) {
        EXPECT_EQ(t.group(g).begin, begins[g]);
        EXPECT_EQ(t.group_end_connection(g), begins[g + 1]);
        EXPECT_EQ(t.group(g).delay, delays[g]);
    }
    EXPECT_EQ(t.min_delay(), 3u);
    EXPECT_EQ(t.max_delay(), 9u);
    ASSERT_TRUE(t.has_connection_index()); // source 7's delay groups share target 0
    // Target 0 got connections 0, 3, 6 -> indices 0, 1, 2 (at positions 7, 3, 6); only
    // source 7 reaches it in two groups, so connection 3 (source 2) keeps no index.
    EXPECT_EQ(t.connection_index(7), 0u);
    EXPECT_EQ(t.connection_index(6), 2u);
    std::uint32_t index = 0;
    EXPECT_FALSE(t.find_connection_index(3, index));
    expect_grouped(t, conns);
}

TEST(connection_table, only_targets_in_several_groups_of_a_source_keep_indices) {
    // Source 5: target 0 twice at delay 2 (one group), target 1 at delays 2 and 3.
    std::vector<built_connection> conns = {{5, 0, 0, 2}, {5, 1, 0, 2}, {5, 0, 0, 2}, {5, 1, 0, 3}};
    auto t = numbered(conns);
    ASSERT_TRUE(t.has_connection_index());
    std::uint32_t index = 0;
    // Group of delay 2 holds connections 0, 1, 2 at positions 0, 1, 2; delay 3: position 3.
    EXPECT_FALSE(t.find_connection_index(0, index)); // target 0: one group only
    EXPECT_FALSE(t.find_connection_index(2, index));
    ASSERT_TRUE(t.find_connection_index(1, index));
    EXPECT_EQ(index, 0u); // target 1's first input
    ASSERT_TRUE(t.find_connection_index(3, index));
    EXPECT_EQ(index, 1u);
    EXPECT_THROW(t.connection_index(0), internal_error);
    expect_grouped(t, conns);
}

TEST(connection_table, uniform_delay_has_one_group_per_source_and_no_indices) {
    std::vector<built_connection> conns = {{4, 0, 0, 2}, {1, 1, 0, 2}, {4, 1, 0, 2}, {1, 0, 0, 2}, {4, 2, 0, 2}};
    auto t = numbered(conns);
    EXPECT_FALSE(t.has_connection_index());
    EXPECT_EQ(t.min_delay(), 2u);
    EXPECT_EQ(t.max_delay(), 2u);
    EXPECT_EQ(t.group_count(), t.source_count());
    expect_grouped(t, conns);
}

TEST(connection_table, single_connection) {
    std::vector<built_connection> conns = {{123456, 3, 0.5, 40}};
    connection_table t(conns);
    EXPECT_EQ(t.sources(), std::vector<gid_type>{123456});
    EXPECT_EQ(t.group_count(), 1u);
    EXPECT_EQ(t.group(0).delay, 40u);
    EXPECT_EQ(t.group_end_connection(0), 1u);
    EXPECT_EQ(t.target(0), 3u);
    ASSERT_TRUE(t.shares_weight(0)); // one connection: its group's weight is uniform
    EXPECT_TRUE(t.all_weights_shared());
    EXPECT_EQ(t.weight_of(0, 0), 0.5);
}

TEST(connection_table, large_gids_and_delays_sort_on_all_bits) {
    // Keys that differ only in the high 16 bits, or only in the low ones.
    std::vector<built_connection> conns = {
        {0x00010000u, 0, 0, 1},        {0x0000ffffu, 1, 0, 1},        {0xfffffffeu, 2, 0, 0x10000u},
        {0x00010000u, 3, 0, 0x10000u}, {0x00000001u, 4, 0, 0xffffu},  {0x00010000u, 5, 0, 0xffffu},
        {0x7fffffffu, 6, 0, 1},        {0x00000001u, 7, 0, 0x20001u},
    };
    auto t = numbered(conns);
    EXPECT_EQ(t.sources(), (std::vector<gid_type>{1, 0xffff, 0x10000, 0x7fffffff, 0xfffffffe}));
    EXPECT_EQ(t.max_delay(), 0x20001u);
    expect_grouped(t, conns);
}

TEST(connection_table, random_tables_match_a_stable_sort) {
    std::mt19937 rng(7);
    for (int round = 0; round < 20; ++round) {
        const std::uint32_t n = 1 + rng() % 3000;
        const std::uint32_t sources = 1 + rng() % 200, targets = 1 + rng() % 50;
        const std::uint32_t delays = round % 4 == 0 ? 1 : 1 + rng() % 6;
        const std::uint32_t synapses = round % 3 == 0 ? 1 : 1 + rng() % 3;
        std::vector<built_connection> conns(n);
        for (auto& c: conns) {
            c.source = rng() % sources * 997; // spread over the gid range
            c.target = rng() % targets;
            c.delay = 10 + rng() % delays;
            c.synapse = static_cast<std::uint16_t>(rng() % synapses);
        }
        SCOPED_TRACE(testing::Message() << "round " << round);
        auto t = numbered(conns);
        expect_grouped(t, conns);
    }
}

TEST(connection_table, synapse_types_make_separate_groups) {
    // source 3 reaches targets 0, 1 static and 2 plastic (synapse 1), same delay.
    std::vector<built_connection> conns = {{3, 2, 0, 4, 1}, {3, 0, 0, 4, 0}, {3, 1, 0, 4, 0}, {5, 2, 0, 4, 1}};
    auto t = numbered(conns);
    ASSERT_EQ(t.group_count(), 3u);
    EXPECT_EQ(t.group(0).synapse, 0u); // static first within source 3
    EXPECT_EQ(t.group(1).synapse, 1u);
    EXPECT_EQ(weight_at(t, 0), 1.0);
    EXPECT_EQ(weight_at(t, 1), 2.0);
    EXPECT_EQ(weight_at(t, 2), 0.0);
    EXPECT_TRUE(t.has_plastic());
    EXPECT_FALSE(t.source_run_groups_share_targets(0)); // disjoint targets: no merge needed
    EXPECT_FALSE(t.has_connection_index());
}

TEST(connection_table, receptor_ports_make_separate_groups) {
    // source 3 reaches target 0 through ports 2 and 1 and target 1 through port 2, one
    // delay; the groups come in port order, creation order kept within, and target 0 (in
    // two groups) keeps its connection indices for the merge.
    std::vector<built_connection> conns = {
        {3, 0, 0, 4, 0, 2}, {3, 1, 0, 4, 0, 2}, {3, 0, 0, 4, 0, 1}, {5, 1, 0, 4, 0, 0}};
    auto t = numbered(conns);
    ASSERT_EQ(t.group_count(), 3u);
    EXPECT_EQ(t.group(0).receptor, 1u);
    EXPECT_EQ(t.group(1).receptor, 2u);
    EXPECT_EQ(t.group(2).receptor, 0u);
    EXPECT_EQ(t.group(1).delay, 4u);
    EXPECT_EQ(weight_at(t, 0), 2.0);
    EXPECT_EQ(weight_at(t, 1), 0.0);
    EXPECT_EQ(weight_at(t, 2), 1.0);
    EXPECT_TRUE(t.source_run_groups_share_targets(0));
    EXPECT_EQ(t.connection_index(0), 1u); // target 0's second input from source 3
    EXPECT_EQ(t.connection_index(1), 0u);
}

TEST(connection_table, receptor_ports_need_the_sorted_layout) {
    std::vector<built_connection> conns = {{3, 0, 1.0, 4, 0, 1}};
    EXPECT_THROW(connection_table(conns, false), user_error);
}

TEST(connection_table, threads_get_their_targets_in_creation_order) {
    std::mt19937 rng(3);
    std::vector<built_connection> conns(4000);
    for (auto& c: conns) {
        c.source = rng() % 40;
        c.target = rng() % 30;
        c.delay = 5 + rng() % 2;
        c.synapse = static_cast<std::uint16_t>(rng() % 2);
    }
    for (std::size_t i = 0; i < conns.size(); ++i) conns[i].weight = double(i);
    connection_table one(conns);
    connection_table three(conns, true, {0, 7, 20, 30});
    ASSERT_EQ(three.threads(), 3u);
    ASSERT_EQ(three.group_count(), one.group_count());
    for (std::uint32_t g = 0; g < three.group_count(); ++g) {
        ASSERT_EQ(three.thread_begin(g, 0), three.group(g).begin);
        ASSERT_EQ(three.thread_begin(g, 3), three.group_end_connection(g));
        std::vector<double> merged;
        const local_index bounds[] = {0, 7, 20, 30};
        for (unsigned t = 0; t < 3; ++t) {
            // Creation order for each target inside a thread's run (the run is built in
            // parts, each a range of the thread's targets).
            std::map<local_index, double> last;
            for (auto c = three.thread_begin(g, t); c < three.thread_begin(g, t + 1); ++c) {
                EXPECT_GE(three.target(c), bounds[t]);
                EXPECT_LT(three.target(c), bounds[t + 1]);
                const auto [seen, first] = last.try_emplace(three.target(c), -1.0);
                EXPECT_GT(weight_at(three, c), seen->second);
                seen->second = weight_at(three, c);
                merged.push_back(weight_at(three, c));
            }
        }
        // The same connections as the one-thread group.
        std::vector<double> reference;
        for (auto c = one.group(g).begin; c < one.group_end_connection(g); ++c) reference.push_back(weight_at(one, c));
        std::sort(merged.begin(), merged.end());
        EXPECT_EQ(merged, reference);
        if (three.has_connection_index()) {
            for (auto c = three.group(g).begin; c < three.group_end_connection(g); ++c) {
                std::size_t created = std::size_t(weight_at(three, c));
                std::uint32_t expected = 0, index = 0;
                for (std::size_t i = 0; i < created; ++i) expected += conns[i].target == conns[created].target;
                // Kept only where the target has inputs in several groups of the source; the
                // same connections keep an index with one thread.
                std::uint32_t one_pos = 0;
                while (weight_at(one, one_pos) != double(created)) ++one_pos;
                std::uint32_t one_index = 0;
                const bool kept = three.find_connection_index(c, index);
                ASSERT_EQ(kept, one.find_connection_index(one_pos, one_index)) << "connection " << created;
                if (kept) ASSERT_EQ(index, expected);
            }
        }
    }
}

TEST(connection_table, an_error_on_one_thread_ends_the_build) {
    // The producer runs on every thread at once; what one thread throws reaches the caller.
    table_shape shape{4, {0, 2, 4}};
    connection_producer produce = [](const connection_visitor& visit, target_range targets, bool) {
        if (targets.holds(3)) throw user_error("bad connection on the second thread");
        visit({1, targets.first, 1.0, 3, 0});
    };
    EXPECT_THROW(connection_table(produce, shape, true), user_error);
    // A producer that hands a part a target of another part is caught.
    connection_producer wrong = [](const connection_visitor& visit, target_range, bool) { visit({1, 3, 1.0, 3, 0}); };
    EXPECT_THROW(connection_table(wrong, shape, true), internal_error);
}

// A producer of `conns`. Asked without weights (the counting pass), every weight reads -1
// unless the shape sees weights while counting (read at each call).
connection_producer producer_of(const std::vector<built_connection>& conns, const table_shape& shape) {
    return [&conns, &shape](const connection_visitor& visit, target_range targets, bool weights) {
        for (auto c: conns) {
            if (!targets.holds(c.target)) continue;
            if (!weights && !shape.weights_when_counting) c.weight = -1.0;
            visit(c);
        }
    };
}

// The table of `conns` with weights only in the placing pass, and with weights seen while
// counting.
std::pair<connection_table, connection_table> plain_and_counted(const std::vector<built_connection>& conns,
                                                                table_shape shape) {
    const connection_producer produce = producer_of(conns, shape);
    connection_table plain(produce, shape, true);
    shape.weights_when_counting = true;
    connection_table counted(produce, shape, true);
    return {std::move(plain), std::move(counted)};
}

TEST(connection_table, weights_seen_while_counting_give_the_same_table) {
    // With table_shape::weights_when_counting the table knows before placing which sources
    // have one weight, and never stores one per connection for their groups; the weights
    // must be the ones the other path gives (per-connection weights, then shared per group
    // when every group's are equal). A source with two weights keeps its groups' weights
    // per connection, the others still share theirs.
    for (bool two_weights: {false, true}) {
        std::vector<built_connection> conns;
        for (gid_type s = 0; s < 40; ++s) {
            for (local_index t = 0; t < 12; ++t) {
                if ((s * 7 + t * 3) % 5 == 0) continue;
                const double w = (two_weights && s == 17 && t > 6) ? 9.0 : 0.25 * double(s % 6) - 0.5;
                conns.push_back({s, t, w, 1u + (s + t) % 3, 0});
            }
        }
        for (const table_shape& shape: {table_shape{40, {}}, table_shape{40, {0, 5, 12}}}) {
            const auto [plain, counted] = plain_and_counted(conns, shape);
            ASSERT_EQ(counted.size(), plain.size());
            EXPECT_EQ(counted.all_weights_shared(), !two_weights);
            EXPECT_EQ(plain.all_weights_shared(), !two_weights);
            ASSERT_EQ(counted.group_count(), plain.group_count());
            for (std::uint32_t g = 0; g < plain.group_count(); ++g) {
                ASSERT_EQ(counted.group(g).delay, plain.group(g).delay);
                const bool two = two_weights && counted.sources()[counted.group(g).source_run] == 17;
                EXPECT_EQ(counted.shares_weight(g), !two) << "group " << g;
                EXPECT_EQ(plain.shares_weight(g), !two_weights) << "group " << g;
                for (auto c = plain.group(g).begin; c < plain.group_end_connection(g); ++c) {
                    ASSERT_EQ(counted.target(c), plain.target(c));
                    ASSERT_EQ(counted.weight_of(g, c), plain.weight_of(g, c));
                }
            }
            ASSERT_EQ(counted.sources(), plain.sources());
        }
    }
}

TEST(connection_table, plastic_weights_filled_after_placing_are_the_created_ones) {
    // Where all of a source's plastic connections start from one weight, the placing pass
    // leaves their weights to a fill afterwards; the weights must be those the placing pass
    // writes when it does not know (weights only with placing). Sources with plastic and
    // static groups, one source whose plastic weights differ, 1 and 2 threads.
    std::vector<built_connection> conns;
    for (gid_type s = 0; s < 40; ++s) {
        for (local_index t = 0; t < 12; ++t) {
            const bool plastic = s % 3 == 0 && t < 6;
            const double w = plastic ? (s == 18 ? 0.5 + double(t) : 1.5 + double(s)) : 0.25 * double(t);
            conns.push_back({s, t, w, 1u + s % 2, static_cast<std::uint16_t>(plastic ? 1 : 0)});
        }
    }
    for (const table_shape& shape: {table_shape{40, {}}, table_shape{40, {0, 5, 12}}}) {
        const auto [plain, counted] = plain_and_counted(conns, shape);
        ASSERT_EQ(counted.size(), plain.size());
        ASSERT_EQ(counted.group_count(), plain.group_count());
        std::size_t plastic = 0;
        for (std::uint32_t g = 0; g < plain.group_count(); ++g) {
            ASSERT_EQ(counted.group(g).synapse, plain.group(g).synapse);
            for (auto c = plain.group(g).begin; c < plain.group_end_connection(g); ++c) {
                ASSERT_EQ(counted.target(c), plain.target(c));
                ASSERT_EQ(counted.weight_of(g, c), plain.weight_of(g, c)) << "group " << g << " connection " << c;
                plastic += plain.group(g).synapse != 0;
            }
        }
        EXPECT_EQ(plastic, 14u * 6u); // sources 0, 3, ..., 39: 14 of them, 6 plastic targets each
    }
}

TEST(connection_table, runs_of_connections_give_the_table_of_one_at_a_time) {
    // A producer that hands over runs (one target's inputs), or uniform runs (inputs that
    // differ only in their source, as a rule with one weight and delay gives), must get
    // the table it gets when it hands over one connection at a time: random connections
    // in blocks of one (delay, synapse type, weight), so that sources have several keys,
    // indexed synapses, long and empty runs, 1 and 3 threads, weights seen while counting
    // or not.
    std::mt19937 rng(20261129);
    std::vector<built_connection> conns;
    const std::uint32_t sources = 300;
    const local_index targets = 30;
    for (local_index t = 0; t < targets; ++t) {
        const std::size_t inputs = t % 7 == 0 ? 5000 : rng() % 900;
        for (std::size_t k = 0; k < inputs;) {
            const std::uint32_t delay = 1 + rng() % 3;
            const std::uint16_t synapse = rng() % 4 == 0 ? 1 : 0;
            const double weight = double(rng() % 4) / 8.0;
            for (std::size_t end = std::min<std::size_t>(inputs, k + 1 + rng() % 300); k < end; ++k)
                conns.push_back({gid_type(rng() % sources), t, weight, delay, synapse});
        }
    }
    enum class handed { one_at_a_time, runs, uniform_runs };
    // Shapes with and without indexed synapses (a placing pass that stages uniform runs,
    // in chunks of 1,000 connections, only without).
    std::vector<table_shape> shapes;
    for (std::vector<char> indexed: {std::vector<char>{0, 1}, std::vector<char>{}}) {
        for (std::vector<local_index> thread_first:
             {std::vector<local_index>{}, std::vector<local_index>{0, 9, 10, targets}}) {
            shapes.push_back(table_shape{sources, thread_first, indexed});
            shapes.back().placing_chunk = 1000;
        }
    }
    for (table_shape shape: shapes) {
        for (bool counting_weights: {false, true}) {
            shape.weights_when_counting = counting_weights;
            const unsigned threads = shape.thread_first.empty() ? 1 : unsigned(shape.thread_first.size() - 1);
            auto produce_with = [&](handed how) {
                return connection_producer([&, how](const connection_visitor& visit, target_range targets, bool) {
                    std::vector<built_connection> run;
                    std::vector<gid_type> run_sources;
                    const auto same = [](const built_connection& a, const built_connection& b) {
                        return a.target == b.target && a.weight == b.weight && a.delay == b.delay &&
                               a.synapse == b.synapse && a.receptor == b.receptor;
                    };
                    for (std::size_t k = 0; k <= conns.size(); ++k) {
                        const bool ends =
                            k == conns.size() ||
                            (!run.empty() && !(how == handed::uniform_runs ? same(conns[k], run.back())
                                                                           : conns[k].target == run.back().target));
                        if (ends && how == handed::uniform_runs) {
                            if (!run.empty()) visit(uniform_run{run_sources.data(), run_sources.size(), run.back()});
                            run_sources.clear();
                        } else if (ends) {
                            visit(run.data(), run.size());
                        }
                        if (ends) run.clear();
                        if (k == conns.size()) break;
                        const auto& c = conns[k];
                        if (!targets.holds(c.target)) continue;
                        if (how == handed::one_at_a_time) {
                            visit(c);
                        } else {
                            run.push_back(c);
                            run_sources.push_back(c.source);
                        }
                    }
                });
            };
            connection_table one(produce_with(handed::one_at_a_time), shape, true);
            const auto one_indices = one.take_input_indices();
            for (handed how: {handed::runs, handed::uniform_runs}) {
                connection_table batched(produce_with(how), shape, true);
                ASSERT_EQ(batched.size(), one.size());
                ASSERT_EQ(batched.size(), conns.size());
                ASSERT_EQ(batched.sources(), one.sources());
                ASSERT_EQ(batched.group_count(), one.group_count());
                for (std::uint32_t c = 0; c < one.size(); ++c) ASSERT_EQ(batched.target(c), one.target(c));
                for (std::uint32_t g = 0; g <= one.group_count(); ++g) {
                    ASSERT_EQ(batched.group(g).begin, one.group(g).begin);
                    ASSERT_EQ(batched.group(g).delay, one.group(g).delay);
                    ASSERT_EQ(batched.group(g).synapse, one.group(g).synapse);
                    if (g == one.group_count()) break;
                    for (unsigned t = 0; t <= threads; ++t)
                        ASSERT_EQ(batched.thread_begin(g, t), one.thread_begin(g, t));
                    for (auto c = one.group(g).begin; c < one.group_end_connection(g); ++c)
                        ASSERT_EQ(batched.weight_of(g, c), one.weight_of(g, c));
                }
                ASSERT_EQ(batched.has_connection_index(), one.has_connection_index());
                for (std::uint32_t c = 0; c < one.size(); ++c) {
                    std::uint32_t a = 0, b = 0;
                    ASSERT_EQ(batched.find_connection_index(c, a), one.find_connection_index(c, b));
                    ASSERT_EQ(a, b);
                }
                EXPECT_TRUE(one.has_connection_index()); // the test covers the noted indices
                EXPECT_EQ(batched.take_input_indices(), one_indices);
                EXPECT_EQ(one_indices.empty(), shape.indexed_synapses.empty());
            }
        }
    }
}
