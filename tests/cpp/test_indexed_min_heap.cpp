// Indexed min-heap of self-events: matches a brute-force model under random set/pop, ties by cell.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <utility>

#include "spikex/engine/indexed_min_heap.hpp"

using namespace spikex;

namespace {

// The brute-force model: cell -> key, minimum by (key, cell).
struct model {
    std::map<local_index, step_type> key;
    std::pair<step_type, local_index> top() const {
        std::pair<step_type, local_index> best{0, 0};
        bool first = true;
        for (auto [c, k]: key) {
            if (first || std::pair{k, c} < best) best = {k, c};
            first = false;
        }
        return best;
    }
};

void expect_same(const indexed_min_heap& h, const model& m) {
    ASSERT_EQ(h.empty(), m.key.empty());
    if (m.key.empty()) return;
    auto [k, c] = m.top();
    ASSERT_EQ(h.top(), c);
    ASSERT_EQ(h.top_key(), k);
    for (auto [cell, key]: m.key) ASSERT_EQ(h.key(cell), key);
}

} // namespace

TEST(indexed_min_heap, empty_then_one) {
    indexed_min_heap h(4);
    EXPECT_TRUE(h.empty());
    h.set(2, 10);
    EXPECT_FALSE(h.empty());
    EXPECT_EQ(h.top(), 2u);
    EXPECT_EQ(h.top_key(), 10);
    h.pop();
    EXPECT_TRUE(h.empty());
}

TEST(indexed_min_heap, ties_are_broken_by_cell_index) {
    indexed_min_heap h(8);
    for (local_index c: {5u, 3u, 7u, 0u, 6u}) h.set(c, 42);
    for (local_index expected: {0u, 3u, 5u, 6u, 7u}) {
        ASSERT_FALSE(h.empty());
        EXPECT_EQ(h.top(), expected);
        EXPECT_EQ(h.top_key(), 42);
        h.pop();
    }
    EXPECT_TRUE(h.empty());
}

TEST(indexed_min_heap, set_moves_a_cell_up_and_down) {
    indexed_min_heap h(3);
    h.set(0, 10);
    h.set(1, 20);
    h.set(2, 30);
    h.set(2, 5); // earlier: to the top
    EXPECT_EQ(h.top(), 2u);
    h.set(2, 25); // later again
    EXPECT_EQ(h.top(), 0u);
    h.set(0, 20); // tie with cell 1: the lower index wins
    EXPECT_EQ(h.top(), 0u);
    h.set(0, 21);
    EXPECT_EQ(h.top(), 1u);
    h.pop();
    EXPECT_EQ(h.top(), 0u);
    h.pop();
    EXPECT_EQ(h.top(), 2u);
    EXPECT_EQ(h.top_key(), 25);
    // A popped cell can come back.
    h.set(1, 1);
    EXPECT_EQ(h.top(), 1u);
}

TEST(indexed_min_heap, random_operations_match_brute_force) {
    std::mt19937 rng(99);
    for (std::uint32_t cells: {1u, 2u, 7u, 64u, 500u}) {
        indexed_min_heap h(cells);
        model m;
        for (int op = 0; op < 20000; ++op) {
            if (!m.key.empty() && rng() % 4 == 0) {
                auto [k, c] = m.top();
                m.key.erase(c);
                h.pop();
            } else {
                local_index c = rng() % cells;
                step_type k = rng() % 50; // a small key range gives many ties
                m.key[c] = k;
                h.set(c, k);
            }
            SCOPED_TRACE(testing::Message() << "cells " << cells << " op " << op);
            expect_same(h, m);
        }
        // Drain: keys come out sorted by (key, cell).
        std::pair<step_type, local_index> last{-1, 0};
        while (!h.empty()) {
            std::pair<step_type, local_index> cur{h.top_key(), h.top()};
            EXPECT_LT(last, cur);
            last = cur;
            h.pop();
        }
    }
}

TEST(indexed_min_heap, large_step_keys) {
    indexed_min_heap h(3);
    h.set(0, std::int64_t(1) << 40);
    h.set(1, (std::int64_t(1) << 40) - 1);
    h.set(2, std::int64_t(1) << 41);
    EXPECT_EQ(h.top(), 1u);
    EXPECT_EQ(h.top_key(), (std::int64_t(1) << 40) - 1);
}
