// The spike wire codec (exchange/spike_codec.hpp): round trips of random spike sets at the
// extremes of cells per rank and interval length, empty blocks, repeated spikes, both modes,
// malformed blocks, and the size target (a mean of <= 3 bytes per spike).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/exchange/point_to_point.hpp"
#include "spikex/exchange/spike_codec.hpp"

using namespace spikex;

namespace {

std::vector<wire_spike> random_spikes(std::mt19937_64& rng, std::size_t n, std::uint64_t items, std::uint32_t steps) {
    std::uniform_int_distribution<std::uint64_t> item(0, items - 1);
    std::uniform_int_distribution<std::uint32_t> offset(0, steps - 1);
    std::vector<wire_spike> out(n);
    for (auto& s: out) s = {static_cast<std::uint32_t>(item(rng)), offset(rng)};
    return out;
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> sorted_pairs(const std::vector<wire_spike>& spikes) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
    for (const auto& s: spikes) out.emplace_back(s.item, s.offset);
    std::sort(out.begin(), out.end());
    return out;
}

// Encodes (after the caller's `prefix` fields), decodes, and checks the prefix reads back
// and the decoded multiset equals the input; returns the bytes.
std::size_t round_trip(const spike_codec& codec, std::uint64_t items, const std::vector<wire_spike>& spikes,
                       const std::vector<wire_field>& prefix = {}) {
    std::vector<unsigned char> wire = {0xab}; // something before: encode appends
    const std::size_t bytes = codec.encode(spikes, items, wire, prefix);
    EXPECT_EQ(wire.size(), bytes + 1);
    EXPECT_EQ(wire[0], 0xab);
    unsigned prefix_bits = 0;
    wire_bit_reader in(wire.data() + 1, bytes);
    for (const wire_field& f: prefix) {
        std::uint64_t value = 0;
        EXPECT_TRUE(in.take_long(f.bits, value));
        EXPECT_EQ(value, f.value);
        prefix_bits += f.bits;
    }
    std::vector<wire_spike> back;
    std::size_t n = codec.decode(
        wire.data() + 1, bytes, items,
        [&](std::uint32_t item, std::uint32_t offset) {
            back.push_back({item, offset});
        },
        prefix_bits);
    EXPECT_EQ(n, spikes.size());
    EXPECT_EQ(sorted_pairs(back), sorted_pairs(spikes));
    return bytes;
}

} // namespace

TEST(spike_codec, empty_block_is_zero_bytes) {
    spike_codec codec(15);
    std::vector<unsigned char> wire;
    EXPECT_EQ(codec.encode({}, 100, wire), 0u);
    EXPECT_TRUE(wire.empty());
    EXPECT_EQ(codec.decode(wire.data(), 0, 100, [](std::uint32_t, std::uint32_t) { FAIL(); }), 0u);
}

TEST(spike_codec, random_sets_round_trip_at_the_extremes) {
    std::mt19937_64 rng(42);
    const std::uint64_t item_spaces[] = {1, 2, 3, 255, 256, 257, 1000, 1u << 20, 4294967296ull};
    const std::uint32_t interval_steps[] = {1, 2, 15, 256, 1000, 65536, 4294967295u};
    const std::size_t counts[] = {1, 2, 3, 7, 64, 1000, 20000};
    for (auto items: item_spaces) {
        for (auto steps: interval_steps) {
            spike_codec codec(steps);
            for (auto n: counts) {
                SCOPED_TRACE(testing::Message() << "items " << items << " steps " << steps << " n " << n);
                const auto spikes = random_spikes(rng, n, items, steps);
                const std::size_t bytes = round_trip(codec, items, spikes);
                // after a caller's header of 1, 13 or 71 bits: the same block, that many bits on
                const std::vector<std::vector<wire_field>> prefixes = {
                    {{1, 1}}, {{0x1234, 13}}, {{~std::uint64_t{0}, 64}, {0x55, 7}}};
                const auto& prefix = prefixes[n % 3];
                unsigned prefix_bits = 0;
                for (const wire_field& f: prefix) prefix_bits += f.bits;
                const std::size_t with_prefix = round_trip(codec, items, spikes, prefix);
                EXPECT_GE(with_prefix * 8, bytes * 8 - 7 + prefix_bits);
                EXPECT_LE(with_prefix * 8, bytes * 8 + prefix_bits + 7);
            }
        }
    }
}

