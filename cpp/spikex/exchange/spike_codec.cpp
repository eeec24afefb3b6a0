#include "spikex/exchange/spike_codec.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <utility>

#include "spikex/core/errors.hpp"

namespace spikex {

void throw_malformed_block(const char* why) { throw internal_error(std::string("spike wire block: ") + why); }

namespace {

// Appends bits least significant first into a buffer sized in advance, with 8 bytes of
// slack: every put stores the whole 64-bit accumulator and keeps only its last partial
// byte, so there is no data-dependent branch per put (one per whole word mispredicted
// about every third spike).
class bit_writer {
public:
    explicit bit_writer(unsigned char* out): begin_(out), out_(out) {}
    void put(std::uint64_t v, unsigned n) { // n <= 64, v < 2^n
        if (n > 56) {
            put_short(v & 0xffffffffu, 32);
            put_short(v >> 32, n - 32);
        } else {
            put_short(v, n);
        }
    }
    void ones(unsigned n) {
        while (n >= 32) {
            put_short(0xffffffffu, 32);
            n -= 32;
        }
        put_short((std::uint64_t{1} << n) - 1, n);
    }
    std::uint64_t written() const { return std::uint64_t(out_ - begin_) * 8 + bits_; }
    // Pads with 1-bits to a whole byte.
    void finish() { ones((8 - bits_ % 8) % 8); }

