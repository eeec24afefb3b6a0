#pragma once
// A random_stream's words computed many blocks at a time, for long runs of draws (a
// target's thousands of sources): the same words in the same order as random_stream
// gives, from a Philox on 16 counters at once in AVX-512 registers (one counter per lane;
// other machines: one block at a time, as random_stream). random_stream computes one
// block per four words, a chain of ten dependent rounds the core overlaps with little
// else. (random_lanes.hpp does the same across cells: one block each of many streams.)
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "spikex/core/random.hpp"
#include "spikex/core/types.hpp"

namespace spikex {

inline constexpr std::uint32_t random_batch_blocks = 16;

// Blocks first .. first + random_batch_blocks - 1 of the stream (seed, gid, p, substream)
// (block indices wrap at 2^32 as random_stream's do): words[4k + j] is word j of block
// first + k, as random_block gives it.
void stream_blocks(std::uint32_t seed, gid_type gid, purpose p, std::uint32_t first, std::uint32_t substream,
                   std::uint32_t* words);

// random_stream's next_word and next_below, over batches of blocks.
class batched_random_stream {
public:
    batched_random_stream(std::uint32_t seed, gid_type gid, purpose p, std::uint32_t substream = 0):
        seed_(seed), gid_(gid), purpose_(p), substream_(substream) {}

    std::uint32_t next_word() {
        if (used_ == words_.size()) refill();
        return words_[used_++];
    }
    std::uint32_t next_below(std::uint32_t n) { return random_below(*this, n); }

    // out[0 .. count) = next_below(n) each, word for word as those calls would give them,
    // a batch of words at a time: a batch in which no word can be rejected (random_below
    // looks again only when the low half of word * n is below n: about n / 2^32 of words)
    // is a loop the compiler vectorises; any other goes one call at a time.
    void fill_below(std::uint32_t n, std::uint32_t* out, std::size_t count) {
        std::size_t k = 0;
        while (k < count) {
            if (used_ == words_.size()) refill();
            const std::size_t take = std::min(count - k, words_.size() - used_);
            const std::uint32_t* w = words_.data() + used_;
            bool maybe_rejected = false;
            for (std::size_t j = 0; j < take; ++j) {
                const std::uint64_t m = std::uint64_t{w[j]} * n;
                out[k + j] = static_cast<std::uint32_t>(m >> 32);
                maybe_rejected |= static_cast<std::uint32_t>(m) < n;
            }
            if (maybe_rejected) {
                for (std::size_t j = 0; j < take; ++j) out[k + j] = next_below(n);
            } else {
                used_ += take;
            }
            k += take;
        }
    }

private:
    void refill() {
        stream_blocks(seed_, gid_, purpose_, block_, substream_, words_.data());
        block_ += random_batch_blocks;
        used_ = 0;
    }

    std::uint32_t seed_;
    gid_type gid_;
    purpose purpose_;
    std::uint32_t substream_;
    std::uint32_t block_ = 0;
    std::size_t used_ = 4 * random_batch_blocks;
    std::array<std::uint32_t, 4 * random_batch_blocks> words_{};
};

} // namespace spikex
