#include "spikex/exchange/spike_codec.hpp"

#include <algorithm>

#include "spikex/core/errors.hpp"

namespace spikex {

void throw_malformed_block(const char* why) { throw internal_error(std::string("spike wire block: ") + why); }

namespace {

// Appends bits least significant first into a buffer sized in advance.
class bit_writer {
public:
    explicit bit_writer(unsigned char* out): out_(out) {}
    void put(std::uint64_t v, unsigned n) { // n <= 64
        if (n > 32) {
            put32(v & 0xffffffffu, 32);
            put32(v >> 32, n - 32);
        } else {
            put32(v, n);
        }
    }
    void ones(unsigned n) {
        while (n >= 32) {
            put32(0xffffffffu, 32);
            n -= 32;
        }
        put32((std::uint64_t{1} << n) - 1, n);
    }
    // Pads with 1-bits to a whole byte and writes what is left.
    void finish() {
        ones((8 - bits_ % 8) % 8);
        while (bits_ > 0) {
            *out_++ = static_cast<unsigned char>(acc_);
            acc_ >>= 8;
            bits_ -= 8;
        }
    }

private:
    void put32(std::uint64_t v, unsigned n) { // n <= 32, v < 2^n
        acc_ |= v << bits_;
        bits_ += n;
        if (bits_ >= 32) {
            const auto word = static_cast<std::uint32_t>(acc_);
            std::memcpy(out_, &word, 4); // little-endian on every supported target
            out_ += 4;
            acc_ >>= 32;
            bits_ -= 32;
        }
    }
    unsigned char* out_;
    std::uint64_t acc_ = 0;
    unsigned bits_ = 0;
};

constexpr unsigned header_bits = spike_codec::mode_bits + spike_codec::parameter_bits;

std::uint64_t rice_bits(std::uint64_t gap, unsigned k) {
    const std::uint64_t q = gap >> k;
    if (q < spike_codec::escape_ones) return q + 1 + k;
    return spike_codec::escape_ones + spike_codec::parameter_bits + (spike_codec::bits_for(gap) - 1);
}

} // namespace

std::size_t spike_codec::encode(std::span<const wire_spike> spikes, std::vector<unsigned char>& out) const {
    const std::size_t n = spikes.size();
    if (n == 0) return 0;
    std::uint32_t max_item = 0;
    std::uint64_t max_key = 0;
    for (const auto& s: spikes) {
        max_item = std::max(max_item, s.item);
        max_key = std::max(max_key, std::uint64_t(s.item) * steps_ + s.offset);
    }
    // Packed: the item width covers the largest item; entries of at least 8 bits.
    const unsigned item_bits = packed_item_bits(max_item);
    const std::uint64_t packed = header_bits + n * std::uint64_t(item_bits + offset_bits_);

    // Gaps: about n (k + 2) bits with k = floor(log2(mean gap)); only worth a sort when the
    // estimate beats packed.
    const std::uint64_t mean_gap = max_key / n;
    const unsigned k_estimate = mean_gap == 0 ? 0 : bits_for(mean_gap) - 1;
    const std::uint64_t estimate = header_bits + n * std::uint64_t(k_estimate + 2);

    unsigned k = 0;
    std::uint64_t gaps_bits = packed;
    thread_local std::vector<std::uint64_t> keys;
    if (estimate < packed) {
        keys.resize(n);
        for (std::size_t i = 0; i < n; ++i) keys[i] = std::uint64_t(spikes[i].item) * steps_ + spikes[i].offset;
        if (!std::is_sorted(keys.begin(), keys.end())) std::sort(keys.begin(), keys.end());
        // The exact cost of the neighbouring parameters; the smallest wins (lower k on ties).
        const unsigned lowest = k_estimate == 0 ? 0 : k_estimate - 1;
        const unsigned highest = std::min(k_estimate + 1, 63u);
        for (unsigned candidate = lowest; candidate <= highest; ++candidate) {
            std::uint64_t bits = header_bits, previous = 0;
            for (std::uint64_t key: keys) {
                bits += rice_bits(key - previous, candidate);
                previous = key;
            }
            if (bits < gaps_bits) {
                gaps_bits = bits;
                k = candidate;
            }
        }
    }

    const bool use_gaps = gaps_bits < packed;
    const std::uint64_t bits = use_gaps ? gaps_bits : packed;
    const std::size_t bytes = (bits + 7) / 8;
    const std::size_t start = out.size();
    out.resize(start + bytes + 8); // slack: the writer stores whole 32-bit words
    bit_writer w(out.data() + start);
    if (use_gaps) {
        w.put(1, mode_bits);
        w.put(k, parameter_bits);
        std::uint64_t previous = 0;
        for (std::uint64_t key: keys) {
            const std::uint64_t gap = key - previous;
            previous = key;
            const std::uint64_t q = gap >> k;
            if (q < escape_ones) {
                w.ones(static_cast<unsigned>(q));
                w.put(0, 1);
                w.put(gap & ((std::uint64_t{1} << k) - 1), k);
            } else {
                const unsigned length = bits_for(gap);
                w.ones(escape_ones);
                w.put(length - 1, parameter_bits);
                w.put(gap & ((std::uint64_t{1} << (length - 1)) - 1), length - 1);
            }
        }
    } else {
        w.put(0, mode_bits);
        w.put(item_bits, parameter_bits);
        for (const auto& s: spikes) w.put(s.item | (std::uint64_t(s.offset) << item_bits), item_bits + offset_bits_);
    }
    w.finish();
    out.resize(start + bytes);
    return bytes;
}

std::size_t spike_codec::encode_packed(wire_spike spike, unsigned char* out) const {
    const unsigned item_bits = packed_item_bits(spike.item);
    unsigned char scratch[max_packed_bytes + 8]; // the writer stores whole 32-bit words
    bit_writer w(scratch);
    w.put(0, mode_bits);
    w.put(item_bits, parameter_bits);
    w.put(spike.item | (std::uint64_t(spike.offset) << item_bits), item_bits + offset_bits_);
    w.finish();
    const std::size_t bytes = packed_bytes(spike.item);
    std::memcpy(out, scratch, bytes);
    return bytes;
}

} // namespace spikex
