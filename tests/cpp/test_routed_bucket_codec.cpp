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

// A bucket and the ranks that send and receive it.
struct bucket {
    std::vector<unsigned char> items;
    int from, to;
};

// Items to random destinations from random cells between a random pair (one_pair ==
// false), or all from cells of the sender to the receiver within one interval (a direct
// grid's bucket).
bucket random_bucket(const routed_item_format& format, const distribution& cells, std::size_t count, bool one_pair,
                     std::mt19937_64& rng) {
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
    bucket b{std::vector<unsigned char>(count * format.bytes()), one_pair ? owner : rank(rng), to};
    for (std::size_t k = 0; k < count; ++k) {
        unsigned char* item = &b.items[k * format.bytes()];
        if (one_pair)
            format.encode(to, cells.gid_of(owner, local(rng)), in_interval(rng), item);
        else
            format.encode(rank(rng), static_cast<gid_type>(gid(rng)), step(rng), item);
    }
    return b;
}

// The message of a bucket of `count` items, item k written by make(k, where).
template <class Make>
std::vector<unsigned char> encoded_bucket(const routed_item_format& format, const routed_bucket_codec& codec,
                                          std::size_t count, int from, int to, Make&& make) {
    std::vector<unsigned char> items(count * format.bytes());
    for (std::size_t k = 0; k < count; ++k) make(k, &items[k * format.bytes()]);
    std::vector<unsigned char> message;
    codec.encode(items.data(), count, from, to, message);
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
                            const bucket b = random_bucket(format, layout, count, one_pair, rng);
                            std::vector<unsigned char> message;
                            codec.encode(b.items.data(), count, b.from, b.to, message);
                            EXPECT_LE(message.size(), codec.max_message_bytes(count));
                            std::vector<unsigned char> back(count * format.bytes());
                            ASSERT_EQ(codec.decode(message.data(), message.size(), b.from, b.to, back.data(), count),
                                      count);
                            EXPECT_EQ(sorted_items(back, format.bytes(), count),
                                      sorted_items(b.items, format.bytes(), count));
                            if (count < 2) continue;
                            std::vector<unsigned char> short_of_one((count - 1) * format.bytes());
                            EXPECT_THROW(codec.decode(message.data(), message.size(), b.from, b.to, short_of_one.data(),
                                                      count - 1),
                                         internal_error);
                        }
                    }
                }
            }
        }
    }
}