TEST(spike_codec, extreme_values_and_repeats_round_trip) {
    spike_codec codec(4294967295u);
    // The largest key, the smallest, one gap of almost 2^64 (the escape), repeats (gap 0).
    std::vector<wire_spike> spikes = {
        {0xffffffffu, 4294967294u}, {0, 0}, {0, 0}, {0xffffffffu, 4294967294u}, {1, 0}, {1, 0}, {7, 3}};
    round_trip(codec, 4294967296ull, spikes);
    spike_codec one_step(1);
    round_trip(one_step, 1, {{0, 0}});
    round_trip(one_step, 1, {{0, 0}, {0, 0}, {0, 0}});
    round_trip(one_step, 4294967296ull, {{0xffffffffu, 0}});
    // Keys split by a multiply where items x steps <= 2^32 (divider32), by a division above:
    // the largest keys on both sides of that edge, in gaps mode (many spikes near the top).
    for (const std::uint64_t items: {std::uint64_t{1} << 28, (std::uint64_t{1} << 28) + 1}) {
        const spike_codec sixteen(16);
        std::vector<wire_spike> top;
        for (std::uint32_t i = 0; i < 64; ++i)
            top.push_back({static_cast<std::uint32_t>(items - 1 - i * 977), 15 - i % 2});
        top.push_back({0, 0});
        std::vector<unsigned char> gaps;
        sixteen.encode(top, items, gaps);
        ASSERT_EQ(gaps[0] & 3, 3) << "gaps mode";
        round_trip(sixteen, items, top);
    }
    // A spike outside the item space or the interval is a caller's bug.
    std::vector<unsigned char> wire;
    EXPECT_THROW(one_step.encode(std::vector<wire_spike>{{5, 0}}, 5, wire), internal_error);
    EXPECT_THROW(one_step.encode(std::vector<wire_spike>{{0, 1}}, 5, wire), internal_error);
}

TEST(spike_codec, dense_and_sparse_sets_use_both_modes) {
    // A whole interval of a large rank is cheaper as sorted gaps; a few spikes of a
    // small rank as packed entries. Either way the decoder gets the set back.
    std::mt19937_64 rng(7);
    spike_codec codec(15);
    std::vector<unsigned char> wire;
    auto dense = random_spikes(rng, 5000, 1u << 20, 15);
    codec.encode(dense, 1u << 20, wire);
    EXPECT_EQ(wire[0] & 3, 3) << "long header, gaps mode";
    wire.clear();
    std::vector<wire_spike> single = {{99, 14}}; // a single spike is never cheaper as a gap
    codec.encode(single, 1000, wire);
    EXPECT_EQ(wire[0] & 1, 0) << "short header: packed at the item space's width";
    EXPECT_EQ(wire.size(), 2u); // 1 header bit + 10 item bits (bits(999)) + 4 offset bits, padded
    // A few small items of a large space: packed at the block's own width (long header).
    wire.clear();
    std::vector<wire_spike> small = {{1, 3}, {2, 4}, {3, 5}, {0, 6}};
    codec.encode(small, 1u << 20, wire);
    EXPECT_EQ(wire[0] & 3, 1) << "long header, packed";
    EXPECT_EQ(wire.size(), 5u); // 8 header bits + 4 x (4 item bits (widened to 8 - 4) + 4 offset bits)
}

TEST(spike_codec, gaps_mode_is_independent_of_input_order) {
    std::mt19937_64 rng(3);
    spike_codec codec(100);
    auto spikes = random_spikes(rng, 3000, 50000, 100);
    std::vector<unsigned char> a, b;
    codec.encode(spikes, 50000, a);
    std::shuffle(spikes.begin(), spikes.end(), rng);
    codec.encode(spikes, 50000, b);
    EXPECT_EQ(a[0] & 1, 1);
    EXPECT_EQ(a, b);
}

