// Allgather wire formats: both codecs round-trip, write exactly their entry size, full is little-endian.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "spikex/exchange/spike_codec.hpp"

using namespace spikex;

TEST(spike_codec, entry_sizes) {
    EXPECT_EQ(compressed_codec::entry_bytes, 2u);
    EXPECT_EQ(full_codec::entry_bytes, 8u);
}

TEST(spike_codec, compressed_round_trips_every_local_and_offset) {
    // All 256 x 256 combinations, packed back to back as in a send buffer.
    std::vector<unsigned char> buf(256 * 256 * compressed_codec::entry_bytes);
    for (std::uint32_t l = 0; l < 256; ++l) {
        for (std::uint32_t o = 0; o < 256; ++o) {
            compressed_codec::encode(buf.data() + (l * 256 + o) * compressed_codec::entry_bytes, l, o);
        }
    }
    for (std::uint32_t l = 0; l < 256; ++l) {
        for (std::uint32_t o = 0; o < 256; ++o) {
            local_index local = 12345;
            std::uint32_t offset = 12345;
            compressed_codec::decode(buf.data() + (l * 256 + o) * compressed_codec::entry_bytes, local, offset);
            ASSERT_EQ(local, l);
            ASSERT_EQ(offset, o);
        }
    }
}

TEST(spike_codec, compressed_layout_is_local_then_offset) {
    unsigned char buf[4] = {0xaa, 0xaa, 0xaa, 0xaa};
    compressed_codec::encode(buf + 1, 255, 7);
    EXPECT_EQ(buf[0], 0xaa); // nothing written outside the entry
    EXPECT_EQ(buf[1], 255);
    EXPECT_EQ(buf[2], 7);
    EXPECT_EQ(buf[3], 0xaa);
}

TEST(spike_codec, full_round_trips_large_gids_and_offsets) {
    const std::vector<std::uint32_t> gids = {0,     1,       255,         256,         65535,
                                             65536, 1000000, 0x7fffffffu, 0xfffffffeu, 0xffffffffu};
    const std::vector<std::uint32_t> offsets = {0, 1, 255, 256, 100000, 0xffffffffu};
    // Unaligned start, entries back to back.
    std::vector<unsigned char> buf(1 + gids.size() * offsets.size() * full_codec::entry_bytes);
    std::size_t pos = 1;
    for (auto g: gids) {
        for (auto o: offsets) {
            full_codec::encode(buf.data() + pos, g, o);
            pos += full_codec::entry_bytes;
        }
    }
    pos = 1;
    for (auto g: gids) {
        for (auto o: offsets) {
            gid_type gid = 0;
            std::uint32_t offset = 0;
            full_codec::decode(buf.data() + pos, gid, offset);
            EXPECT_EQ(gid, g);
            EXPECT_EQ(offset, o);
            pos += full_codec::entry_bytes;
        }
    }
}

TEST(spike_codec, full_layout_is_little_endian_gid_then_offset) {
    unsigned char buf[10];
    for (auto& b: buf) b = 0xaa;
    full_codec::encode(buf + 1, 0x04030201u, 0x08070605u);
    EXPECT_EQ(buf[0], 0xaa);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(buf[1 + i], i + 1) << "byte " << i;
    EXPECT_EQ(buf[9], 0xaa);
}
