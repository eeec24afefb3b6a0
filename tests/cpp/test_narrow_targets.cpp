// Connection tables keep 1-byte targets with pages where they pay, else 2-byte targets
// where a rank's cells allow (connection_table.hpp): the same table, the same spikes and
// the same plastic weights as with 4-byte targets.
// Also: the counting pass's two forms for sources with several keys (rows, lists) give
// the same table.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "spikex/comm/context.hpp"
#include "spikex/connections/connection_table.hpp"
#include "spikex/engine/engine.hpp"

using namespace spikex;

namespace {

std::vector<built_connection> random_connections(local_index targets, std::size_t count, unsigned seed) {
    std::mt19937 draw(seed);
    std::vector<built_connection> conns;
    for (std::size_t k = 0; k < count; ++k) {
        built_connection c;
        c.source = gid_type(draw() % 40);
        c.target = local_index(draw() % targets);
        c.weight = double(k) + 0.5;
        c.delay = 1 + draw() % 3;              // several groups per source
        c.synapse = std::uint16_t(draw() % 2); // and two synapse types: shared targets, merges
        conns.push_back(c);
    }
    // One target's inputs together, in target order (as the rules create them).
    std::stable_sort(conns.begin(), conns.end(), [](const auto& a, const auto& b) { return a.target < b.target; });
    return conns;
}

void expect_same_table(const connection_table& narrow, const connection_table& wide) {
    ASSERT_EQ(narrow.size(), wide.size());
    ASSERT_EQ(narrow.sources(), wide.sources());
    ASSERT_EQ(narrow.group_count(), wide.group_count());
    for (std::uint32_t c = 0; c < wide.size(); ++c) {
        ASSERT_EQ(narrow.target(c), wide.target(c)) << "connection " << c;
        const std::uint32_t g = wide.group_of_connection(c);
        ASSERT_EQ(narrow.weight_of(g, c), wide.weight_of(g, c)) << "connection " << c;
    }
    for (std::uint32_t g = 0; g < wide.group_count(); ++g) {
        ASSERT_EQ(narrow.group(g).begin, wide.group(g).begin);
        ASSERT_EQ(narrow.group(g).delay, wide.group(g).delay);
        for (unsigned t = 0; t <= wide.threads(); ++t) ASSERT_EQ(narrow.thread_begin(g, t), wide.thread_begin(g, t));
    }
    ASSERT_EQ(narrow.has_connection_index(), wide.has_connection_index());
    for (std::uint32_t c = 0; c < wide.size(); ++c) {
        std::uint32_t a = 0, b = 0;
        ASSERT_EQ(narrow.find_connection_index(c, a), wide.find_connection_index(c, b));
        ASSERT_EQ(a, b);
    }
}

} // namespace

TEST(narrow_targets, same_table_in_two_and_four_bytes) {
    for (std::vector<local_index> thread_first: {std::vector<local_index>{}, std::vector<local_index>{0, 300, 1000}}) {
        const auto conns = random_connections(1000, 5000, 7);
        const connection_table narrow(conns, true, thread_first, true), wide(conns, true, thread_first, false);
        EXPECT_TRUE(narrow.narrow_targets());
        EXPECT_FALSE(wide.narrow_targets());
        EXPECT_TRUE(narrow.has_connection_index()); // the merge's indices came from the third pass
        expect_same_table(narrow, wide);
        // A piece widened, as the delivery reads it.
        std::vector<local_index> scratch;
        const local_index* piece = narrow.targets_of(100, 164, scratch);
        for (std::uint32_t c = 100; c < 164; ++c) EXPECT_EQ(piece[c - 100], wide.target(c));
        EXPECT_EQ(narrow.connection_bytes() + 2 * conns.size(), wide.connection_bytes());
    }
}

namespace {

// Every target in [first, first + cells) takes inputs from each of `sources` sources in
// two delay groups (a dense table, in target order: byte targets pay).
std::vector<built_connection> dense_connections(local_index first, local_index cells, gid_type sources) {
    std::vector<built_connection> conns;
    for (local_index t = first; t < first + cells; ++t) {
        for (gid_type s = 0; s < sources; ++s) {
            if ((t * 7 + s) % 5 == 0) continue; // a few gaps
            conns.push_back({s, t, double(t) + 0.25 * s, 1 + (t + s) % 2});
        }
    }
    return conns;
}

void expect_same_pieces(const connection_table& bytes, const connection_table& wide) {
    // Sequential reads, and reads that go back or jump ahead.
    target_reader reader(bytes);
    for (std::uint32_t c = 0; c < wide.size(); ++c) ASSERT_EQ(reader(c), wide.target(c)) << c;
    std::mt19937 draw(3);
    for (int k = 0; k < 500; ++k) {
        const auto c = std::uint32_t(draw() % wide.size());
        ASSERT_EQ(reader(c), wide.target(c)) << c;
    }
    // Pieces over ranges that begin and end inside pages.
    for (int k = 0; k < 200; ++k) {
        auto begin = std::uint32_t(draw() % wide.size()), end = std::uint32_t(draw() % (wide.size() + 1));
        if (begin > end) std::swap(begin, end);
        std::uint32_t next = begin;
        bytes.for_target_pieces(begin, end, [&](const auto* targets, local_index base, auto first, auto last) {
            ASSERT_EQ(first, next);
            ASSERT_LT(first, last);
            for (auto c = first; c < last; ++c) ASSERT_EQ(base + targets[c], wide.target(c)) << c;
            next = last;
        });
        ASSERT_EQ(next, std::max(begin, end == begin ? begin : end));
        std::vector<local_index> scratch;
        const local_index* widened = bytes.targets_of(begin, end, scratch);
        for (auto c = begin; c < end; ++c) ASSERT_EQ(widened[c - begin], wide.target(c));
    }
}

} // namespace

