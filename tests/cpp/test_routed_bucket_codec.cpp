// A bucket of routed items as one block of the spike wire codec (exchange/
// routed_bucket_codec.hpp): every item comes back (as a multiset: the block may reorder),
// within max_message_bytes, in fewer bytes than the items once a bucket holds a few; a
// message of more items than a bucket, or of none, is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/exchange/routed_bucket_codec.hpp"

using namespace spikex;

namespace {

std::vector<unsigned char> random_items(const routed_item_format& format, int ranks, std::size_t count,
                                        std::mt19937_64& rng) {
    std::uniform_int_distribution<int> destination(0, ranks - 1);
    std::uniform_int_distribution<std::uint64_t> gid(0, format.cells() - 1);
    std::uniform_int_distribution<step_type> step(0, 10 * format.period());
    std::vector<unsigned char> items(count * format.bytes());
    for (std::size_t k = 0; k < count; ++k)
        format.encode(destination(rng), static_cast<gid_type>(gid(rng)), step(rng), &items[k * format.bytes()]);
    return items;
}

std::vector<std::vector<unsigned char>> sorted_items(const std::vector<unsigned char>& items, std::size_t bytes,
                                                     std::size_t count) {
    std::vector<std::vector<unsigned char>> out;
    for (std::size_t k = 0; k < count; ++k)
        out.emplace_back(items.begin() + k * bytes, items.begin() + (k + 1) * bytes);
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

TEST(routed_bucket_codec, buckets_round_trip_within_their_bound) {
    std::mt19937_64 rng(7);
    for (int ranks: {1, 2, 5, 64}) {
        for (std::uint64_t cells: {std::uint64_t{1}, std::uint64_t{1000}, std::uint64_t{1} << 21}) {
            for (step_type m: {1, 15, 40}) {
                const routed_item_format format(ranks, cells, m);
                ASSERT_TRUE(routed_bucket_codec::usable(format, ranks));
                const routed_bucket_codec codec(format, ranks);
                for (std::size_t count: {1u, 2u, 7u, 500u}) {
                    SCOPED_TRACE(testing::Message() << "P " << ranks << " N " << cells << " M " << m << " n " << count);
                    const auto items = random_items(format, ranks, count, rng);
                    std::vector<unsigned char> message;
                    codec.encode(items.data(), count, message);
                    EXPECT_LE(message.size(), codec.max_message_bytes(count));
                    std::vector<unsigned char> back(count * format.bytes());
                    ASSERT_EQ(codec.decode(message.data(), message.size(), back.data(), count), count);
                    EXPECT_EQ(sorted_items(back, format.bytes(), count), sorted_items(items, format.bytes(), count));
                    if (count < 2) continue;
                    std::vector<unsigned char> short_of_one((count - 1) * format.bytes());
                    EXPECT_THROW(codec.decode(message.data(), message.size(), short_of_one.data(), count - 1),
                                 internal_error);
                }
            }
        }
    }
}

TEST(routed_bucket_codec, a_full_bucket_for_one_rank_takes_at_most_three_bytes_an_item) {
    // 2 ranks, 2^20 cells each, M = 40: items of 1 + 7 + 21 bits, 4 bytes; a bucket of 496
    // for one destination, steps of one interval, as the direct grid sends them.
    const int ranks = 2;
    const routed_item_format format(ranks, std::uint64_t{1} << 21, 40);
    ASSERT_EQ(format.bytes(), 4u);
    const routed_bucket_codec codec(format, ranks);
    std::mt19937_64 rng(11);
    std::uniform_int_distribution<gid_type> gid(0, (1u << 21) - 1);
    std::uniform_int_distribution<step_type> step(400, 439);
    const std::size_t count = 496;
    std::vector<unsigned char> items(count * format.bytes());
    for (std::size_t k = 0; k < count; ++k) format.encode(1, gid(rng), step(rng), &items[k * format.bytes()]);
    std::vector<unsigned char> message;
    codec.encode(items.data(), count, message);
    EXPECT_LE(double(message.size()) / count, 3.0);
}
