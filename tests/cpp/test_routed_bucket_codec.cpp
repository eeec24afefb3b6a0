// A bucket of routed items as one message (exchange/routed_bucket_codec.hpp): every item
// comes back (as a multiset: a block may reorder), within max_message_bytes, under every
// cell distribution, in every form; a bucket from one rank to one rank takes under 3 bytes
// an item where the item alone takes 4-5, packed (in order, steps framed, wrapping past
// 2M) where that stays within 3 bytes and a block of the codec otherwise; a message of more
// items than a bucket, of none, with a frame outside the cells, or (packed) with a base,
// width, cell, step or length outside what it may be, is refused.
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

// The message encode() writes into a buffer of max_message_bytes(count) + encode_slack
// bytes, checked not to run past that buffer (guard bytes after it).
std::vector<unsigned char> encode_message(const routed_bucket_codec& codec, const unsigned char* items,
                                          std::size_t count, int from, int to) {
    constexpr std::size_t guard = 16;
    const std::size_t room = codec.max_message_bytes(count) + message_codec::encode_slack;
    std::vector<unsigned char> buffer(room + guard, 0xee);
    const std::size_t size = codec.encode(items, count, from, to, buffer.data());
    EXPECT_LE(size, codec.max_message_bytes(count));
    EXPECT_TRUE(std::all_of(buffer.begin() + std::ptrdiff_t(room), buffer.end(), [](unsigned char b) {
        return b == 0xee;
    })) << "encode() wrote past its buffer";
    buffer.resize(size);
    return buffer;
}

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
    std::vector<unsigned char> message = encode_message(codec, items.data(), count, from, to);
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
                            std::vector<unsigned char> message =
                                encode_message(codec, b.items.data(), count, b.from, b.to);
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
    std::vector<unsigned char> message = encode_message(codec, items.data(), count, 0, 1);
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

namespace {

// A message written bit by bit, least significant first, padded with 1-bits.
struct bit_stream {
    std::vector<unsigned char> bytes;
    unsigned bits = 0;
    void put(std::uint64_t value, unsigned width) {
        for (unsigned i = 0; i < width; ++i, ++bits) {
            if (bits % 8 == 0) bytes.push_back(0);
            bytes.back() |= static_cast<unsigned char>(((value >> i) & 1) << (bits % 8));
        }
    }
    std::vector<unsigned char> padded() const {
        std::vector<unsigned char> out = bytes;
        if (bits % 8 != 0) out.back() |= static_cast<unsigned char>(0xff << (bits % 8));
        return out;
    }
};

// 16 ranks of 10,000 cells, M = 15: items of 4 + 5 + 18 bits, 4 bytes; 2M = 30, so a
// packed pair header of 2 + 5 + 3 bits (base < 30, d <= 5).
struct packed_case {
    distribution cells;
    routed_item_format format;
    routed_bucket_codec codec;
    explicit packed_case(distribution_scheme scheme = distribution_scheme::round_robin):
        cells(scheme, 160000, 16, 3), format(16, 160000, 15), codec(format, cells) {}
    // Items from rank `from`'s cells `locals` at `steps` to rank `to`.
    std::vector<unsigned char> items(int from, int to, const std::vector<local_index>& locals,
                                     const std::vector<step_type>& steps) const {
        std::vector<unsigned char> out(locals.size() * format.bytes());
        for (std::size_t k = 0; k < locals.size(); ++k)
            format.encode(to, cells.gid_of(from, locals[k]), steps[k], &out[k * format.bytes()]);
        return out;
    }
};

} // namespace

