#pragma once
// The spike wire codec: how every exchange method puts a set of spikes on the wire.
//
// A block is the spikes one sender sends in one message (an interval's Allgather block, a
// rank pair's section); a one-spike message sends a single spike (single_bytes, below). Each spike is an (item, offset)
// pair: item = the local index of the source cell on the sending rank (source-addressed methods) or the location of its
// target on the receiving rank (target-addressed methods); offset = the step within the interval, 0 <= offset < steps
// (steps = M, known to both sides). The receiver knows the sender and the interval from the message, so neither is in
// the block.
//
// A block is a bit stream, least significant bit first, padded with 1-bits to a whole byte.
// Its header says how to read it, in 1 or 8 bits (a prefix code):
//   0            packed at the item space's width: w = bits(items - 1), widened so that
//                w + b >= 8; no parameter (what a block of a few spikes takes)
//   1 0 + 6 bits packed at w (the block's own item width, widened likewise)
//   1 1 + 6 bits gaps with Rice parameter k
//   packed       per spike w bits of item and b = bits(M - 1) bits of offset, in the order
//                given; w + b >= 8, so the padding (< 8 bits) is never a whole entry:
//                count = (stream bits - header) / (w + b).
//   gaps         the keys offset * items + item in ascending order as gaps
//                g_0 = key_0, g_i = key_i - key_{i-1} (>= 0; a repeated spike gives 0),
//                each Golomb-Rice coded: q = g >> k as q 1-bits and a 0-bit, then k low bits;
//                q >= 32 escapes: 32 1-bits, 6 bits L - 1 with L = bit length of g, then the
//                low L - 1 bits of g (its top bit is 1). Padding (< 8 1-bits) never reaches
//                32 nor ends with a 0, so the decoder stops where it runs out of bits.
// An empty block is zero bytes. The encoder picks k from n and the largest key, and takes
// the smallest of the three (packed on a tie, since it needs no sort; the item space's
// width before the block's), so a block costs at most packed_bits + padding: a one-spike
// block 1 + w + b bits. Sorted gaps cost about log2(key range / n) + 2 bits per spike,
// i.e. log2(1 / (rate dt)) + 2 for a whole interval of a rank: independent of cells per
// rank and of M.
// Decoding returns the same (item, offset) multiset; in gaps mode in key order. Every
// method's delivery is order-free (the engine sorts each step canonically).
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "spikex/core/divider.hpp"
#include "spikex/core/types.hpp"

namespace spikex {

// Throws internal_error naming what is wrong with a block or a spike on the wire.
[[noreturn]] void throw_malformed_block(const char* why);

// One spike of a block.
struct wire_spike {
    std::uint32_t item;
    std::uint32_t offset;
};

// A field of a caller's header before a block (spike_codec::encode's prefix).
struct wire_field {
    std::uint64_t value; // < 2^bits
    unsigned bits;       // <= 64
};

class spike_codec {
public:
    // Header bits: the short header (packed at the item space's width), the long one (a
    // mode bit pair and a 6-bit parameter: packed at the block's width, or gaps).
    static constexpr unsigned short_header_bits = 1, parameter_bits = 6, long_header_bits = 2 + parameter_bits,
                              escape_ones = 32;

    spike_codec() = default;
    explicit spike_codec(std::uint32_t steps_per_interval):
        steps_(steps_per_interval), offset_bits_(bits_for(steps_per_interval - 1)) {}

    std::uint32_t steps() const { return steps_; }

    // Appends the block of `spikes` to `out`; returns the bytes appended. Every item must be
    // < items, every offset < steps(). Deterministic: the same multiset gives the same
    // bytes in gaps mode, the same bytes for the same order in packed mode. `prefix`: the
    // caller's own fields, written first in the same bit stream (a header that says how
    // to read the block; decode's prefix_bits skips them). `sorts`, if given, is incremented
    // when the spikes had to be sorted (gaps mode, keys not ascending as given).
    std::size_t encode(std::span<const wire_spike> spikes, std::uint64_t items, std::vector<unsigned char>& out,
                       std::span<const wire_field> prefix = {}, std::uint64_t* sorts = nullptr) const;