TEST(spike_codec, counts_the_blocks_it_had_to_sort) {
    std::mt19937_64 rng(5);
    spike_codec codec(100);
    auto spikes = random_spikes(rng, 3000, 50000, 100);
    std::sort(spikes.begin(), spikes.end(),
              [](wire_spike a, wire_spike b) { return std::pair(a.offset, a.item) < std::pair(b.offset, b.item); });
    std::uint64_t sorts = 0;
    std::vector<unsigned char> wire;
    codec.encode(spikes, 50000, wire, {}, &sorts);
    EXPECT_EQ(wire[0] & 1, 1) << "gaps mode";
    EXPECT_EQ(sorts, 0u) << "keys ascending as given: no sort";
    std::swap(spikes[0], spikes[1000]);
    codec.encode(spikes, 50000, wire, {}, &sorts);
    EXPECT_EQ(sorts, 1u);
    std::vector<wire_spike> one = {{99, 14}, {3, 0}}; // packed: order kept, nothing sorted
    codec.encode(one, 1000, wire, {}, &sorts);
    EXPECT_EQ(sorts, 1u);
}

TEST(spike_codec, gaps_decode_in_step_then_item_order) {
    spike_codec codec(10);
    std::vector<wire_spike> spikes;
    for (std::uint32_t step = 0; step < 10; ++step) {
        for (std::uint32_t cell = step; cell < 100000; cell += 997) spikes.push_back({cell, step});
    }
    std::vector<unsigned char> wire;
    codec.encode(spikes, 100000, wire);
    ASSERT_EQ(wire[0] & 1, 1);
    std::vector<wire_spike> back;
    codec.decode(wire.data(), wire.size(), 100000, [&](std::uint32_t item, std::uint32_t offset) {
        back.push_back({item, offset});
    });
    ASSERT_EQ(back.size(), spikes.size());
    for (std::size_t i = 0; i < back.size(); ++i) {
        EXPECT_EQ(back[i].item, spikes[i].item);
        EXPECT_EQ(back[i].offset, spikes[i].offset);
    }
}

TEST(spike_codec, mean_is_at_most_three_bytes_per_spike_at_any_cells_per_rank_and_interval) {
    // A rank's spikes of one interval at a low rate (2 Hz, dt = 0.1 ms: one spike per cell
    // per 5,000 steps), from 1 K to 1 M cells and 1 to 1,000 steps per interval; the mean
    // over enough intervals for 2,000 spikes. Header and padding included.
    std::mt19937_64 rng(11);
    const double spikes_per_cell_step = 2.0 * 1e-4;
    for (std::uint64_t cells: {1000ull, 10000ull, 100000ull, 1000000ull}) {
        for (std::uint32_t steps: {1u, 2u, 15u, 100u, 1000u}) {
            spike_codec codec(steps);
            std::poisson_distribution<std::size_t> count(spikes_per_cell_step * double(cells) * steps);
            std::size_t spikes = 0, bytes = 0;
            while (spikes < 2000) {
                auto block = random_spikes(rng, count(rng), cells, steps);
                bytes += round_trip(codec, cells, block);
                spikes += block.size();
            }
            const double mean = double(bytes) / double(spikes);
            SCOPED_TRACE(testing::Message() << "cells " << cells << " steps " << steps << " mean " << mean);
            EXPECT_LE(mean, 3.0);
        }
    }
}