TEST(routed_bucket_codec, a_direct_grid_bucket_within_three_bytes_is_packed_in_order) {
    // 40 items of rank 3 to rank 7 in emission order (steps 100-107, local indices
    // ascending within a step): the packed pair form, base 100 mod 30 = 10, d = bits(7) = 3,
    // entries of bits(9,999) + 3 = 17 bits: ceil((10 + 40 x 17) / 8) = 87 bytes, 2.2 an
    // item where the item alone takes 4. It keeps the items' order.
    for (distribution_scheme scheme: schemes) {
        SCOPED_TRACE(int(scheme));
        const packed_case c(scheme);
        ASSERT_EQ(c.format.bytes(), 4u);
        std::vector<local_index> locals;
        std::vector<step_type> steps;
        for (int k = 0; k < 40; ++k) {
            locals.push_back(static_cast<local_index>((k % 5) * 1999 + k));
            steps.push_back(100 + k / 5);
        }
        const auto items = c.items(3, 7, locals, steps);
        std::vector<unsigned char> message = encode_message(c.codec, items.data(), 40, 3, 7);
        ASSERT_EQ(message[0] & 3, 0b11) << "the packed pair form";
        EXPECT_EQ((message[0] >> 2) & 31, 10) << "the step base";
        EXPECT_EQ(((message[0] >> 7) | (message[1] << 1)) & 7, 3) << "d";
        EXPECT_EQ(message.size(), 87u);
        std::vector<unsigned char> back(items.size());
        ASSERT_EQ(c.codec.decode(message.data(), message.size(), 3, 7, back.data(), 40), 40u);
        EXPECT_EQ(back, items);
        std::vector<unsigned char> short_of_one(items.size() - c.format.bytes());
        EXPECT_THROW(c.codec.decode(message.data(), message.size(), 3, 7, short_of_one.data(), 39), internal_error);
    }
}

TEST(routed_bucket_codec, packed_steps_wrap_past_2m_and_need_not_come_in_order) {
    // Steps 28, 29, 30, 31 are 28, 29, 0, 1 mod 30: base 28, span 3, d = 2; the same frame
    // when the items come out of order (the first and the last item do not bracket the
    // steps, so the encoder frames them from all items).
    const packed_case c;
    for (const std::vector<step_type>& steps: {std::vector<step_type>{28, 29, 30, 31}, {31, 28, 30, 29}}) {
        const auto items = c.items(5, 2, {4, 9, 1, 9999}, steps);
        std::vector<unsigned char> message = encode_message(c.codec, items.data(), 4, 5, 2);
        ASSERT_EQ(message[0] & 3, 0b11);
        EXPECT_EQ((message[0] >> 2) & 31, 28) << "the step base";
        EXPECT_EQ(((message[0] >> 7) | (message[1] << 1)) & 7, 2) << "d";
        EXPECT_EQ(message.size(), (10u + 4 * (14 + 2) + 7) / 8);
        std::vector<unsigned char> back(items.size());
        ASSERT_EQ(c.codec.decode(message.data(), message.size(), 5, 2, back.data(), 4), 4u);
        EXPECT_EQ(back, items);
    }
}

TEST(routed_bucket_codec, a_pair_bucket_beyond_three_bytes_packed_is_a_block) {
    // 2 ranks of 2^20 cells, M = 100: 64 items over 100 steps would take 20 + 7 bits
    // packed (over 3 bytes an item), so the bucket is one block of the codec (the pair
    // form's, bits 1, 0, or framed, bits 0, 1, whichever is smaller) at under 3 bytes an item.
    const distribution cells(distribution_scheme::round_robin, 1u << 21, 2, 1);
    const routed_item_format format(2, 1u << 21, 100);
    const routed_bucket_codec codec(format, cells);
    std::mt19937_64 rng(3);
    std::uniform_int_distribution<local_index> local(0, (1u << 20) - 1);
    const auto message = encoded_bucket(format, codec, 64, 1, 0, [&](std::size_t k, unsigned char* item) {
        format.encode(0, cells.gid_of(1, local(rng)), 500 + step_type(k) * 99 / 63, item);
    });
    EXPECT_TRUE((message[0] & 3) == 0b01 || (message[0] & 3) == 0b10) << "a block";
    EXPECT_LE(message.size(), 3u * 64);
    std::vector<unsigned char> back(64 * format.bytes());
    EXPECT_EQ(codec.decode(message.data(), message.size(), 1, 0, back.data(), 64), 64u);
}

