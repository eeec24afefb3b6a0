#pragma once
// Counter-based random numbers: Random123 Philox4x32-10, one stream per (cell, purpose).
//
// Key = (seed, gid). Counter = (purpose, block index, sub-stream, 0). A block yields four
// 32-bit words x0..x3. Sub-stream separates independent uses of the same purpose for the
// same cell (e.g. two connection rules targeting one cell); it is 0 otherwise.
//
// Bits to numbers (the mapping is part of the model definition, do not change it):
//  * uniform double in [0, 1): two consecutive words a, b (a first);
//    u = (((uint64)a << 32 | b) >> 11) * 2^-53        (53 random bits)
//  * integer in [0, n): Lemire's multiply-shift with rejection on 32-bit words,
//    unbiased; words are consumed in order x0, x1, x2, x3, then the next block.
//  * random_block(key, purpose, index) gives random access to block `index`: the
//    interval draws of a cell use block k for its k-th interval (words x0, x1).
//  * step_uniform(key, purpose, n): one uniform per step n, from block n mod 2^32 of
//    sub-stream n / 2^32 (words x0, x1): draws keyed by the step need no stream state.
//  * connection_uniform(seed, target, purpose, connection, step, k): the k-th uniform of
//    one connection's spike (stochastic synapses), keyed by what identifies them on any
//    layout: key (seed, target gid); counter (purpose, the connection's index among its
//    target's inputs in creation order, emission step mod 2^32, (emission step / 2^32)
//    x 2^24 + k / 2), words x0, x1 for even k and x2, x3 for odd k. Room for steps below
//    2^40 and k below 2^25 (connection_draws_fit checks both).
#include <array>
#include <cmath>
#include <cstdint>

#include <Random123/philox.h>

#include "spikex/core/types.hpp"

namespace spikex {

enum class purpose : std::uint32_t {
    intervals = 1,      // intrinsic firing intervals
    connections = 2,    // incoming connections of the cell
    weights = 3,        // weights/delays of its incoming connections
    initial_state = 4,  // initial state
    external_input = 5, // Poisson input
    placement = 6,      // random_shuffle cell distribution
    relay = 7,          // two-phase multisend: which rank of each target group relays
    parameters = 8,     // per-cell parameters drawn from a distribution (sub-stream: the name)
    delays = 9,         // delays of its incoming connections drawn from a distribution
    device_input = 10,  // input devices' trains to the cell (sub-stream: its device input)
    rule_plan = 11,     // per-rule draws shared by all ranks (key: (seed, rule index))
    source_train = 12,  // a spike source cell's own train (spike_source_poisson, _gamma, ...)
    escape_noise = 13,  // a stochastic neuron's spike decision in each step (block: the step)
    // Stochastic synapses (connection_uniform; key: the target):
    transmission = 14,    // bernoulli_synapse: whether a spike crosses the connection
    site_recovery = 15,   // quantal_stp_synapse: whether each depleted release site has recovered
    quantal_release = 16, // quantal_stp_synapse: whether each available release site releases
    // A generated model's random functions (users' NESTML models, random_normal, ...):
    // block index the step's low 32 bits, sub-stream (draw << 16) | the step's next 16 bits,
    // the draw counting the cell's uniforms within the step.
    model_random = 17,
};

using random_words = std::array<std::uint32_t, 4>;

inline random_words random_block(std::uint32_t seed, gid_type gid, purpose p, std::uint32_t index,
                                 std::uint32_t substream = 0) {
    r123::Philox4x32 rng;
    r123::Philox4x32::ctr_type ctr = {{static_cast<std::uint32_t>(p), index, substream, 0}};
    r123::Philox4x32::key_type key = {{seed, gid}};
    auto r = rng(ctr, key);
    return {r[0], r[1], r[2], r[3]};
}

inline double uniform_from_words(std::uint32_t a, std::uint32_t b) {
    std::uint64_t bits = ((static_cast<std::uint64_t>(a) << 32) | b) >> 11;
    return static_cast<double>(bits) * 0x1.0p-53;
}

// The uniform of step n of one (cell, purpose) (random access: see the header).
inline double step_uniform(std::uint32_t seed, gid_type gid, purpose p, step_type n) {
    const auto s = static_cast<std::uint64_t>(n);
    const random_words w =
        random_block(seed, gid, p, static_cast<std::uint32_t>(s), static_cast<std::uint32_t>(s >> 32));
    return uniform_from_words(w[0], w[1]);
}

// Whether connection_uniform has room for emission step `step` and draws k < `draws`.
inline bool connection_draws_fit(step_type step, std::uint64_t draws) {
    return step >= 0 && step < (step_type(1) << 40) && draws <= (std::uint64_t(1) << 25);
}

// The k-th uniform of the spike a connection's source emitted at `step` (see the header).
inline double connection_uniform(std::uint32_t seed, gid_type target, purpose p, std::uint32_t connection,
                                 step_type step, std::uint32_t k) {
    const auto s = static_cast<std::uint64_t>(step);
    r123::Philox4x32 rng;
    r123::Philox4x32::ctr_type ctr = {{static_cast<std::uint32_t>(p), connection, static_cast<std::uint32_t>(s),
                                       static_cast<std::uint32_t>((s >> 32) << 24) | (k >> 1)}};
    r123::Philox4x32::key_type key = {{seed, target}};
    const auto r = rng(ctr, key);
    return (k & 1) == 0 ? uniform_from_words(r[0], r[1]) : uniform_from_words(r[2], r[3]);
}

// Unbiased integer in [0, n), n >= 1, from the words of `words` (anything with
// next_word()) (Lemire 2019, "Fast random integer generation in an interval").
template <typename Words>
std::uint32_t random_below(Words& words, std::uint32_t n) {
    std::uint64_t m = static_cast<std::uint64_t>(words.next_word()) * n;
    auto low = static_cast<std::uint32_t>(m);
    if (low < n) {
        std::uint32_t threshold = (0u - n) % n;
        while (low < threshold) {
            m = static_cast<std::uint64_t>(words.next_word()) * n;
            low = static_cast<std::uint32_t>(m);
        }
    }
    return static_cast<std::uint32_t>(m >> 32);
}

// Sequential stream of one (cell, purpose, sub-stream).
class random_stream {
public:
    random_stream(std::uint32_t seed, gid_type gid, purpose p, std::uint32_t substream = 0):
        seed_(seed), gid_(gid), purpose_(p), substream_(substream) {}