TEST(routed_bucket_codec, a_bucket_for_one_rank_takes_at_most_three_bytes_an_item) {
    // Buckets to one destination as a direct grid sends them (from the cells' owner to the
    // destination), where an item alone takes 4-5 bytes:
    // * 2 ranks, 2^20 cells each, M = 40 (items of 1 + 7 + 21 bits, 4 bytes): a full
    //   bucket of 496 from the sender's cells within one interval;
    // * 16 ranks of 2^20 cells round robin, M = 100 (4 + 24 + 8 bits, 5 bytes): 64 items
    //   from rank 9's cells to rank 15 within 12 steps (at 5 Hz such a rank emits 500
    //   spikes a step), framed: its keys span that rank's 2^20 cells and 12 steps, not all
    //   2^24 cells and 16 x 200 offsets;
    // * 77 ranks of 1,003 cells (the microcircuit's 77,169 at 1 K a rank), M = 1 (7 + 17 +
    //   1 bits, 4 bytes): one item, as an interval of 0.1 ms leaves most buckets, in the
    //   pair form: its local index and step alone, 3 bytes with the headers.
    struct bucket_case {
        int ranks, steps_per_interval;
        std::uint32_t cells_per_rank;
        unsigned item_bytes;
        std::size_t count;
        int from, to;
        step_type first, last;
        unsigned form_bits, form; // the message's first bits: 1 = pair, 0b10 = framed
    };
    for (const bucket_case c: {bucket_case{2, 40, 1u << 20, 4, 496, 0, 1, 400, 439, 0, 0},
                               bucket_case{16, 100, 1u << 20, 5, 64, 9, 15, 1000, 1011, 2, 0b10},
                               bucket_case{77, 1, 1003, 4, 1, 40, 7, 12, 12, 1, 1}}) {
        SCOPED_TRACE(c.ranks);
        const std::uint32_t all = c.ranks * c.cells_per_rank;
        const distribution cells(distribution_scheme::round_robin, all, c.ranks, 1);
        const routed_item_format format(c.ranks, all, c.steps_per_interval);
        ASSERT_EQ(format.bytes(), c.item_bytes);
        const routed_bucket_codec codec(format, cells);
        std::mt19937_64 rng(11);
        std::uniform_int_distribution<local_index> local(0, c.cells_per_rank - 1);
        std::uniform_int_distribution<step_type> step(c.first, c.last);
        const auto message =
            encoded_bucket(format, codec, c.count, c.from, c.to, [&](std::size_t, unsigned char* item) {
                format.encode(c.to, cells.gid_of(c.from, local(rng)), step(rng), item);
            });
        if (c.form_bits > 0) EXPECT_EQ(message[0] & ((1u << c.form_bits) - 1), c.form) << "the expected form";
        EXPECT_LE(double(message.size()) / c.count, 3.0);
        std::vector<unsigned char> back(c.count * format.bytes());
        EXPECT_EQ(codec.decode(message.data(), message.size(), c.from, c.to, back.data(), c.count), c.count);
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
    // Sent by rank 0 (a forwarder, as on a grid of more dimensions), so not in the pair form.
    const std::size_t count = 8;
    const auto message = encoded_bucket(format, codec, count, 0, 1, [&](std::size_t k, unsigned char* item) {
        format.encode(1, cells.gid_of(2, static_cast<local_index>(k)), 3 + step_type(k % 2), item);
    });
    std::vector<unsigned char> back(count * format.bytes());
    ASSERT_EQ(codec.decode(message.data(), message.size(), 0, 1, back.data(), count), count);
    // Header: bit 0 = 0 (not the pair form), bit 1 = 1 (framed), bits 2-11 the item base
    // (bits(1001) = 10).
    ASSERT_EQ(message[0] & 3, 0b10) << "eight items of one rank to one rank, framed";
    auto with_base = [&](std::uint32_t base) {
        std::vector<unsigned char> m = message;
        m[0] = static_cast<unsigned char>((m[0] & 3) | ((base & 0x3f) << 2));
        m[1] = static_cast<unsigned char>((m[1] & ~0xfu) | (base >> 6));
        return m;
    };
    for (std::uint32_t base: {1023u, 334u + 333u}) {
        SCOPED_TRACE(base);
        const auto bad = with_base(base);
        EXPECT_THROW(codec.decode(bad.data(), bad.size(), 0, 1, back.data(), count), internal_error);
    }
    EXPECT_THROW(codec.decode(message.data(), 1, 0, 1, back.data(), count), internal_error);
    EXPECT_THROW(codec.decode(message.data(), 0, 0, 1, back.data(), count), internal_error);
    EXPECT_THROW(codec.decode(message.data(), message.size(), 0, 3, back.data(), count), internal_error)
        << "a receiver outside the job";
}

TEST(routed_bucket_codec, a_pair_form_message_names_the_senders_cells) {
    // 3 ranks of 1000 cells round robin: rank 0 holds 334 cells, ranks 1 and 2 hold 333.
    // Rank 0's bucket of its local cells 330-333 to rank 1, in the pair form, names
    // neither rank: it decodes to the same items as a message from rank 0, to others as
    // one from rank 2 (the router hands the codec the real sender).
    const distribution cells(distribution_scheme::round_robin, 1000, 3, 1);
    const routed_item_format format(3, 1000, 15);
    const routed_bucket_codec codec(format, cells);
    const std::size_t count = 4;
    std::vector<unsigned char> items(count * format.bytes());
    for (std::size_t k = 0; k < count; ++k)
        format.encode(1, cells.gid_of(0, static_cast<local_index>(330 + k)), 7, &items[k * format.bytes()]);
    std::vector<unsigned char> message;
    codec.encode(items.data(), count, 0, 1, message);
    ASSERT_EQ(message[0] & 1, 1) << "the pair form";
    std::vector<unsigned char> back(count * format.bytes());
    ASSERT_EQ(codec.decode(message.data(), message.size(), 0, 1, back.data(), count), count);
    EXPECT_EQ(sorted_items(back, format.bytes(), count), sorted_items(items, format.bytes(), count));
    std::vector<unsigned char> other(count * format.bytes());
    try {
        codec.decode(message.data(), message.size(), 2, 1, other.data(), count);
        EXPECT_NE(sorted_items(other, format.bytes(), count), sorted_items(items, format.bytes(), count));
    } catch (const internal_error&) { // or refused, when an item is outside rank 2's cells
    }
}
