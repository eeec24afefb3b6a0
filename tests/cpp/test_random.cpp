// The Philox streams: reproducible, independent per (cell, purpose), documented mapping.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "spikex/core/random.hpp"
#include "spikex/core/random_batch.hpp"
#include "spikex/core/random_lanes.hpp"

using namespace spikex;

TEST(random, same_key_and_counter_give_same_words) {
    EXPECT_EQ(random_block(1, 42, purpose::intervals, 7), random_block(1, 42, purpose::intervals, 7));
}

TEST(random, streams_differ_by_seed_gid_purpose_index_and_substream) {
    auto base = random_block(1, 42, purpose::intervals, 7);
    EXPECT_NE(base, random_block(2, 42, purpose::intervals, 7));
    EXPECT_NE(base, random_block(1, 43, purpose::intervals, 7));
    EXPECT_NE(base, random_block(1, 42, purpose::connections, 7));
    EXPECT_NE(base, random_block(1, 42, purpose::intervals, 8));
    EXPECT_NE(base, random_block(1, 42, purpose::intervals, 7, 1));
}

TEST(random, known_answer_of_philox4x32_10) {
    // Random123's published known-answer test: key and counter all zero.
    r123::Philox4x32 rng;
    r123::Philox4x32::ctr_type c = {{0, 0, 0, 0}};
    r123::Philox4x32::key_type k = {{0, 0}};
    auto r = rng(c, k);
    EXPECT_EQ(r[0], 0x6627e8d5u);
    EXPECT_EQ(r[1], 0xe169c58du);
    EXPECT_EQ(r[2], 0xbc57ac4cu);
    EXPECT_EQ(r[3], 0x9b00dbd8u);
}

TEST(random, uniform_mapping_uses_53_bits) {
    EXPECT_EQ(uniform_from_words(0, 0), 0.0);
    EXPECT_LT(uniform_from_words(0xffffffffu, 0xffffffffu), 1.0);
    EXPECT_DOUBLE_EQ(uniform_from_words(0x80000000u, 0), 0.5);
}

TEST(random, sequential_stream_is_reproducible_and_uniform) {
    random_stream a(5, 9, purpose::connections), b(5, 9, purpose::connections);
    double sum = 0;
    const int n = 100000;
    for (int i = 0; i < n; ++i) {
        double u = a.next_uniform();
        EXPECT_EQ(u, b.next_uniform());
        ASSERT_GE(u, 0.0);
        ASSERT_LT(u, 1.0);
        sum += u;
    }
    EXPECT_NEAR(sum / n, 0.5, 0.005);
}

TEST(random, next_below_stays_in_range_and_covers_it) {
    random_stream rng(1, 0, purpose::connections);
    std::set<std::uint32_t> seen;
    for (int i = 0; i < 10000; ++i) {
        auto v = rng.next_below(7);
        ASSERT_LT(v, 7u);
        seen.insert(v);
    }
    EXPECT_EQ(seen.size(), 7u);
}

TEST(random, blocks_of_eight_cells_are_random_block_word_for_word) {
    for (std::uint32_t seed: {0u, 1u, 12345u, 0xFFFFFFFFu}) {
        for (std::uint32_t index: {0u, 1u, 777u, 0x80000000u}) {
            std::array<gid_type, 8> gids;
            for (std::size_t l = 0; l < 8; ++l) gids[l] = static_cast<gid_type>(l * 1000003u + index);
            const auto lanes = random_blocks<8>(seed, gids, purpose::external_input, index, index >> 3);
            for (std::size_t l = 0; l < 8; ++l) {
                const random_words one = random_block(seed, gids[l], purpose::external_input, index, index >> 3);
                for (std::size_t w = 0; w < 4; ++w) ASSERT_EQ(lanes[w][l], one[w]) << seed << " " << index << " " << l;
            }
        }
    }
}

