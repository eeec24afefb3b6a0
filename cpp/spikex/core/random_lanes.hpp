#pragma once
// random_block (random.hpp) for L cells at once: the same Philox4x32-10 words, computed on
// arrays over the cells so that the compiler turns the rounds into vector multiplies
// (32 x 32 -> 64 bits) and xors. A per-cell draw in a loop over cells (a Poisson count per
// cell and step) otherwise waits on one block's ten dependent rounds at a time.
// Philox4x32-10 as Salmon et al. (SC'11) define it and Random123 implements it; equal to
// random_block word for word (tests/cpp/test_random.cpp).
#include <array>
#include <cstddef>
#include <cstdint>

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