    // n <= 56, v < 2^n.
    void put_short(std::uint64_t v, unsigned n) {
        acc_ |= v << bits_; // bits_ < 8: fits
        bits_ += n;
        std::memcpy(out_, &acc_, 8); // little-endian on every supported target
        const unsigned whole = bits_ >> 3;
        out_ += whole;
        acc_ >>= whole * 8; // whole <= 7: bits_ + n <= 63
        bits_ &= 7;
    }

private:
    unsigned char* begin_;
    unsigned char* out_;
    std::uint64_t acc_ = 0;
    unsigned bits_ = 0;
};

constexpr unsigned header_bits = spike_codec::long_header_bits; // gaps, or packed at the block's width

void insertion_sort(std::uint64_t* first, std::uint64_t* last) {
    for (std::uint64_t* i = first + 1; i < last; ++i) {
        const std::uint64_t key = *i;
        std::uint64_t* j = i;
        for (; j > first && *(j - 1) > key; --j) *j = *(j - 1);
        *j = key;
    }
}

// Sorts keys < 2^bits ascending in linear time: least significant digit first radix sort
// with digits of about log2(n) bits (at most 12: the counts stay in L1), all digits'
// counts taken in one pass. Keys come in emission order, so a comparison sort would cost
// O(log n) per spike, and a bucket pass followed by sorting each bucket mispredicts a
// branch per bucket.
void sort_keys(std::uint64_t* keys, std::size_t n, unsigned bits) {
    if (n < 32) {
        insertion_sort(keys, keys + n);
        return;
    }
    const unsigned digit_bits = std::clamp(spike_codec::bits_for(n), 4u, 12u);
    const unsigned digits = (bits + digit_bits - 1) / digit_bits;
    if (digits > 4) { // keys wider than 48 bits: rare (huge item spaces), comparison sort
        std::sort(keys, keys + n);
        return;
    }
    const std::size_t radix = std::size_t{1} << digit_bits;
    const std::uint64_t mask = radix - 1;
    thread_local std::vector<std::uint64_t> scratch;
    thread_local std::vector<std::uint32_t> counts;
    scratch.resize(n);
    counts.assign(radix * digits, 0);
    for (std::size_t i = 0; i < n; ++i) {
        for (unsigned d = 0; d < digits; ++d) ++counts[d * radix + ((keys[i] >> (d * digit_bits)) & mask)];
    }
    std::uint64_t* from = keys;
    std::uint64_t* to = scratch.data();
    for (unsigned d = 0; d < digits; ++d) {
        std::uint32_t* c = counts.data() + d * radix;
        std::uint32_t sum = 0;
        for (std::size_t b = 0; b < radix; ++b) sum += std::exchange(c[b], sum); // exclusive prefix sums
        const unsigned shift = d * digit_bits;
        for (std::size_t i = 0; i < n; ++i) to[c[(from[i] >> shift) & mask]++] = from[i];
        std::swap(from, to);
    }
    if (from != keys) std::memcpy(keys, from, n * sizeof *keys);
}

// The least k with n 2^(k + 1) >= S (at most 63): the Rice parameter of least f(k) in
// encode. Neither this nor gaps_beat_packed is inlined: inlined, GCC kept the gaps loop's
// bit writer in memory (a 64-spike block: 218 against 195 ns to encode).
__attribute__((noinline)) unsigned gaps_parameter(std::uint64_t n, std::uint64_t largest_key) {
    // n < 2^bits(n) and S >= 2^(bits(S) - 1): the answer is bits(S) - bits(n) - 1 or one more.
    const int width_gap = int(std::bit_width(largest_key)) - int(std::bit_width(n)) - 1;
    unsigned k = width_gap > 0 ? unsigned(width_gap) : 0;
    auto enough = [&](unsigned k) { return k + 1 >= 64 || (unsigned __int128)n << (k + 1) >= largest_key; };
    while (k < 63 && !enough(k)) ++k;
    return k;
}

// Whether header + n (k + 1) + S / 2^k < packed bits, in exact integer arithmetic:
// (packed - header - n (k + 1)) 2^k > S.
__attribute__((noinline)) bool gaps_beat_packed(std::uint64_t n, std::uint64_t largest_key, unsigned k,
                                                std::uint64_t packed) {
    const unsigned __int128 fixed = (unsigned __int128)n * (k + 1) + header_bits;
    if (fixed >= packed) return false;
    return ((unsigned __int128)(packed - fixed) << k) > largest_key;
}

} // namespace

std::size_t spike_codec::encode(std::span<const wire_spike> spikes, std::uint64_t items,
                                std::vector<unsigned char>& out, std::span<const wire_field> prefix,
                                std::uint64_t* sorts) const {
    const std::size_t n = spikes.size();
    if (n == 0) return 0;
    std::uint64_t prefix_bits = 0;
    for (const wire_field& f: prefix) prefix_bits += f.bits;
    auto put_prefix = [&](bit_writer& w) {
        for (const wire_field& f: prefix) w.put(f.value, f.bits);
    };
    // One pass: the ranges, and the keys gaps mode needs (with whether they already ascend,
    // as they do for a rank's own spikes in emission order).
    thread_local std::vector<std::uint64_t> key_buffer;
    if (key_buffer.size() < n) key_buffer.resize(n);
    std::uint64_t* const keys = key_buffer.data();
    std::uint32_t max_item = 0, max_offset = 0;
    std::uint64_t max_key = 0;
    bool ascending = true;
    for (std::size_t i = 0; i < n; ++i) {
        const wire_spike s = spikes[i];
        const std::uint64_t key = std::uint64_t(s.offset) * items + s.item;
        keys[i] = key;
        max_item = std::max(max_item, s.item);
        max_offset = std::max(max_offset, s.offset);
        ascending &= key >= max_key;
        max_key = std::max(max_key, key);
    }
    if (max_item >= items || max_offset >= steps_) {
        throw internal_error("spike wire block: item " + std::to_string(max_item) + " or offset " +
                             std::to_string(max_offset) + " outside " + std::to_string(items) + " items x " +
                             std::to_string(steps_) + " steps");
    }
    // Packed: the item width covers the item space (short header) or the block's largest
    // item (long header), whichever is smaller; entries of at least 8 bits.
    const std::uint64_t short_packed = short_packed_bits(n, items);
    const std::uint64_t packed = packed_bits(n, max_item, items);
    const bool short_header = packed == short_packed;
    const unsigned item_bits = short_header ? packed_item_bits(items - 1) : packed_item_bits(max_item);

    // Gaps: the gaps sum to the largest key S, so with Rice parameter k a block costs about
    // f(k) = n (k + 1) + S / 2^k bits. f is convex and f(k + 1) < f(k) exactly when
    // n 2^(k + 1) < S, so the best k is the least with n 2^(k + 1) >= S (a function of n
    // and S only, so the same set gives the same bytes), found from the bit widths and
    // checked in integers (no floating point, no division: a block's fixed cost). A sort is
    // only worth it when f(k) + the header beats packed.
    const unsigned k = gaps_parameter(n, max_key);
    const std::size_t start = out.size();
    if (gaps_beat_packed(n, max_key, k, packed)) {
        if (!ascending) {
            sort_keys(keys, n, bits_for(max_key));
            if (sorts) ++*sorts;
        }
        // Written into scratch sized for the worst case (32 + 6 + 63 bits per gap, an escape,
        // plus slack for whole-word stores), then copied: no zero-filling of that bound.
        thread_local std::vector<unsigned char> scratch;
        const std::size_t bound =
            (prefix_bits + header_bits + n * std::uint64_t(escape_ones + parameter_bits + 63) + 7) / 8 + 8;
        if (scratch.size() < bound) scratch.resize(bound);
        bit_writer w(scratch.data());
        put_prefix(w);
        w.put(0b11, 2); // long header, gaps
        w.put(k, parameter_bits);
        const std::uint64_t low_mask = (std::uint64_t{1} << k) - 1;
        // A gap's code: q 1-bits, a 0-bit, the k low bits (q + 1 + k bits).
        auto rice = [&](std::uint64_t gap, std::uint64_t q) {
            return ((std::uint64_t{1} << q) - 1) | ((gap & low_mask) << (q + 1));
        };
        auto put_gap = [&](std::uint64_t gap) {
            const std::uint64_t q = gap >> k;
            if (q < escape_ones && q + 1 + k <= 56) { // one store
                w.put_short(rice(gap, q), static_cast<unsigned>(q + 1 + k));
            } else if (q < escape_ones) {
                w.ones(static_cast<unsigned>(q));
                w.put(0, 1);
                w.put(gap & low_mask, k);
            } else {
                const unsigned length = bits_for(gap);
                w.ones(escape_ones);
                w.put(length - 1, parameter_bits);
                w.put(gap & ((std::uint64_t{1} << (length - 1)) - 1), length - 1);
            }
        };
        // Two gaps per store when both codes fit 56 bits together (the rule for a block
        // worth coding as gaps): the writer's store is a dependency chain, one per store.
        const std::uint64_t* key = keys;
        std::uint64_t previous = 0;
        std::size_t i = 0;
        for (; i + 1 < n; i += 2) {
            const std::uint64_t g1 = key[i] - previous, g2 = key[i + 1] - key[i];
            previous = key[i + 1];
            const std::uint64_t q1 = g1 >> k, q2 = g2 >> k;
            if (q1 < escape_ones && q2 < escape_ones && q1 + q2 + 2 * (k + 1) <= 56) {
                const auto n1 = static_cast<unsigned>(q1 + 1 + k), n2 = static_cast<unsigned>(q2 + 1 + k);
                w.put_short(rice(g1, q1) | (rice(g2, q2) << n1), n1 + n2);
            } else {
                put_gap(g1);
                put_gap(g2);
            }
        }
        if (i < n) put_gap(key[i] - previous);
        const std::uint64_t bits = w.written() - prefix_bits;
        if (bits < packed) {
            w.finish();
            const std::size_t bytes = (prefix_bits + bits + 7) / 8;
            // Grown as the packed path grows it (8 bytes of slack, then cut): a buffer's
            // capacity then does not depend on the mode, as the dry run's memory model
            // assumes (dryrun/exchange_counts.cpp, vector_growth::append_block).
            out.resize(start + bytes + 8);
            std::memcpy(out.data() + start, scratch.data(), bytes);
            out.resize(start + bytes);
            return bytes;
        }
        // gaps lost to packed after all: write that instead
    }
    const std::size_t bytes = (prefix_bits + packed + 7) / 8;
    out.resize(start + bytes + 8); // slack: the writer stores whole 32-bit words
    bit_writer w(out.data() + start);
    put_prefix(w);
    if (short_header) {
        w.put(0, short_header_bits);
    } else {
        w.put(0b01, 2); // long header, packed
        w.put(item_bits, parameter_bits);
    }
    const unsigned width = item_bits + offset_bits_;
    auto entry = [&](const wire_spike& s) { return s.item | (std::uint64_t(s.offset) << item_bits); };
    std::size_t i = 0;
    if (2 * width <= 56) { // two entries per store: the writer's store is a dependency chain
        for (; i + 1 < n; i += 2) w.put_short(entry(spikes[i]) | entry(spikes[i + 1]) << width, 2 * width);
    }
    for (; i < n; ++i) w.put(entry(spikes[i]), width);
    w.finish();
    out.resize(start + bytes);
    return bytes;
}

void spike_codec::throw_single_outside(wire_spike spike, std::uint64_t items, unsigned tag_bits,
                                       std::uint32_t tag) const {
    throw internal_error("spike wire: one spike (item " + std::to_string(spike.item) + ", offset " +
                         std::to_string(spike.offset) + ", tag " + std::to_string(tag) + ") outside " +
                         std::to_string(items) + " items x " + std::to_string(steps_) + " steps x " +
                         std::to_string(tag_bits) + " tag bits");
}

std::size_t spike_codec::encode_single_wide(wire_spike spike, std::uint64_t items, unsigned tag_bits, std::uint32_t tag,
                                            unsigned char* out) const {
    unsigned char scratch[max_single_bytes + 8]; // the writer stores whole 64-bit words
    bit_writer w(scratch);
    w.put(tag, tag_bits);
    w.put(spike.offset, offset_bits_);
    w.put(spike.item, bits_for(items - 1));
    w.finish();
    const std::size_t bytes = single_bytes(items, tag_bits);
    std::memcpy(out, scratch, bytes);
    return bytes;
}

wire_spike spike_codec::decode_single_wide(const unsigned char* data, std::size_t bytes, std::uint64_t items,
                                           unsigned tag_bits) const {
    wire_bit_reader in(data, bytes);
    std::uint64_t tag = 0, offset = 0, item = 0;
    if (!in.take_long(tag_bits, tag) || !in.take_long(offset_bits_, offset) ||
        !in.take_long(bits_for(items - 1), item)) {
        throw_malformed_block("one-spike message cut short");
    }
    if (offset >= steps_) throw_malformed_block("offset outside the interval");
    if (item >= items) throw_malformed_block("item outside the item space");
    return {static_cast<std::uint32_t>(item), static_cast<std::uint32_t>(offset)};
}

} // namespace spikex