TEST(byte_targets, same_table_in_one_and_four_bytes_from_two_or_four) {
    // From 2-byte targets (cells below 2^16) and from 4-byte ones (beyond).
    for (local_index first: {local_index{0}, local_index{70000}}) {
        for (std::vector<local_index> thread_first:
             {std::vector<local_index>{}, std::vector<local_index>{0, first + 700, first + 2000}}) {
            const auto conns = dense_connections(first, 2000, 12);
            const connection_table bytes(conns, true, thread_first, true), wide(conns, true, thread_first, false);
            EXPECT_TRUE(bytes.byte_targets());
            EXPECT_EQ(bytes.target_bytes(), 1u);
            EXPECT_EQ(wide.target_bytes(), 4u);
            // A page wherever a run moves to the next 256 cells, or a new run starts.
            EXPECT_GT(bytes.page_count(), 2000u / 256);
            EXPECT_LT(bytes.page_count(), conns.size() / 16);
            for (std::size_t k = 0; k < bytes.page_count(); ++k) EXPECT_EQ(bytes.page(k).base % 256, 0u);
            expect_same_table(bytes, wide);
            expect_same_pieces(bytes, wide);
            EXPECT_EQ(bytes.connection_bytes() + 3 * conns.size(), wide.connection_bytes() + 8 * bytes.page_count());
        }
    }
}

TEST(byte_targets, a_sparse_table_keeps_two_or_four_bytes) {
    // A source's few targets spread over many cells: a page for almost every connection.
    // (On one thread, and on three: the count stops on every thread.)
    std::vector<built_connection> conns;
    for (local_index t = 0; t < 60000; t += 97) conns.push_back({gid_type(t % 50), t, 1.0, 1});
    EXPECT_EQ(connection_table(conns).target_bytes(), 2u);
    const connection_table threaded(conns, true, {0, 20000, 40000, 60000});
    EXPECT_EQ(threaded.target_bytes(), 2u);
    for (std::uint32_t c = 0; c < threaded.size(); ++c) ASSERT_LT(threaded.target(c), 60000u);
    for (auto& c: conns) c.target += 70000;
    EXPECT_EQ(connection_table(conns).target_bytes(), 4u);
    EXPECT_EQ(connection_table(conns, true, {0, 90000, 100000, 130000}).target_bytes(), 4u);
}

TEST(key_counters, rows_and_lists_give_the_same_table) {
    for (std::vector<local_index> thread_first: {std::vector<local_index>{}, std::vector<local_index>{0, 300, 1000}}) {
        auto conns = random_connections(1000, 20000, 9);
        for (auto& c: conns) c.delay = 1 + (c.delay * 7919 + c.target) % 40; // 40 keys: rows widen twice
        const connection_table rows(conns, true, thread_first, false);
        const connection_table lists(conns, true, thread_first, false, 0);
        expect_same_table(rows, lists);
        // A budget crossed while counting: rows turn into lists part way.
        const connection_table switched(conns, true, thread_first, false, 100);
        expect_same_table(switched, lists);
        EXPECT_GT(rows.group_count(), 40u * 40u / 2);
    }
}

TEST(narrow_targets, a_target_beyond_two_bytes_keeps_four) {
    auto conns = random_connections(1000, 200, 3);
    conns.push_back({1, local_index(narrow_target_limit), 1.0, 2});
    const connection_table table(conns);
    EXPECT_FALSE(table.narrow_targets());
    bool found = false;
    for (std::uint32_t c = 0; c < table.size(); ++c) found = found || table.target(c) == narrow_target_limit;
    EXPECT_TRUE(found);
    conns.back().target = local_index(narrow_target_limit - 1); // the largest 2-byte target
    EXPECT_TRUE(connection_table(conns).narrow_targets());
}