    // One spike alone (a one-spike message, an rma window entry, a routed item). The item
    // space is known to both sides, so nothing needs describing: no mode, no width, and the
    // message length gives the count. The spike is one bit field of tag_bits + b +
    // bits(items - 1) bits, padded with 1-bits to whole bytes: the user's tag (tag <
    // 2^tag_bits, tag_bits <= 32; read first with single_tag, e.g. to choose the item
    // space or the destination), then the offset, then the item. Its size depends only on
    // items and tag_bits.
    std::size_t single_bytes(std::uint64_t items, unsigned tag_bits) const {
        return (tag_bits + offset_bits_ + bits_for(items > 0 ? items - 1 : 0) + 7) / 8;
    }
    static constexpr std::size_t max_single_bytes = (32 + 32 + 32 + 7) / 8;
    // Inline: every routed item is encoded and decoded at every hop, every one-spike
    // message once; fields of at most 64 bits (the rule) are one word, built and read byte
    // by byte (a memcpy of a variable length is a call).
    std::size_t encode_single(wire_spike spike, std::uint64_t items, unsigned tag_bits, std::uint32_t tag,
                              unsigned char* out) const {
        if (spike.item >= items || spike.offset >= steps_ || tag_bits > 32 || (std::uint64_t{tag} >> tag_bits) != 0)
            throw_single_outside(spike, items, tag_bits, tag);
        const unsigned item_shift = tag_bits + offset_bits_, total = item_shift + bits_for(items - 1);
        if (total > 64) return encode_single_wide(spike, items, tag_bits, tag, out);
        std::uint64_t word = std::uint64_t{tag} | (std::uint64_t{spike.offset} << tag_bits);
        if (item_shift < 64) word |= std::uint64_t{spike.item} << item_shift;
        if (total < 64) word |= ~std::uint64_t{0} << total; // the writer's padding: 1-bits
        const std::size_t bytes = (total + 7) / 8;
        for (std::size_t i = 0; i < bytes; ++i) out[i] = static_cast<unsigned char>(word >> (8 * i));
        return bytes;
    }
    // The tag of a single spike of `bytes` bytes (little-endian, as every supported target).
    static std::uint32_t single_tag(const unsigned char* data, std::size_t bytes, unsigned tag_bits) {
        std::uint64_t word = 0;
        std::memcpy(&word, data, std::min<std::size_t>(bytes, sizeof word));
        return static_cast<std::uint32_t>(word & ((std::uint64_t{1} << tag_bits) - 1));
    }
    // Throws internal_error unless `bytes` is the size single_bytes gives and the spike
    // lies inside items x steps().
    wire_spike decode_single(const unsigned char* data, std::size_t bytes, std::uint64_t items,
                             unsigned tag_bits) const {
        if (items == 0) throw_malformed_block("a spike for an empty item space");
        if (bytes != single_bytes(items, tag_bits)) throw_malformed_block("one-spike message of the wrong size");
        const unsigned item_bits = bits_for(items - 1), item_shift = tag_bits + offset_bits_;
        if (item_shift + item_bits > 64) return decode_single_wide(data, bytes, items, tag_bits);
        std::uint64_t word = 0; // bytes <= 8
        for (std::size_t i = 0; i < bytes; ++i) word |= std::uint64_t{data[i]} << (8 * i);
        auto field = [word](unsigned shift, unsigned width) {
            if (width == 0) return std::uint64_t{0};
            return (word >> shift) & (~std::uint64_t{0} >> (64 - width));
        };
        const std::uint64_t offset = field(tag_bits, offset_bits_), item = field(item_shift, item_bits);
        if (offset >= steps_) throw_malformed_block("offset outside the interval");
        if (item >= items) throw_malformed_block("item outside the item space");
        return {static_cast<std::uint32_t>(item), static_cast<std::uint32_t>(offset)};
    }