TEST(random, block_columns_are_random_block_word_for_word_on_every_instruction_set) {
    // The Poisson drive's blocks (random_lanes.cpp): AVX-512, AVX2 and scalar code give
    // random_block's words, for counts that are not multiples of the vector width and with
    // per-key or shared sub-streams.
    std::vector<lane_isa> isas = {lane_isa::scalar, lane_isa::best};
    if (best_lane_isa() == lane_isa::avx512) isas.push_back(lane_isa::avx2);
    for (lane_isa isa: isas) {
        for (std::size_t count: {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{16}, std::size_t{37}}) {
            for (bool own_substreams: {false, true}) {
                std::vector<gid_type> gids(count);
                std::vector<std::uint32_t> substreams(count);
                for (std::size_t i = 0; i < count; ++i) {
                    gids[i] = static_cast<gid_type>(i * 2654435761u + 17u);
                    substreams[i] = static_cast<std::uint32_t>(i % 3);
                }
                std::array<std::vector<std::uint32_t>, 4> words;
                for (auto& w: words) w.assign(count + 1, 0xDEADBEEFu); // one past the end: untouched
                const random_keys keys{0xFFFFFFF0u,
                                       purpose::device_input,
                                       0x80000001u,
                                       gids.data(),
                                       own_substreams ? substreams.data() : nullptr,
                                       5u};
                random_blocks_columns(keys, count,
                                      {{words[0].data(), words[1].data(), words[2].data(), words[3].data()}}, isa);
                for (std::size_t i = 0; i < count; ++i) {
                    const random_words one =
                        random_block(keys.seed, gids[i], keys.p, keys.index, own_substreams ? substreams[i] : 5u);
                    for (std::size_t j = 0; j < 4; ++j)
                        ASSERT_EQ(words[j][i], one[j]) << static_cast<int>(isa) << " " << count << " " << i;
                }
                for (std::size_t j = 0; j < 4; ++j) ASSERT_EQ(words[j][count], 0xDEADBEEFu);
            }
        }
    }
}

TEST(random, batched_stream_is_random_stream_word_for_word) {
    // The connection draws' batched stream (16 blocks at a time, AVX-512 where the machine
    // has it) gives random_stream's words and next_below's numbers, in the same order.
    for (std::uint32_t seed: {0u, 7u, 0xFFFFFFFFu}) {
        for (gid_type gid: {0u, 123457u, 0xFFFFFFF0u}) {
            for (std::uint32_t substream: {0u, 3u}) {
                random_stream plain(seed, gid, purpose::connections, substream);
                batched_random_stream batched(seed, gid, purpose::connections, substream);
                for (int k = 0; k < 200; ++k) ASSERT_EQ(batched.next_word(), plain.next_word()) << k;
                for (std::uint32_t n: {1u, 2u, 9000u, 89999u, 0x80000001u, 0xFFFFFFFFu}) {
                    for (int k = 0; k < 100; ++k) ASSERT_EQ(batched.next_below(n), plain.next_below(n)) << n;
                }
            }
        }
    }
}

TEST(random, batched_fills_are_next_below_number_for_number) {
    // fill_below (a batch at a time, one call at a time where a word may be rejected) gives
    // next_below's numbers and leaves the stream where the calls would: bounds where
    // rejections are rare (11,250), frequent (2^31 + 1: about half of all words) or
    // impossible (1, 2^31), counts across batch ends, and a word drawn in between.
    for (std::uint32_t n: {1u, 11250u, 0x80000000u, 0x80000001u, 0xFFFFFFFFu}) {
        random_stream plain(5, 77, purpose::connections, 1);
        batched_random_stream batched(5, 77, purpose::connections, 1);
        for (std::size_t count: {std::size_t{1}, std::size_t{63}, std::size_t{64}, std::size_t{65}, std::size_t{1000},
                                 std::size_t{0}, std::size_t{11250}}) {
            std::vector<std::uint32_t> filled(count);
            batched.fill_below(n, filled.data(), count);
            for (std::size_t k = 0; k < count; ++k) ASSERT_EQ(filled[k], plain.next_below(n)) << n << " " << k;
            ASSERT_EQ(batched.next_word(), plain.next_word()) << n;
        }
    }
}

TEST(random, stream_blocks_are_random_block_word_for_word_across_the_index_wrap) {
    std::array<std::uint32_t, 4 * random_batch_blocks> words;
    for (std::uint32_t first: {0u, 5u, 0xFFFFFFF8u}) { // the last: indices wrap to 0
        stream_blocks(99u, 4242u, purpose::weights, first, 2u, words.data());
        for (std::uint32_t k = 0; k < random_batch_blocks; ++k) {
            const random_words one = random_block(99u, 4242u, purpose::weights, first + k, 2u);
            for (std::size_t w = 0; w < 4; ++w) ASSERT_EQ(words[4 * k + w], one[w]) << first << " " << k;
        }
    }
}