namespace {

constexpr double dt = 0.1;

// Two irregular sources and ten driven cells; STDP from the sources (two delays: a
// source's groups share targets, merged delivery) and among the cells, static inhibition.
network_spec plastic_network(gid_type cells = 10) {
    network_spec spec;
    spec.dt_ms = dt;
    spec.seed = 11;
    population_spec sources{"spike_source_array", 0, 2, constant_parameter_map({}), {}};
    auto& times = sources.lists["spike_times"];
    times.offsets.push_back(0);
    std::mt19937 draw(5);
    for (int s = 0; s < 2; ++s) {
        double t = 1.0;
        for (int k = 0; k < 80; ++k) times.values.push_back(t += 2.0 + double(draw() % 70) * dt);
        times.offsets.push_back(times.values.size());
    }
    spec.populations.push_back(sources);
    spec.populations.push_back({"iaf_psc_exp", 2, cells, constant_parameter_map({{"I_e", 330.0}}), {}});
    spec.synapses.push_back({"stdp_synapse", {{"Wmax", 200.0}, {"lambda", 0.05}}});
    auto add = [&](std::uint16_t synapse, gid_type s, gid_type t, double w, double d) {
        connection_set set;
        set.is_rule = false;
        set.synapse = synapse;
        set.arrays.source = {s};
        set.arrays.target = {t};
        set.arrays.weight = {w};
        set.arrays.delay.push_back(connection_delay_steps(d, spec.dt_ms));
        spec.connection_sets.push_back(std::move(set));
    };
    const gid_type last = 2 + cells - 1;
    for (gid_type cell = 2; cell <= last; ++cell) {
        add(1, 0, cell, 60.0 + cell % 10, 1.0);
        add(1, 0, cell, 40.0, 2.5);
        add(1, 1, cell, 80.0 - cell % 10, 1.5);
        add(1, cell == last ? 2 : cell + 1, cell, 50.0, 1.2);
        add(0, cell == 2 ? last : cell - 1, cell, -30.0, 0.8);
    }
    spec.recorded.emplace_back(0, 2 + cells);
    return spec;
}

struct outcome {
    std::vector<std::pair<gid_type, step_type>> spikes;
    std::vector<std::tuple<std::int64_t, std::int64_t, double, double>> connections; // source, target, delay, weight
    double connection_bytes = 0;
};

outcome run(unsigned threads, unsigned target_bytes, gid_type cells = 10) {
    auto context = make_serial_context();
    engine_options options;
    options.threads = threads;
    options.narrow_targets = target_bytes <= 2;
    options.byte_targets = target_bytes == 1;
    engine e(*context, plastic_network(cells), options);
    e.build();
    e.init();
    e.run_until(3000);
    outcome o;
    for (const auto& s: e.recorded_spikes()) o.spikes.emplace_back(s.gid, s.step);
    std::sort(o.spikes.begin(), o.spikes.end());
    const auto c = e.connections();
    for (std::size_t k = 0; k < c.source.size(); ++k) {
        o.connections.emplace_back(c.source[k], c.target[k], c.delay_ms[k], c.weight[k]);
    }
    std::sort(o.connections.begin(), o.connections.end());
    o.connection_bytes = e.memory_bytes().at("connections");
    return o;
}

} // namespace

TEST(narrow_targets, same_spikes_and_plastic_weights_on_one_and_two_threads) {
    const outcome reference = run(1, false);
    EXPECT_GT(reference.spikes.size(), 100u);
    // The weights moved: the test sees the plastic path.
    const outcome fresh = [] {
        auto context = make_serial_context();
        engine e(*context, plastic_network(), engine_options{});
        e.build();
        outcome o;
        const auto c = e.connections();
        for (std::size_t k = 0; k < c.source.size(); ++k) {
            o.connections.emplace_back(c.source[k], c.target[k], c.delay_ms[k], c.weight[k]);
        }
        std::sort(o.connections.begin(), o.connections.end());
        return o;
    }();
    EXPECT_NE(reference.connections, fresh.connections);
    for (unsigned threads: {1u, 2u}) {
        for (unsigned bytes: {2u, 4u}) {
            const outcome o = run(threads, bytes);
            EXPECT_EQ(o.spikes, reference.spikes) << threads << " threads, " << bytes << "-byte targets";
            EXPECT_EQ(o.connections, reference.connections) << threads << " threads, " << bytes << "-byte targets";
        }
    }
}

TEST(byte_targets, same_spikes_and_plastic_weights_as_four_bytes_on_one_and_two_threads) {
    // 600 cells: the sources' groups reach them in runs over three pages, so byte targets
    // pay; the STDP updates, the merged delivery of a source's groups that share targets
    // and the reading of connections all go through pages.
    const outcome reference = run(1, 4, 600);
    EXPECT_GT(reference.spikes.size(), 1000u);
    for (unsigned threads: {1u, 2u}) {
        const outcome bytes = run(threads, 1, 600), narrow = run(threads, 2, 600);
        EXPECT_EQ(bytes.spikes, reference.spikes) << threads << " threads";
        EXPECT_EQ(bytes.connections, reference.connections) << threads << " threads";
        EXPECT_LT(bytes.connection_bytes, narrow.connection_bytes) << threads << " threads: no byte targets";
    }
}