    // The one-spike form of one item space and tag width as a layout fixed in advance, for
    // a loop over many spikes (a routed bucket's items): the same bytes as encode_single,
    // without its checks or per-call layout (the caller vouches for its fields: they came
    // from values checked once). Only where the spike fits one word (fits()).
    class single_word {
    public:
        single_word() = default;
        single_word(const spike_codec& codec, std::uint64_t items, unsigned tag_bits):
            bytes_(codec.single_bytes(items, tag_bits)),
            offset_shift_(tag_bits),
            item_shift_(tag_bits + codec.offset_bits_),
            tag_mask_(mask(tag_bits)),
            offset_mask_(mask(codec.offset_bits_)),
            item_mask_(mask(bits_for(items > 0 ? items - 1 : 0))) {
            const unsigned total = item_shift_ + bits_for(items > 0 ? items - 1 : 0);
            fits_ = total <= 64 && tag_bits <= 32;
            padding_ = total < 64 ? ~std::uint64_t{0} << total : 0;
            if (item_mask_ == 0) item_shift_ = 0; // no item bits (a one-item space): no shift by 64
        }
        bool fits() const { return fits_; }
        std::size_t bytes() const { return bytes_; }
        // f(std::integral_constant<std::size_t, bytes()>{}).
        template <class F>
        decltype(auto) with_bytes(F&& f) const {
            using std::integral_constant;
            switch (bytes_) {
            case 0:
                return f(integral_constant<std::size_t, 0>{});
            case 1:
                return f(integral_constant<std::size_t, 1>{});
            case 2:
                return f(integral_constant<std::size_t, 2>{});
            case 3:
                return f(integral_constant<std::size_t, 3>{});
            case 4:
                return f(integral_constant<std::size_t, 4>{});
            case 5:
                return f(integral_constant<std::size_t, 5>{});
            case 6:
                return f(integral_constant<std::size_t, 6>{});
            case 7:
                return f(integral_constant<std::size_t, 7>{});
            default:
                return f(integral_constant<std::size_t, 8>{});
            }
        }

        // tag < 2^tag_bits, spike inside the item space and the interval.
        void pack(std::uint32_t tag, wire_spike spike, unsigned char* out) const {
            with_bytes([&](auto n) { pack_as<n>(tag, spike, out); });
        }
        std::uint32_t tag(const unsigned char* data) const {
            return with_bytes([&](auto n) { return static_cast<std::uint32_t>(load<n>(data) & tag_mask_); });
        }
        // Reads what pack wrote (no range checks: decode_single checks what comes off a wire).
        wire_spike unpack(const unsigned char* data, std::uint32_t& tag) const {
            return with_bytes([&](auto n) { return unpack_as<n>(data, tag); });
        }
        // The same for items of Bytes == bytes() bytes, for a loop that chose Bytes once
        // (with_bytes): no switch on the size per item.
        template <std::size_t Bytes>
        void pack_as(std::uint32_t tag, wire_spike spike, unsigned char* out) const {
            store<Bytes>(std::uint64_t{tag} | (std::uint64_t{spike.offset} << offset_shift_) |
                             (std::uint64_t{spike.item} << item_shift_) | padding_,
                         out);
        }
        template <std::size_t Bytes>
        wire_spike unpack_as(const unsigned char* data, std::uint32_t& tag) const {
            const std::uint64_t word = load<Bytes>(data);
            tag = static_cast<std::uint32_t>(word & tag_mask_);
            return {static_cast<std::uint32_t>((word >> item_shift_) & item_mask_),
                    static_cast<std::uint32_t>((word >> offset_shift_) & offset_mask_)};
        }