TEST(routed_bucket_codec, malformed_packed_messages_are_refused) {
    // Messages written by hand in the documented layout: form bits 1, 1; base (5 bits);
    // d (3 bits); entries of a local index (14 bits, rank 5 holds 10,000 cells) and the
    // step's offset from the base (d bits).
    const packed_case c;
    auto message = [](std::uint64_t base, std::uint64_t d,
                      const std::vector<std::pair<std::uint64_t, std::uint64_t>>& entries) {
        bit_stream s;
        s.put(0b11, 2);
        s.put(base, 5);
        s.put(d, 3);
        for (const auto& [local, offset]: entries) {
            s.put(local, 14);
            s.put(offset, static_cast<unsigned>(d));
        }
        return s.padded();
    };
    std::vector<unsigned char> back(8 * c.format.bytes());
    auto decode = [&](const std::vector<unsigned char>& m) {
        return c.codec.decode(m.data(), m.size(), 5, 2, back.data(), 8);
    };
    // The layout as documented: local 17 at base 3 + offset 2 = step 5, local 9,999 at 3 + 28
    // = 31 = step 1 mod 30 (read around step 20: steps 5-34).
    ASSERT_EQ(decode(message(3, 5, {{17, 2}, {9999, 28}})), 2u);
    gid_type gid = 0;
    step_type step = 0;
    c.format.decode(&back[0], 20, gid, step);
    EXPECT_EQ(gid, c.cells.gid_of(5, 17));
    EXPECT_EQ(step, 5);
    c.format.decode(&back[c.format.bytes()], 20, gid, step);
    EXPECT_EQ(gid, c.cells.gid_of(5, 9999));
    EXPECT_EQ(step, 31);
    EXPECT_THROW(decode(message(30, 5, {{17, 2}})), internal_error) << "a base >= 2M";
    EXPECT_THROW(decode(message(3, 6, {{17, 2}})), internal_error) << "d > bits(2M - 1)";
    EXPECT_THROW(decode(message(3, 5, {{17, 30}})), internal_error) << "an offset >= 2M";
    EXPECT_THROW(decode(message(3, 5, {{10000, 2}})), internal_error) << "a cell the sender does not hold";
    EXPECT_THROW(decode(message(3, 5, {})), internal_error) << "no entries";
    auto longer = message(3, 5, {{17, 2}});
    longer.push_back(0xff);
    EXPECT_THROW(decode(longer), internal_error) << "padding past the last byte";
    EXPECT_THROW(decode(std::vector<unsigned char>{0b11}), internal_error) << "a header cut short";
}

namespace {

// Collects what the codec hands over on arrival.
struct collected_arrivals final: routed_arrivals {
    std::vector<wire_spike> fields;
    void arrive(const wire_spike* gid_and_offset, std::size_t count) override {
        fields.insert(fields.end(), gid_and_offset, gid_and_offset + count);
    }
};

} // namespace

TEST(routed_bucket_codec, a_packed_message_is_delivered_without_items) {
    // deliver() hands a packed pair message's items (gid, step mod 2M) straight to the
    // arrivals: the same as decode()'s items, in order. A block form, or a codec without
    // arrivals, leaves the message to decode(); a malformed message is refused before
    // anything arrives.
    for (distribution_scheme scheme: schemes) {
        SCOPED_TRACE(int(scheme));
        const packed_case plain(scheme);
        collected_arrivals arrivals;
        const routed_bucket_codec codec(plain.format, plain.cells, &arrivals);
        const std::vector<local_index> locals = {3, 17, 17, 400, 9999};
        const auto items = plain.items(6, 1, locals, {58, 59, 60, 60, 61});
        std::vector<unsigned char> message = encode_message(codec, items.data(), locals.size(), 6, 1);
        ASSERT_EQ(message[0] & 3, 0b11);
        EXPECT_EQ(plain.codec.deliver(message.data(), message.size(), 6, 1, 8), 0u) << "no arrivals";
        ASSERT_EQ(codec.deliver(message.data(), message.size(), 6, 1, 8), locals.size());
        ASSERT_EQ(arrivals.fields.size(), locals.size());
        for (std::size_t k = 0; k < locals.size(); ++k) {
            EXPECT_EQ(arrivals.fields[k].item, plain.cells.gid_of(6, locals[k]));
            EXPECT_EQ(arrivals.fields[k].offset, plain.format.fields(&items[k * plain.format.bytes()]).offset);
        }
        arrivals.fields.clear();
        EXPECT_THROW(codec.deliver(message.data(), message.size(), 6, 1, locals.size() - 1), internal_error);
        EXPECT_THROW(codec.deliver(message.data(), message.size(), 6, 16, 8), internal_error) << "no rank 16";
        auto longer = message;
        longer.push_back(0xff);
        EXPECT_THROW(codec.deliver(longer.data(), longer.size(), 6, 1, 8), internal_error);
        EXPECT_TRUE(arrivals.fields.empty()) << "nothing arrives from a refused message";
        // A forwarded bucket (items of rank 6 for rank 1, sent by rank 2) is a block.
        message = encode_message(codec, items.data(), locals.size(), 2, 1);
        ASSERT_NE(message[0] & 3, 0b11);
        EXPECT_EQ(codec.deliver(message.data(), message.size(), 2, 1, 8), 0u);
        EXPECT_TRUE(arrivals.fields.empty());
    }
}
