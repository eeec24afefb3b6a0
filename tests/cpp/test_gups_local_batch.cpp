// gups: local updates applied a prefetched block at a time give the table that applying
// them one by one gives, also when one block holds the same word many times (HPCC's Sandia
// opt2 loses such updates: it loads a block's words before applying any of them).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "spikex/gups/gups_table.hpp"
#include "spikex/gups/hpcc_stream.hpp"

using namespace spikex;

TEST(GupsLocalBatch, SameWordsInOneBlockAreAllApplied) {
    // 2^4 words and long blocks: every block hits each word many times.
    for (std::size_t capacity: {1u, 3u, 16u, 128u}) {
        gups_table batched(4, 1, 0), one_by_one(4, 1, 0);
        local_batch batch(capacity);
        std::uint64_t value = hpcc_starts(0);
        std::vector<std::uint64_t> updates;
        for (int i = 0; i < 1000; ++i) {
            value = hpcc_next(value);
            updates.push_back(value);
            if (batch.add(batched, value)) batch.flush(batched); // full: applied at once
            one_by_one.apply(value);
        }
        batch.flush(batched);
        EXPECT_EQ(batch.size(), 0u);
        // Undo every update on both: equal tables give T[i] = i on both.
        for (auto u: updates) {
            batched.apply(u);
            one_by_one.apply(u);
        }
        EXPECT_EQ(batched.count_errors(), 0u) << "capacity " << capacity;
        EXPECT_EQ(one_by_one.count_errors(), 0u);
    }
}

TEST(GupsLocalBatch, ApplyAllEqualsApplyingInOrder) {
    gups_table table(6, 1, 0);
    std::vector<std::uint64_t> updates;
    std::uint64_t value = hpcc_starts(12345);
    for (int i = 0; i < 500; ++i) updates.push_back(value = hpcc_next(value));
    table.apply_all(updates.data(), updates.size());
    EXPECT_GT(table.count_errors(), 0u);
    for (auto u: updates) table.apply(u);
    EXPECT_EQ(table.count_errors(), 0u);
}

TEST(GupsLocalBatch, ApplyAllFromBytesEqualsApplyingInOrder) {
    // A received message is applied in place from the receive buffer's bytes.
    gups_table table(6, 1, 0);
    std::vector<std::uint64_t> updates;
    std::uint64_t value = hpcc_starts(777);
    for (int i = 0; i < 300; ++i) updates.push_back(value = hpcc_next(value));
    std::vector<unsigned char> bytes(updates.size() * sizeof(std::uint64_t) + 1);
    std::memcpy(bytes.data() + 1, updates.data(), updates.size() * sizeof(std::uint64_t)); // misaligned on purpose
    table.apply_all(bytes.data() + 1, updates.size());
    EXPECT_GT(table.count_errors(), 0u);
    for (auto u: updates) table.apply(u);
    EXPECT_EQ(table.count_errors(), 0u);
}

TEST(GupsLocalBatch, UpdatesWrittenInPlaceAndKeptByCountAreAllApplied) {
    // gups_routed writes every generated update to tail() and keeps only its own with
    // added(count): what was written beyond the count must not be applied, what was kept
    // must be, however the counts fall against the capacity (same words again and again).
    gups_table batched(4, 1, 0), one_by_one(4, 1, 0);
    local_batch batch(16);
    std::uint64_t value = hpcc_starts(99);
    std::vector<std::uint64_t> kept;
    for (int block = 0; block < 300; ++block) {
        const std::size_t room = batch.capacity() - batch.size();
        const std::size_t written = std::min<std::size_t>(room, 1 + block % 7);
        std::size_t keep = 0;
        for (std::size_t i = 0; i < written; ++i) {
            value = hpcc_next(value);
            batch.tail()[keep] = value;
            if (value % 3 != 0) { // this rank's, say; the others are overwritten next
                ++keep;
                kept.push_back(value);
                one_by_one.apply(value);
            }
        }
        const bool full = batch.added(keep);
        EXPECT_EQ(full, batch.size() == batch.capacity());
        if (batch.full()) batch.flush(batched);
    }
    batch.flush(batched);
    for (auto u: kept) {
        batched.apply(u);
        one_by_one.apply(u);
    }
    EXPECT_EQ(batched.count_errors(), 0u);
    EXPECT_EQ(one_by_one.count_errors(), 0u);
}
