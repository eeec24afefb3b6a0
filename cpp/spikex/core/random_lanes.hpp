#pragma once
// random_block (random.hpp) for many cells at once: the same Philox4x32-10 words, computed
// side by side. A per-cell draw in a loop over cells (a Poisson count per cell and step)
// otherwise waits on one block's ten dependent rounds at a time.
//  * random_blocks<L>: on arrays over L cells, for the compiler to vectorise where the
//    build's target allows (the x86-64 baseline does not: scalar rounds);
//  * random_blocks_columns: any number of keys, in AVX-512 or AVX2 registers chosen at run
//    time (random_lanes.cpp), the words in columns.
// Philox4x32-10 as Salmon et al. (SC'11) define it and Random123 implements it; equal to
// random_block word for word (tests/cpp/test_random.cpp).
#include <array>
#include <cstddef>
#include <cstdint>

#include "spikex/core/lane_isa.hpp"
#include "spikex/core/random.hpp"

namespace spikex {

template <std::size_t L>
using random_words_lanes = std::array<std::array<std::uint32_t, L>, 4>; // word, then cell

// The blocks of L (gid, index, substream) keys for one (seed, purpose).
template <std::size_t L>
random_words_lanes<L> random_blocks(std::uint32_t seed, const std::array<gid_type, L>& gid, purpose p,
                                    const std::array<std::uint32_t, L>& index,
                                    const std::array<std::uint32_t, L>& substream) {
    constexpr std::uint64_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u; // the round multipliers
    constexpr std::uint32_t W0 = 0x9E3779B9u, W1 = 0xBB67AE85u; // the key's Weyl increments
    random_words_lanes<L> c;
    std::array<std::uint32_t, L> k1;
    for (std::size_t l = 0; l < L; ++l) {
        c[0][l] = static_cast<std::uint32_t>(p);
        c[1][l] = index[l];
        c[2][l] = substream[l];
        c[3][l] = 0;
        k1[l] = static_cast<std::uint32_t>(gid[l]);
    }
    std::uint32_t k0 = seed;
    for (int round = 0; round < 10; ++round) {
        if (round > 0) {
            k0 += W0;
            for (std::size_t l = 0; l < L; ++l) k1[l] += W1;
        }
        for (std::size_t l = 0; l < L; ++l) {
            const std::uint64_t p0 = M0 * c[0][l], p1 = M1 * c[2][l];
            const std::uint32_t x0 = static_cast<std::uint32_t>(p1 >> 32) ^ c[1][l] ^ k0;
            const std::uint32_t x2 = static_cast<std::uint32_t>(p0 >> 32) ^ c[3][l] ^ k1[l];
            c[0][l] = x0;
            c[1][l] = static_cast<std::uint32_t>(p1);
            c[2][l] = x2;
            c[3][l] = static_cast<std::uint32_t>(p0);
        }
    }
    return c;
}

// Keys (seed, gid[i]) and counters (p, index, substream[i], 0) for i < count; substream
// null: substream_all for every i.
struct random_keys {
    std::uint32_t seed;
    purpose p;
    std::uint32_t index;
    const gid_type* gid;
    const std::uint32_t* substream = nullptr;
    std::uint32_t substream_all = 0;
    std::uint32_t substream_of(std::size_t i) const { return substream ? substream[i] : substream_all; }
};
// Word j of block i goes to word[j][i].
struct random_columns {
    std::array<std::uint32_t*, 4> word;
};
// The blocks of keys 0 .. count-1, word for word random_block's, in columns. `isa`: the
// machine's best by default (tests pick each one the machine runs).
void random_blocks_columns(const random_keys& keys, std::size_t count, const random_columns& out,
                           lane_isa isa = lane_isa::best);

// The same with one index and substream for all cells gid[0 .. L-1].
template <std::size_t L>
random_words_lanes<L> random_blocks(std::uint32_t seed, const std::array<gid_type, L>& gid, purpose p,
                                    std::uint32_t index, std::uint32_t substream = 0) {
    std::array<std::uint32_t, L> indices, substreams;
    indices.fill(index);
    substreams.fill(substream);
    return random_blocks<L>(seed, gid, p, indices, substreams);
}

} // namespace spikex
