// A bucket of routed items as one block of the spike wire codec (exchange/
// routed_bucket_codec.hpp): every item comes back (as a multiset: the block may reorder),
// within max_message_bytes, under every cell distribution, framed or not; a bucket from
// one rank to one rank takes under 3 bytes an item where the item alone takes 4-5; a
// message of more items than a bucket, of none, or with a frame outside the cells, is
// refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/exchange/routed_bucket_codec.hpp"

using namespace spikex;

namespace {

constexpr distribution_scheme schemes[] = {distribution_scheme::round_robin, distribution_scheme::consecutive,
                                           distribution_scheme::random_shuffle};

// Items to random destinations from random cells (every == false), or all from cells of
// `owner` to one destination within one interval (a direct grid's bucket).
std::vector<unsigned char> random_items(const routed_item_format& format, const distribution& cells, std::size_t count,
                                        bool one_pair, std::mt19937_64& rng) {
    const int ranks = cells.ranks();
    std::uniform_int_distribution<int> rank(0, ranks - 1);
    std::uniform_int_distribution<std::uint64_t> gid(0, format.cells() - 1);
    std::uniform_int_distribution<step_type> step(0, 10 * format.period());
    int owner = rank(rng);
    while (cells.count(owner) == 0) owner = rank(rng); // consecutive blocks may leave a rank none
    const int to = rank(rng);
    std::uniform_int_distribution<local_index> local(0, cells.count(owner) - 1);
    const step_type first = step(rng) / format.period() * format.period();
    std::uniform_int_distribution<step_type> in_interval(first, first + format.period() / 2 - 1);
    std::vector<unsigned char> items(count * format.bytes());
    for (std::size_t k = 0; k < count; ++k) {
        unsigned char* item = &items[k * format.bytes()];
        if (one_pair)
            format.encode(to, cells.gid_of(owner, local(rng)), in_interval(rng), item);
        else
            format.encode(rank(rng), static_cast<gid_type>(gid(rng)), step(rng), item);
    }
    return items;
}

// The message of a bucket of `count` items, item k written by make(k, where).
template <class Make>
std::vector<unsigned char> encoded_bucket(const routed_item_format& format, const routed_bucket_codec& codec,
                                          std::size_t count, Make&& make) {
    std::vector<unsigned char> items(count * format.bytes());
    for (std::size_t k = 0; k < count; ++k) make(k, &items[k * format.bytes()]);
    std::vector<unsigned char> message;
    codec.encode(items.data(), count, message);
    return message;
}

// The items as byte strings, sorted (strings: GCC 12 warns of a bogus memcmp bound when
// sorting vectors of bytes).
std::vector<std::string> sorted_items(const std::vector<unsigned char>& items, std::size_t bytes, std::size_t count) {
    std::vector<std::string> out;
    for (std::size_t k = 0; k < count; ++k) out.emplace_back(reinterpret_cast<const char*>(&items[k * bytes]), bytes);
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

TEST(routed_bucket_codec, buckets_round_trip_within_their_bound) {
    std::mt19937_64 rng(7);
    for (distribution_scheme scheme: schemes) {
        for (int ranks: {1, 2, 5, 64}) {
            for (std::uint32_t cells: {1u, 1000u, 1u << 21}) {
                if (cells < std::uint32_t(ranks) && scheme != distribution_scheme::consecutive) continue;
                const distribution layout(scheme, cells, ranks, 3);
                for (step_type m: {1, 15, 40}) {
                    const routed_item_format format(ranks, cells, m);
                    ASSERT_TRUE(routed_bucket_codec::usable(format, layout));
                    const routed_bucket_codec codec(format, layout);
                    for (bool one_pair: {false, true}) {
                        for (std::size_t count: {1u, 2u, 7u, 500u}) {
                            SCOPED_TRACE(testing::Message()
                                         << "scheme " << int(scheme) << " P " << ranks << " N " << cells << " M " << m
                                         << " one pair " << one_pair << " n " << count);
                            const auto items = random_items(format, layout, count, one_pair, rng);
                            std::vector<unsigned char> message;
                            codec.encode(items.data(), count, message);
                            EXPECT_LE(message.size(), codec.max_message_bytes(count));
                            std::vector<unsigned char> back(count * format.bytes());
                            ASSERT_EQ(codec.decode(message.data(), message.size(), back.data(), count), count);
                            EXPECT_EQ(sorted_items(back, format.bytes(), count),
                                      sorted_items(items, format.bytes(), count));
                            if (count < 2) continue;
                            std::vector<unsigned char> short_of_one((count - 1) * format.bytes());
                            EXPECT_THROW(codec.decode(message.data(), message.size(), short_of_one.data(), count - 1),
                                         internal_error);
                        }
                    }
                }
            }
        }
    }
}

TEST(routed_bucket_codec, a_bucket_for_one_rank_takes_at_most_three_bytes_an_item) {
    // Buckets to one destination as a direct grid sends them, where an item alone takes
    // 4-5 bytes:
    // * 2 ranks, 2^20 cells each, M = 40 (items of 1 + 7 + 21 bits, 4 bytes): a full
    //   bucket of 496 from any cells within one interval;
    // * 16 ranks of 2^20 cells round robin, M = 100 (4 + 24 + 8 bits, 5 bytes): 64 items
    //   from rank 9's cells to rank 15 within 12 steps (at 5 Hz such a rank emits 500
    //   spikes a step), framed: its keys span that rank's 2^20 cells and 12 steps, not all
    //   2^24 cells and 16 x 200 offsets.
    struct bucket_case {
        int ranks, steps_per_interval;
        unsigned item_bytes;
        std::size_t count;
        int from, to; // from < 0: any cell
        step_type first, last;
    };
    for (const bucket_case c:
         {bucket_case{2, 40, 4, 496, -1, 1, 400, 439}, bucket_case{16, 100, 5, 64, 9, 15, 1000, 1011}}) {
        SCOPED_TRACE(c.ranks);
        const std::uint32_t all = c.ranks * (1u << 20);
        const distribution cells(distribution_scheme::round_robin, all, c.ranks, 1);
        const routed_item_format format(c.ranks, all, c.steps_per_interval);
        ASSERT_EQ(format.bytes(), c.item_bytes);
        std::mt19937_64 rng(11);
        std::uniform_int_distribution<gid_type> gid(0, all - 1);
        std::uniform_int_distribution<local_index> local(0, (1u << 20) - 1);
        std::uniform_int_distribution<step_type> step(c.first, c.last);
        const auto message =
            encoded_bucket(format, routed_bucket_codec(format, cells), c.count, [&](std::size_t, unsigned char* item) {
                const gid_type source = c.from < 0 ? gid(rng) : cells.gid_of(c.from, local(rng));
                format.encode(c.to, source, step(rng), item);
            });
        if (c.from >= 0) EXPECT_EQ(message[0] & 1, 1) << "framed";
        EXPECT_LE(double(message.size()) / c.count, 3.0);
    }
}

TEST(routed_bucket_codec, a_frame_outside_the_cells_is_refused) {
    // 3 ranks of 1000 cells round robin: B = 334, owner-major indices below 1002, and
    // index 333 of ranks 1 and 2 names no cell. A framed bucket of 8 items of rank 2's
    // cells 0-7 whose item base is set to all ones (1023 >= 1002), and to (rank 1, local
    // 333) = 667.
    const distribution cells(distribution_scheme::round_robin, 1000, 3, 1);
    const routed_item_format format(3, 1000, 15);
    const routed_bucket_codec codec(format, cells);
    const std::size_t count = 8;
    const auto message = encoded_bucket(format, codec, count, [&](std::size_t k, unsigned char* item) {
        format.encode(1, cells.gid_of(2, static_cast<local_index>(k)), 3 + step_type(k % 2), item);
    });
    std::vector<unsigned char> back(count * format.bytes());
    ASSERT_EQ(codec.decode(message.data(), message.size(), back.data(), count), count);
    // Header: bit 0 framed, bits 1-10 the item base (bits(1001) = 10).
    ASSERT_EQ(message[0] & 1, 1) << "eight items of one rank to one rank, framed";
    auto with_base = [&](std::uint32_t base) {
        std::vector<unsigned char> m = message;
        m[0] = static_cast<unsigned char>((m[0] & 1) | ((base & 0x7f) << 1));
        m[1] = static_cast<unsigned char>((m[1] & ~0x7u) | (base >> 7));
        return m;
    };
    for (std::uint32_t base: {1023u, 334u + 333u}) {
        SCOPED_TRACE(base);
        const auto bad = with_base(base);
        EXPECT_THROW(codec.decode(bad.data(), bad.size(), back.data(), count), internal_error);
    }
    EXPECT_THROW(codec.decode(message.data(), 1, back.data(), count), internal_error);
    EXPECT_THROW(codec.decode(message.data(), 0, back.data(), count), internal_error);
}