    private:
        static std::uint64_t mask(unsigned bits) { return bits == 0 ? 0 : ~std::uint64_t{0} >> (64 - bits); }
        // Bytes little-endian bytes (every supported target) in registers: loads and stores of
        // whole 1, 2 and 4-byte pieces (a copy of a variable length is a call, and a narrow
        // store into a word then read whole stalls store forwarding).
        template <class T>
        static std::uint64_t piece(const unsigned char* data) {
            T v;
            std::memcpy(&v, data, sizeof v);
            return v;
        }
        template <class T>
        static void put_piece(std::uint64_t word, unsigned char* out) {
            const auto v = static_cast<T>(word);
            std::memcpy(out, &v, sizeof v);
        }
        template <std::size_t Bytes>
        static std::uint64_t load(const unsigned char* d) {
            using u16 = std::uint16_t;
            using u32 = std::uint32_t;
            if constexpr (Bytes == 0)
                return 0; // a one-item space, one step, no tag: nothing to send
            else if constexpr (Bytes == 1)
                return d[0];
            else if constexpr (Bytes == 2)
                return piece<u16>(d);
            else if constexpr (Bytes == 3)
                return piece<u16>(d) | std::uint64_t{d[2]} << 16;
            else if constexpr (Bytes == 4)
                return piece<u32>(d);
            else if constexpr (Bytes == 5)
                return piece<u32>(d) | std::uint64_t{d[4]} << 32;
            else if constexpr (Bytes == 6)
                return piece<u32>(d) | piece<u16>(d + 4) << 32;
            else if constexpr (Bytes == 7)
                return piece<u32>(d) | piece<u16>(d + 4) << 32 | std::uint64_t{d[6]} << 48;
            else
                return piece<std::uint64_t>(d);
        }
        template <std::size_t Bytes>
        static void store(std::uint64_t w, unsigned char* out) {
            using u16 = std::uint16_t;
            using u32 = std::uint32_t;
            if constexpr (Bytes == 1) {
                out[0] = static_cast<unsigned char>(w);
            } else if constexpr (Bytes == 2) {
                put_piece<u16>(w, out);
            } else if constexpr (Bytes == 3) {
                put_piece<u16>(w, out), out[2] = static_cast<unsigned char>(w >> 16);
            } else if constexpr (Bytes == 4) {
                put_piece<u32>(w, out);
            } else if constexpr (Bytes == 5) {
                put_piece<u32>(w, out), out[4] = static_cast<unsigned char>(w >> 32);
            } else if constexpr (Bytes == 6) {
                put_piece<u32>(w, out), put_piece<u16>(w >> 32, out + 4);
            } else if constexpr (Bytes == 7) {
                put_piece<u32>(w, out), put_piece<u16>(w >> 32, out + 4), out[6] = static_cast<unsigned char>(w >> 48);
            } else if constexpr (Bytes == 8) {
                put_piece<std::uint64_t>(w, out);
            }
        }
        std::size_t bytes_ = 1;
        unsigned offset_shift_ = 0, item_shift_ = 0;
        std::uint64_t tag_mask_ = 0, offset_mask_ = 0, item_mask_ = 0, padding_ = 0;
        bool fits_ = false;
    };

    // Calls f(item, offset) for every spike of the block in [data, data + bytes), whose
    // items are < items, after prefix_bits bits of the caller's header. Returns the number
    // of spikes; throws internal_error on a malformed block.
    template <class F>
    std::size_t decode(const unsigned char* data, std::size_t bytes, std::uint64_t items, F&& f,
                       unsigned prefix_bits = 0) const;

    // Bits an item of value v needs (0 for 0).
    static unsigned bits_for(std::uint64_t v) { return static_cast<unsigned>(std::bit_width(v)); }

    // The packed size in bits (header included, padding not) of n > 0 spikes whose largest
    // item is max_item, of an item space `items`: the bound encode never exceeds.
    std::uint64_t packed_bits(std::uint64_t n, std::uint64_t max_item, std::uint64_t items) const {
        return std::min(short_packed_bits(n, items),
                        long_header_bits + n * (packed_item_bits(max_item) + offset_bits_));
    }

private:
    // One spike alone wider than 64 bits (bit_writer, wire_bit_reader), and the error.
    std::size_t encode_single_wide(wire_spike spike, std::uint64_t items, unsigned tag_bits, std::uint32_t tag,
                                   unsigned char* out) const;
    wire_spike decode_single_wide(const unsigned char* data, std::size_t bytes, std::uint64_t items,
                                  unsigned tag_bits) const;
    [[noreturn]] void throw_single_outside(wire_spike spike, std::uint64_t items, unsigned tag_bits,
                                           std::uint32_t tag) const;