TEST(spike_codec, malformed_blocks_are_refused) {
    spike_codec codec(15);
    auto ignore = [](std::uint32_t, std::uint32_t) {};
    // Packed (long header), item width 0 with a 4-bit offset: entries narrower than 8 bits.
    const unsigned char narrow[] = {0x01, 0x00};
    EXPECT_THROW(codec.decode(narrow, 2, 100, ignore), internal_error);
    // Gaps with k = 0 and only 1-bits after the header: an unterminated quotient.
    const unsigned char unterminated[] = {0x03, 0xff, 0xff};
    EXPECT_THROW(codec.decode(unterminated, 3, 100, ignore), internal_error);
    // A valid gaps block cut short in the middle of a code.
    std::mt19937_64 rng(5);
    std::vector<unsigned char> wire;
    auto spikes = random_spikes(rng, 200, 1u << 20, 15);
    codec.encode(spikes, 1u << 20, wire);
    ASSERT_EQ(wire[0] & 3, 3);
    std::size_t decoded = 0;
    bool threw = false;
    try {
        decoded = codec.decode(wire.data(), wire.size() - 2, 1u << 20, ignore);
    } catch (const internal_error&) {
        threw = true;
    }
    EXPECT_TRUE(threw || decoded < spikes.size());
    // Packed (long header), item width 4, one entry (item 3, offset 15): 15 is outside an
    // interval of 15 steps although it fits the 4 offset bits.
    const unsigned char outside[] = {0x11, 0xf3};
    EXPECT_THROW(codec.decode(outside, 2, 100, ignore), internal_error);
    const unsigned char inside[] = {0x11, 0xe3}; // offset 14
    std::vector<wire_spike> back;
    codec.decode(inside, 2, 100, [&](std::uint32_t item, std::uint32_t offset) { back.push_back({item, offset}); });
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].item, 3u);
    EXPECT_EQ(back[0].offset, 14u);
    // The same spike after the short header: 0, 7 item bits (bits(99)), 4 offset bits,
    // 4 bits of padding.
    const unsigned char short_header[] = {0x06, 0xfe};
    back.clear();
    codec.decode(short_header, 2, 100, [&](std::uint32_t item, std::uint32_t offset) {
        back.push_back({item, offset});
    });
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].item, 3u);
    EXPECT_EQ(back[0].offset, 14u);
    std::vector<unsigned char> encoded;
    codec.encode(std::vector<wire_spike>{{3, 14}}, 100, encoded);
    EXPECT_EQ(encoded, std::vector<unsigned char>(short_header, short_header + 2));
    // A gaps block read with a smaller item space than it was written for: keys past
    // items x steps are offsets outside the interval, with or without a division.
    for (const std::uint64_t small_items: {std::uint64_t{100}, std::uint64_t{1} << 32}) {
        const std::uint64_t large_items = small_items * 10;
        const spike_codec sixteen(16);
        std::vector<unsigned char> wide;
        std::vector<wire_spike> spikes;
        for (std::uint32_t i = 0; i < 100; ++i)
            spikes.push_back({static_cast<std::uint32_t>(large_items / 2 - 1 - i), 15});
        sixteen.encode(spikes, large_items, wide);
        ASSERT_EQ(wide[0] & 3, 3) << "gaps mode";
        EXPECT_THROW(sixteen.decode(wide.data(), wide.size(), small_items, ignore), internal_error) << small_items;
    }
    // A short-header block for an empty item space is malformed.
    EXPECT_THROW(codec.decode(short_header, 2, 0, ignore), internal_error);
}

TEST(spike_codec, single_spikes_round_trip_with_their_tag_at_the_extremes) {
    std::mt19937_64 rng(7);
    const std::uint64_t item_spaces[] = {1, 2, 3, 255, 256, 257, 1u << 20, 4294967296ull};
    const std::uint32_t interval_lengths[] = {1, 2, 15, 16, 17, 40, 1u << 16};
    for (unsigned tag_bits: {0u, 1u, 4u, 8u, 17u, 32u}) {
        for (std::uint64_t items: item_spaces) {
            for (std::uint32_t steps: interval_lengths) {
                const spike_codec codec(steps);
                const std::size_t size = codec.single_bytes(items, tag_bits);
                EXPECT_EQ(size,
                          (tag_bits + spike_codec::bits_for(steps - 1) + spike_codec::bits_for(items - 1) + 7) / 8);
                EXPECT_LE(size, spike_codec::max_single_bytes);
                auto spikes = random_spikes(rng, 20, items, steps);
                spikes.push_back({static_cast<std::uint32_t>(items - 1), steps - 1}); // the largest
                spikes.push_back({0, 0});
                for (const auto& s: spikes) {
                    const std::uint32_t tag = tag_bits == 0 ? 0 : static_cast<std::uint32_t>(rng() >> (64 - tag_bits));
                    unsigned char wire[spike_codec::max_single_bytes + 1];
                    wire[size] = 0xcd; // nothing written past the message
                    ASSERT_EQ(codec.encode_single(s, items, tag_bits, tag, wire), size);
                    EXPECT_EQ(wire[size], 0xcd);
                    EXPECT_EQ(spike_codec::single_tag(wire, size, tag_bits), tag);
                    const wire_spike back = codec.decode_single(wire, size, items, tag_bits);
                    EXPECT_EQ(back.item, s.item);
                    EXPECT_EQ(back.offset, s.offset);
                    // The one-word layout (a routed bucket's items) writes and reads the same bytes.
                    const spike_codec::single_word word(codec, items, tag_bits);
                    ASSERT_EQ(word.fits(),
                              tag_bits + spike_codec::bits_for(steps - 1) + spike_codec::bits_for(items - 1) <= 64);
                    if (!word.fits()) continue;
                    ASSERT_EQ(word.bytes(), size);
                    unsigned char packed[spike_codec::max_single_bytes + 1];
                    packed[size] = 0xcd;
                    word.pack(tag, s, packed);
                    EXPECT_EQ(std::memcmp(packed, wire, size), 0);
                    EXPECT_EQ(packed[size], 0xcd);
                    std::uint32_t unpacked_tag = ~tag;
                    const wire_spike unpacked = word.unpack(wire, unpacked_tag);
                    EXPECT_EQ(unpacked_tag, tag);
                    EXPECT_EQ(word.tag(wire), tag);
                    EXPECT_EQ(unpacked.item, s.item);
                    EXPECT_EQ(unpacked.offset, s.offset);
                }
            }
        }
    }
}