    std::uint32_t next_word() {
        if (used_ == 4) {
            words_ = random_block(seed_, gid_, purpose_, block_++, substream_);
            used_ = 0;
        }
        return words_[used_++];
    }

    double next_uniform() {
        std::uint32_t a = next_word();
        std::uint32_t b = next_word();
        return uniform_from_words(a, b);
    }

    // Standard normal by Box-Muller from two uniforms u1, u2 (u1 first), both halves used:
    // r = sqrt(-2 ln(1 - u1)), a = 2 pi u2; the first call returns r cos(a), the next
    // r sin(a) (no words drawn), then the next pair.
    double next_normal() {
        if (spare_ready_) {
            spare_ready_ = false;
            return spare_;
        }
        const double u1 = next_uniform();
        const double u2 = next_uniform();
        const double r = std::sqrt(-2.0 * std::log(1.0 - u1));
        const double a = 2.0 * 3.14159265358979323846 * u2;
        spare_ = r * std::sin(a);
        spare_ready_ = true;
        return r * std::cos(a);
    }

    // Unbiased integer in [0, n), n >= 1 (random_below).
    std::uint32_t next_below(std::uint32_t n) { return random_below(*this, n); }

    // Words drawn so far, and moving to a position (checkpoints). A pending normal half
    // (next_normal) is not part of the position: streams saved this way draw uniforms only.
    std::uint64_t position() const { return 4 * std::uint64_t(block_) - std::uint64_t(4 - used_); }
    void seek(std::uint64_t words) {
        block_ = static_cast<std::uint32_t>(words / 4);
        used_ = static_cast<int>(words % 4);
        if (used_ == 0) {
            used_ = 4; // the next word starts block `block_`
        } else {
            words_ = random_block(seed_, gid_, purpose_, block_++, substream_);
        }
        spare_ready_ = false;
    }

private:
    std::uint32_t seed_;
    gid_type gid_;
    purpose purpose_;
    std::uint32_t substream_;
    std::uint32_t block_ = 0;
    random_words words_{};
    int used_ = 4;
    double spare_ = 0.0;
    bool spare_ready_ = false;
};

} // namespace spikex