    // Packed at the item space's width (none for item spaces wider than 32 bits).
    std::uint64_t short_packed_bits(std::uint64_t n, std::uint64_t items) const {
        if (items > (std::uint64_t{1} << 32)) return ~std::uint64_t{0};
        return short_header_bits + n * (packed_item_bits(items - 1) + offset_bits_);
    }
    unsigned packed_item_bits(std::uint64_t max_item) const {
        const unsigned floor = offset_bits_ >= 8 ? 0 : 8 - offset_bits_; // entries of >= 8 bits
        return std::max(bits_for(max_item), floor);
    }

    std::uint32_t steps_ = 1;
    unsigned offset_bits_ = 0;
};

// --- decoding (inline: every receiver's inner loop) ------------------------------------

class wire_bit_reader {
public:
    wire_bit_reader(const unsigned char* data, std::size_t bytes): data_(data), end_(data + bytes) {}

    // Makes at least 57 bits available, or all that are left.
    void refill() {
        if (end_ - data_ >= 8 && bits_ <= 56) { // whole-word load
            std::uint64_t word;
            std::memcpy(&word, data_, 8);
            acc_ |= word << bits_;
            unsigned taken = (63 - bits_) >> 3;
            data_ += taken;
            bits_ += taken * 8;
            return;
        }
        while (bits_ <= 56 && data_ < end_) {
            acc_ |= std::uint64_t(*data_++) << bits_;
            bits_ += 8;
        }
    }
    unsigned available() const { return bits_; }
    bool exhausted() const { return data_ == end_; }
    std::uint64_t peek() const { return acc_; }
    void skip(unsigned n) {
        acc_ = n >= 64 ? 0 : acc_ >> n;
        bits_ -= n;
    }
    // n <= 56 bits, after a refill that made them available.
    std::uint64_t take(unsigned n) {
        std::uint64_t v = n == 0 ? 0 : acc_ & (~std::uint64_t{0} >> (64 - n));
        skip(n);
        return v;
    }
    // n <= 64 bits, refilling as needed; false when the stream ends first.
    bool take_long(unsigned n, std::uint64_t& v) {
        unsigned low = n > 32 ? 32 : n;
        refill();
        if (bits_ < low) return false;
        v = take(low);
        if (n > low) {
            refill();
            if (bits_ < n - low) return false;
            v |= take(n - low) << low;
        }
        return true;
    }

private:
    const unsigned char* data_;
    const unsigned char* end_;
    std::uint64_t acc_ = 0;
    unsigned bits_ = 0;
};

template <class F>
std::size_t spike_codec::decode(const unsigned char* data, std::size_t bytes, std::uint64_t items, F&& f,
                                unsigned prefix_bits) const {
    if (bytes == 0) return 0;
    wire_bit_reader in(data, bytes);
    for (unsigned left = prefix_bits; left > 0;) {
        in.refill();
        const unsigned skip = std::min(left, 32u);
        if (in.available() < skip) throw_malformed_block("shorter than its prefix");
        in.skip(skip);
        left -= skip;
    }
    in.refill();
    if (in.available() < short_header_bits) throw_malformed_block("shorter than its header");
    if (items == 0) throw_malformed_block("spikes for an empty item space");
    const bool long_header = in.take(1) != 0;
    bool gaps = false;
    unsigned parameter = packed_item_bits(items - 1);
    if (long_header) {
        if (in.available() < long_header_bits - 1) throw_malformed_block("shorter than its header");
        gaps = in.take(1) != 0;
        parameter = static_cast<unsigned>(in.take(parameter_bits));
    }
    const unsigned header_bits = long_header ? long_header_bits : short_header_bits;
    std::size_t n = 0;
    if (!gaps) {
        const unsigned width = parameter + offset_bits_;
        if (width < 8) throw_malformed_block("packed entry narrower than 8 bits");
        if (parameter > 32) throw_malformed_block("packed item wider than 32 bits");
        if (bytes * 8 < prefix_bits + header_bits) throw_malformed_block("shorter than its header");
        const std::size_t count = (bytes * 8 - prefix_bits - header_bits) / width;
        for (; n < count; ++n) {
            std::uint64_t entry;
            if (!in.take_long(width, entry)) throw_malformed_block("packed entries cut short");
            const auto item = static_cast<std::uint32_t>(entry & ((std::uint64_t{1} << parameter) - 1));
            const auto offset = static_cast<std::uint32_t>(entry >> parameter);
            if (offset >= steps_) throw_malformed_block("offset outside the interval");
            if (item >= items) throw_malformed_block("item outside the item space");
            f(item, offset);
        }
        return n;
    }
    const unsigned k = parameter;
    const std::uint64_t low_mask = k == 0 ? 0 : ~std::uint64_t{0} >> (64 - k);
    std::uint64_t key = 0; // g_0 = key_0: the first gap counts from 0
    // Keys of a valid block are < items * steps; where that is <= 2^32 (all but huge item
    // spaces), a key splits with one multiply instead of a division.
    const bool narrow_keys = items < (std::uint64_t{1} << 32) && items * steps_ <= (std::uint64_t{1} << 32);
    const std::uint64_t key_end = narrow_keys ? items * steps_ : 0;
    const divider32 by_items(narrow_keys ? static_cast<std::uint32_t>(items) : 1);
    // Inlined at its three calls whatever f is (GCC's budget left it a call per spike once
    // f grew: ~2 ns a spike).
    auto deliver = [&](std::uint64_t gap) __attribute__((always_inline)) {
        key += gap;
        std::uint64_t offset;
        if (narrow_keys) {
            if (key >= key_end || gap >= key_end) throw_malformed_block("offset outside the interval");
            offset = by_items.quotient(static_cast<std::uint32_t>(key));
        } else {
            offset = key / items;
            if (offset >= steps_) throw_malformed_block("offset outside the interval");
        }
        f(static_cast<std::uint32_t>(key - offset * items), static_cast<std::uint32_t>(offset));
        ++n;
    };
    for (;;) {
        in.refill();
        // Unary quotient: count the 1-bits before the next 0-bit.
        const auto ones = static_cast<unsigned>(std::countr_one(in.peek()));
        if (ones >= in.available()) {
            if (in.exhausted() && in.available() < 8) break; // the padding
            if (ones < escape_ones) throw_malformed_block("unterminated quotient");
        }
        std::uint64_t gap;
        if (ones < escape_ones && ones + 1 + k <= in.available()) { // the common case: all in the window
            deliver((std::uint64_t(ones) << k) | ((in.peek() >> (ones + 1)) & low_mask));
            in.skip(ones + 1 + k);
            // A second code from the same window, without a refill (a refill leaves 57 bits
            // or more, and most codes are short); the padding never passes this test.
            const auto next = static_cast<unsigned>(std::countr_one(in.peek()));
            if (next < escape_ones && next + 1 + k <= in.available()) {
                deliver((std::uint64_t(next) << k) | ((in.peek() >> (next + 1)) & low_mask));
                in.skip(next + 1 + k);
            }
            continue;
        } else if (ones >= escape_ones) {
            in.skip(escape_ones);
            std::uint64_t length_less_one;
            if (!in.take_long(parameter_bits, length_less_one)) throw_malformed_block("escape cut short");
            std::uint64_t low = 0;
            if (!in.take_long(static_cast<unsigned>(length_less_one), low)) throw_malformed_block("escape cut short");
            gap = (std::uint64_t{1} << length_less_one) | low;
        } else {
            in.skip(ones + 1);
            std::uint64_t low = 0;
            if (!in.take_long(k, low)) throw_malformed_block("remainder cut short");
            gap = (std::uint64_t(ones) << k) | low;
        }
        deliver(gap);
    }
    return n;
}

} // namespace spikex