TEST(spike_codec, one_spike_messages_take_three_bytes_up_to_64k_cells_per_rank_at_m_16) {
    // The 4 tag bits of point_to_point.hpp's wire_message; M = 15 (hpc_benchmark, 1.5 ms
    // at 0.1 ms), 40 (the demo, 1 ms at 0.025 ms), 1 (the microcircuit).
    EXPECT_EQ(spike_codec(15).single_bytes(1u << 16, 4), 3u);
    EXPECT_EQ(spike_codec(15).single_bytes((1u << 16) + 1, 4), 4u);
    EXPECT_EQ(spike_codec(40).single_bytes(1u << 14, 4), 3u);
    EXPECT_EQ(spike_codec(1).single_bytes(1u << 20, 4), 3u);
    EXPECT_EQ(spike_codec(15).single_bytes(1u << 20, 4), 4u); // 1M cells per rank: 4 bytes
}

TEST(spike_codec, one_spike_messages_with_the_item_in_the_mpi_tag_take_one_or_two_bytes) {
    // point_to_point.hpp: the item travels in the MPI tag when every item fits it; the
    // bytes hold the 4 tag bits and the offset, at any cells per rank.
    for (const std::uint64_t cells:
         {std::uint64_t{1}, std::uint64_t{1} << 10, std::uint64_t{1} << 20, std::uint64_t{1} << 30}) {
        EXPECT_EQ(wire_message_bytes(spike_codec(16), cells, true), 1u) << cells;
        EXPECT_EQ(wire_message_bytes(spike_codec(17), cells, true), 2u) << cells;
        EXPECT_EQ(wire_message_bytes(spike_codec(4096), cells, true), 2u) << cells;
    }
    EXPECT_EQ(wire_message_bytes(spike_codec(15), std::uint64_t{1} << 20, false), 4u); // the item in the bytes
    // OpenMPI's bound holds 2^31 - 2^16 cells; the standard's minimum (32767) none.
    EXPECT_TRUE(items_fit_tag(openmpi_max_tag - spike_item_tag_base + 1, openmpi_max_tag));
    EXPECT_FALSE(items_fit_tag(openmpi_max_tag - spike_item_tag_base + 2, openmpi_max_tag));
    EXPECT_FALSE(items_fit_tag(1, 32767));
    EXPECT_TRUE(items_fit_tag(1, spike_item_tag_base));
    EXPECT_FALSE(items_fit_tag(2, spike_item_tag_base));
}

TEST(spike_codec, malformed_single_spikes_are_refused) {
    const spike_codec codec(15);
    unsigned char wire[spike_codec::max_single_bytes] = {};
    const std::size_t size = codec.encode_single({999, 14}, 1000, 4, 5, wire);
    EXPECT_THROW(codec.decode_single(wire, size + 1, 1000, 4), internal_error) << "wrong size";
    EXPECT_THROW(codec.decode_single(wire, size, 0, 4), internal_error) << "empty item space";
    EXPECT_THROW(codec.decode_single(wire, size, 999, 4), internal_error) << "item outside a smaller space";
    EXPECT_THROW(codec.encode_single({1000, 0}, 1000, 4, 0, wire), internal_error) << "item outside";
    EXPECT_THROW(codec.encode_single({0, 15}, 1000, 4, 0, wire), internal_error) << "offset outside";
    EXPECT_THROW(codec.encode_single({0, 0}, 1000, 4, 16, wire), internal_error) << "tag too wide";
    EXPECT_THROW(codec.encode_single({0, 0}, 1000, 33, 0, wire), internal_error) << "more than 32 tag bits";
    std::memset(wire, 0xff, sizeof wire); // offset 15 at M = 15
    EXPECT_THROW(codec.decode_single(wire, codec.single_bytes(1024, 4), 1024, 4), internal_error) << "offset";
}
