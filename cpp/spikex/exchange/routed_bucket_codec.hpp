#pragma once
// How a bucket of `routed` items travels (route/message_codec.hpp): as one message that
// leaves out what the sending and receiving ranks imply, packed at a fixed width or as one
// block of the spike wire codec (exchange/spike_codec.hpp), instead of item after item.
//
// In a block form each item (destination rank, gid, step mod 2M; routed_item.hpp) becomes
// the codec's spike with
//   item   = the cell's owner-major index, owner rank * B + local index on the owner
//            (B = the most cells a rank holds; item space P B), so one rank's cells form
//            one range under every distribution (round robin spreads them over all gids);
//   offset = destination * 2M + step mod 2M (offset space P 2M).
// A bucket's items come from few owners (one on a direct grid: the sender) and go to few
// destinations (one on a direct grid: the receiver), so the message takes one of four
// forms, one bit stream of a header and the entries (least significant bit first):
//   1 1 base d   packed pair: every item's owner is the sender and its destination the
//                receiver (both known from the message); per item its local index on the
//                sender in w = bits(sender's cells - 1) bits and (step - base) mod 2M in d
//                bits, base in bits(2M - 1) bits and d in bits(bits(2M - 1)) bits; w is
//                widened to 8 - d where w + d < 8, so the padding (< 8 1-bits) is never
//                an entry and the length gives the count
//   1 0 block    pair: the same pairs as one block of the spike codec (spike_codec's
//                prefix): item = local index (item space the sender's cells), offset =
//                step mod 2M (offset space 2M)
//   0 1 frame .. framed: the block codes item - smallest item and offset - smallest
//                offset within their ranges, its keys spanning the bucket's own cells and
//                steps; the frame is the item base and item range - 1 in bits(P B - 1)
//                bits each, then the offset base and offset range - 1 in bits(P 2M - 1)
//   0 0 block    plain: the whole spaces
// The encoder takes the packed pair form wherever it fits and takes at most 3 bytes an
// item (issue 21's target; headers and padding included): it needs no sort, no gaps and
// no owner-major index on arrival, and costs about half of a block's encode and decode
// (docs/methods/wire_format.md, "Measured"); on arrival at its destination a packed pair
// message is not even decoded into items: deliver() hands its gids and steps to the
// exchange (routed_arrivals). Otherwise the encoder takes the form whose packed size
// (the block's upper bound) is smallest, header included, plain on a tie: one item of a
// direct grid's bucket takes about its local index and step alone, a full bucket pays for
// a frame.
// Only when P * 2M and P * B fit the codec's 32 bits (usable()); otherwise items travel
// as they are.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "spikex/core/divider.hpp"
#include "spikex/core/errors.hpp"
#include "spikex/exchange/routed_item.hpp"
#include "spikex/exchange/spike_codec.hpp"
#include "spikex/network/distribution.hpp"
#include "spikex/route/message_codec.hpp"

namespace spikex {

// Issue 21's target for a spike on the wire, in bytes. Items this wide or narrower travel
// as they are under exchange.compress = "auto": the target holds without the codec, which
// would save about 1 byte an item and hop there (1.96 coded bytes at 3-byte items in
// buckets of 7.5), 2.5 ns at BG/P's byte cost (profiles/bgp.toml, 2.35 ns a byte), against
// about 17 ns of encode and decode (docs/methods/wire_format.md, "Measured"). The packed
// pair form is taken wherever a bucket stays within it.
inline constexpr std::size_t routed_target_item_bytes = 3;

// Where the codec hands a packed pair message's items on arrival (deliver): each item's
// gid and step mod 2M, the receiver being their destination. The routed exchange.
class routed_arrivals {
public:
    virtual ~routed_arrivals() = default;
    virtual void arrive(const wire_spike* gid_and_offset, std::size_t count) = 0;
};

class routed_bucket_codec final: public message_codec {
public:
    // `format`, `cells` and `arrivals` must outlive the codec; usable(format, cells) must
    // hold. Without `arrivals` every message is decoded into items (decode).
    routed_bucket_codec(const routed_item_format& format, const distribution& cells,
                        routed_arrivals* arrivals = nullptr):
        format_(format),
        arrivals_(arrivals),
        cells_(cells),
        period_(static_cast<std::uint64_t>(format.period())),
        scheme_(cells.scheme()),
        ranks_(static_cast<std::uint32_t>(cells.ranks())),
        per_rank_(cells.max_count()),
        item_space_(std::uint64_t(per_rank_) * std::uint64_t(cells.ranks())),
        offset_space_(period_ * std::uint64_t(cells.ranks())),
        item_bits_(spike_codec::bits_for(item_space_ - 1)),
        offset_bits_(spike_codec::bits_for(offset_space_ - 1)) {
        if (!usable(format, cells)) throw internal_error("routed: P * 2M or P * B does not fit the bucket codec");
        period32_ = static_cast<std::uint32_t>(period_);
        for (int r = 0; r < cells.ranks(); ++r) counts_.push_back(cells.count(r));
        largest_message_bits_per_item_ =
            plain_codec().packed_bits(1, item_space_ - 1, item_space_) - spike_codec::short_header_bits;
        by_period_ = divider32(period32_);
        by_ranks_ = divider32(ranks_);
        by_per_rank_ = divider32(per_rank_);
        pair_base_bits_ = packed_pair_base_bits(period_);
        pair_width_bits_ = packed_pair_width_bits(period_);
        pair_header_bits_ = packed_pair_header_bits(period_);
        for (unsigned width = 1; width < by_entry_width_.size(); ++width) by_entry_width_[width] = divider32(width);
    }

    static bool usable(const routed_item_format& format, const distribution& cells) {
        const auto ranks = static_cast<std::uint64_t>(cells.ranks());
        return std::uint64_t(format.period()) * ranks < (std::uint64_t{1} << 32) &&
               std::uint64_t(cells.max_count()) * ranks < (std::uint64_t{1} << 32) && cells.max_count() > 0;
    }
    // Whether buckets travel coded under exchange.compress = `compress`: "false" never,
    // "true" wherever usable, "auto" where usable and the items are wider than
    // routed_target_item_bytes. The run (routed.cpp) and the dry run
    // (dryrun/exchange_counts.cpp) both ask here.
    static bool wanted(const std::string& compress, const routed_item_format& format, const distribution& cells) {
        if (compress == "false" || !usable(format, cells)) return false;
        return compress == "true" || format.bytes() > routed_target_item_bytes;
    }

    std::size_t encode(const unsigned char* items, std::size_t count, int from, int to,
                       unsigned char* out) const override {
        if (count == 0) return 0;
        if (const std::size_t size = encode_packed_pair(items, count, from, to, out); size > 0) return size;
        spikes_.resize(count);
        std::uint32_t item_low = ~0u, item_high = 0, offset_low = ~0u, offset_high = 0;
        // The items the router holds were built by routed_item_format (their fields checked
        // there), so one-word items are read back without checks.
        auto convert = [&](auto read) {
            const std::size_t bytes = format_.bytes();
            for (std::size_t k = 0; k < count; ++k) {
                std::uint32_t destination = 0;
                const wire_spike f = read(items + k * bytes, destination);
                const wire_spike s{owner_major(f.item), destination * period32_ + f.offset}; // < P 2M < 2^32
                spikes_[k] = s;
                item_low = std::min(item_low, s.item);
                item_high = std::max(item_high, s.item);
                offset_low = std::min(offset_low, s.offset);
                offset_high = std::max(offset_high, s.offset);
            }
        };
        if (format_.word().fits()) {
            convert([&word = format_.word()](const unsigned char* item, std::uint32_t& destination) {
                return word.unpack(item, destination);
            });
        } else {
            convert([this](const unsigned char* item, std::uint32_t& destination) {
                destination = static_cast<std::uint32_t>(format_.destination(item));
                return format_.fields(item);
            });
        }
        block_.clear(); // the codec appends
        const std::uint64_t item_range = std::uint64_t(item_high - item_low) + 1,
                            offset_range = std::uint64_t(offset_high - offset_low) + 1;
        // The pair form needs every item owned by the sender and bound for the receiver.
        const std::uint64_t own_low = std::uint64_t(from) * per_rank_, to_low = std::uint64_t(to) * period_;
        const bool pair_fits = item_low >= own_low && item_high < own_low + per_rank_ && offset_low >= to_low &&
                               offset_high < to_low + period_;
        const std::uint64_t plain = plain_bits(count, item_high);
        const std::uint64_t framed = framed_bits(count, item_range, offset_range);
        const std::uint64_t pair = pair_fits ? pair_bits(count, item_high - own_low, from) : ~std::uint64_t{0};
        if (pair < std::min(plain, framed)) {
            for (auto& s: spikes_)
                s = {static_cast<std::uint32_t>(s.item - own_low), static_cast<std::uint32_t>(s.offset - to_low)};
            const wire_field header[] = {{0b01, 2}};
            spike_codec(static_cast<std::uint32_t>(period_)).encode(spikes_, cells_.count(from), block_, header);
        } else if (framed < plain) {
            for (auto& s: spikes_) s = {s.item - item_low, s.offset - offset_low};
            const wire_field header[] = {{0b10, 2},
                                         {item_low, item_bits_},
                                         {item_range - 1, item_bits_},
                                         {offset_low, offset_bits_},
                                         {offset_range - 1, offset_bits_}};
            spike_codec(static_cast<std::uint32_t>(offset_range)).encode(spikes_, item_range, block_, header);
        } else {
            const wire_field header[] = {{0b00, 2}};
            spike_codec(static_cast<std::uint32_t>(offset_space_)).encode(spikes_, item_space_, block_, header);
        }
        if (block_.size() > max_message_bytes(count))
            throw internal_error("routed: a bucket's block larger than its largest message");
        std::memcpy(out, block_.data(), block_.size());
        return block_.size();
    }

    std::size_t decode(const unsigned char* message, std::size_t size, int from, int to, unsigned char* items,
                       std::size_t capacity) const override {
        if (size == 0) throw internal_error("routed: an empty bucket message");
        check_pair(from, to);
        wire_bit_reader in(message, size);
        std::uint64_t pair = 0, framed = 0;
        if (!in.take_long(1, pair)) throw internal_error("routed: a bucket message without its header");
        // What the block's item and offset are relative to, and their spaces.
        std::uint64_t item_low = 0, item_range = item_space_, offset_low = 0, offset_range = offset_space_;
        unsigned header_bits = 2;
        if (pair != 0) {
            std::uint64_t packed = 0;
            if (!in.take_long(1, packed)) throw internal_error("routed: a bucket message without its header");
            if (packed != 0) return decode_packed_pair(message, size, from, to, items, capacity);
            item_low = std::uint64_t(from) * per_rank_;
            item_range = cells_.count(from);
            offset_low = std::uint64_t(to) * period_;
            offset_range = period_;
        } else {
            if (!in.take_long(1, framed)) throw internal_error("routed: a bucket message without its header");
            if (framed != 0) {
                std::uint64_t item_last = 0, offset_last = 0;
                if (!in.take_long(item_bits_, item_low) || !in.take_long(item_bits_, item_last) ||
                    !in.take_long(offset_bits_, offset_low) || !in.take_long(offset_bits_, offset_last)) {
                    throw internal_error("routed: a bucket message's frame cut short");
                }
                item_range = item_last + 1;
                offset_range = offset_last + 1;
                if (item_low + item_range > item_space_ || offset_low + offset_range > offset_space_)
                    throw internal_error("routed: a bucket message's frame outside the item or offset space");
                header_bits += 2 * (item_bits_ + offset_bits_);
            }
        }
        std::size_t count = 0;
        // The block's spikes lie inside the frame (spike_codec::decode checks), so every
        // item's destination, gid and step are valid: one-word items are written unchecked.
        auto convert = [&](auto write) {
            const std::size_t bytes = format_.bytes();
            spike_codec(static_cast<std::uint32_t>(offset_range))
                .decode(
                    message, size, item_range,
                    [&](std::uint32_t item, std::uint32_t offset) {
                        if (count == capacity)
                            throw internal_error("routed: a bucket message holds more items than a bucket");
                        const auto key = static_cast<std::uint32_t>(offset_low + offset); // < P 2M < 2^32
                        const std::uint32_t destination = by_period_.quotient(key);
                        write(destination,
                              wire_spike{gid_at(static_cast<std::uint32_t>(item_low + item)),
                                         key - destination * period32_},
                              items + count * bytes);
                        ++count;
                    },
                    header_bits);
        };
        if (format_.word().fits()) {
            convert([&word = format_.word()](std::uint32_t destination, wire_spike fields, unsigned char* out) {
                word.pack(destination, fields, out);
            });
        } else {
            convert([this](std::uint32_t destination, wire_spike fields, unsigned char* out) {
                format_.encode_fields(static_cast<int>(destination), fields, out);
            });
        }
        if (count == 0) throw internal_error("routed: an empty bucket message");
        return count;
    }

    // The packed pair form's size in bits (header included, padding not): `count` items
    // from a sender of `sender_cells` cells whose steps lie in `step_range` consecutive
    // steps mod `period` (2M). The encoder's and the dry run's one formula.
    static std::uint64_t packed_pair_bits(std::uint64_t count, std::uint64_t sender_cells, std::uint64_t step_range,
                                          std::uint64_t period) {
        return packed_pair_header_bits(period) + count * packed_pair_entry_bits(sender_cells, step_range);
    }
    static unsigned packed_pair_header_bits(std::uint64_t period) {
        return 2 + packed_pair_base_bits(period) + packed_pair_width_bits(period);
    }
    static unsigned packed_pair_entry_bits(std::uint64_t sender_cells, std::uint64_t step_range) {
        const unsigned d = spike_codec::bits_for(step_range - 1);
        return packed_pair_local_bits(sender_cells, d) + d;
    }
    // Whether a message of `bits` for `count` items stays within the target (whole bytes).
    static bool within_target(std::uint64_t bits, std::uint64_t count) {
        return (bits + 7) / 8 <= routed_target_item_bytes * count;
    }

    // A packed pair message's items go straight to `arrivals` (their gids and steps, no
    // items written and read back): the routed exchange's delivery of what reaches its
    // destination. Other forms are left to decode().
    std::size_t deliver(const unsigned char* message, std::size_t size, int from, int to,
                        std::size_t capacity) const override {
        if (arrivals_ == nullptr || size == 0 || (message[0] & 3) != 0b11) return 0;
        check_pair(from, to);
        arrived_.resize(capacity);
        const std::size_t count = decode_packed_pair(message, size, from, to, nullptr, capacity, arrived_.data());
        arrivals_->arrive(arrived_.data(), count);
        return count;
    }

    // Plain and packed at the item space's width (the codec's upper bound; another form
    // is used only when smaller): the header, the block's short header and count entries
    // of bits(P B - 1) + bits(P 2M - 1) bits, at least 8 each.
    std::size_t max_message_bytes(std::size_t count) const override {
        return (2 + spike_codec::short_header_bits + count * largest_message_bits_per_item_ + 7) / 8;
    }

private:
    void check_pair(int from, int to) const {
        if (from < 0 || to < 0 || std::uint32_t(from) >= ranks_ || std::uint32_t(to) >= ranks_)
            throw internal_error("routed: a bucket message between ranks outside the job");
    }

    // The packed pair form (the header comment): its header (form bits, base, d), and the
    // local index's width, widened so that an entry takes at least 8 bits.
    static unsigned packed_pair_base_bits(std::uint64_t period) { return spike_codec::bits_for(period - 1); }
    static unsigned packed_pair_width_bits(std::uint64_t period) {
        return spike_codec::bits_for(packed_pair_base_bits(period));
    }
    static unsigned packed_pair_local_bits(std::uint64_t sender_cells, unsigned d) {
        const unsigned w = spike_codec::bits_for(sender_cells > 0 ? sender_cells - 1 : 0);
        return d + w >= 8 ? w : 8 - d;
    }

    // Writes the bucket in the packed pair form to `out` and returns its size where it fits
    // (one-word items, every item the sender's and bound for the receiver) and stays within
    // the target; otherwise returns 0 and leaves `out` to the other forms.
    std::size_t encode_packed_pair(const unsigned char* items, std::size_t count, int from, int to,
                                   unsigned char* out) const {
        if (count == 0 || !format_.word().fits()) return 0;
        return format_.word().with_bytes([&](auto item_bytes) {
            return encode_packed_pair_as<decltype(item_bytes)::value>(items, count, from, to, out);
        });
    }
    // The same for items of Bytes bytes: one switch on the size a bucket.
    template <std::size_t Bytes>
    std::size_t encode_packed_pair_as(const unsigned char* items, std::size_t count, int from, int to,
                                      unsigned char* out) const {
        const spike_codec::single_word word = format_.word(); // a copy: stores below cannot alias it
        const std::uint32_t own_count = counts_[static_cast<std::size_t>(from)];
        // The steps' frame, first from the first and the last item (a rank's items reach
        // its buckets in emission order), checked on the way; where an item lies outside,
        // the frame from all items (framed_steps).
        std::uint32_t first_destination = 0, last_destination = 0;
        const wire_spike first = word.unpack_as<Bytes>(items, first_destination);
        const std::uint32_t last = word.unpack_as<Bytes>(items + (count - 1) * Bytes, last_destination).offset;
        // A forwarded bucket (items of other owners or for other ranks, as on grids of more
        // dimensions) is usually told by its first item.
        if (first_destination != static_cast<std::uint32_t>(to) ||
            owner_major(first.item) - static_cast<std::uint32_t>(from) * per_rank_ >= own_count)
            return 0;
        // Where an item is not the sender's, not for the receiver or outside the first
        // frame, the writer says so without telling which (one test an item): the second
        // attempt's frame holds every item's step, so an item still refused there is not a
        // pair's.
        for (int attempt = 0; attempt < 2; ++attempt) {
            std::uint32_t base = first.offset, span = step_from(first.offset, last, period32_);
            if (attempt == 1) framed_steps(word, items, count, base, span);
            const std::uint64_t bits = packed_pair_bits(count, own_count, std::uint64_t(span) + 1, period_);
            if (!within_target(bits, count) || (bits + 7) / 8 > max_message_bytes(count)) continue;
            // The writer stores whole words: up to encode_slack bytes past the message.
            const unsigned d = spike_codec::bits_for(span), w = packed_pair_local_bits(own_count, d);
            const std::uint64_t header = 0b11 | std::uint64_t{base} << 2 | std::uint64_t{d} << (2 + pair_base_bits_);
            const packing p{static_cast<std::uint32_t>(to), base, span, period32_, w, w + d};
            if (write_packed_pair<Bytes>(word, items, count, from, p, header, out)) return (bits + 7) / 8;
        }
        return 0;
    }
    // The steps' base and span of a bucket's items: from their smallest, or where they wrap
    // past 2M - 1 (they span more than M, and a bucket's items come from one interval),
    // from the smallest of M or more.
    void framed_steps(const spike_codec::single_word& word, const unsigned char* items, std::size_t count,
                      std::uint32_t& base, std::uint32_t& span) const {
        const std::size_t bytes = word.bytes();
        std::uint32_t low = ~0u, high = 0, low_upper = ~0u, destination = 0;
        const std::uint32_t half = period32_ / 2;
        for (std::size_t k = 0; k < count; ++k) {
            const std::uint32_t step = word.unpack(items + k * bytes, destination).offset;
            low = std::min(low, step);
            high = std::max(high, step);
            if (step >= half) low_upper = std::min(low_upper, step);
        }
        base = high - low < half ? low : low_upper;
        span = 0;
        for (std::size_t k = 0; k < count; ++k)
            span = std::max(span, step_from(base, word.unpack(items + k * bytes, destination).offset, period32_));
    }
    // What the packed pair writer needs of a bucket, by value.
    struct packing {
        std::uint32_t receiver, base, span, period;
        unsigned local_bits, width;
    };
    // Writes the packed pair message (`header`, entries, padding) to `at` (room for its
    // bytes and 8 more); false where an item is not the sender's, not bound for the
    // receiver or outside the steps [base, base + span] mod 2M.
    template <std::size_t Bytes>
    bool write_packed_pair(const spike_codec::single_word& word, const unsigned char* items, std::size_t count,
                           int from, const packing p, std::uint64_t header, unsigned char* at) const {
        const std::uint32_t own_count = counts_[static_cast<std::size_t>(from)];
        const unsigned used = pair_header_bits_;
        // local_of(gid, odd): the local index on the sender, with odd made non-zero for
        // another owner's cell (no branch: such a bucket is rare and falls back whole).
        // Round robin on one rank is the consecutive layout (and its divisor 1 has no multiplier).
        const bool one_rank_round_robin = ranks_ == 1 && scheme_ == distribution_scheme::round_robin;
        switch (one_rank_round_robin ? distribution_scheme::consecutive : scheme_) {
        case distribution_scheme::consecutive:
            return pack_entries<Bytes>(
                word, items, count, p, header, used, at,
                [own_low = std::uint32_t(from) * per_rank_, own_count](std::uint32_t gid, std::uint32_t& odd) {
                    const std::uint32_t local = gid - own_low; // wraps below the sender's
                    odd |= std::uint32_t(local >= own_count);
                    return local;
                });
        case distribution_scheme::round_robin:
            return pack_entries<Bytes>(
                word, items, count, p, header, used, at,
                [by = by_ranks_, ranks = ranks_, from = std::uint32_t(from)](std::uint32_t gid, std::uint32_t& odd) {
                    // gid < N (routed_item_format checked it), so local < the sender's cells
                    // wherever the remainder is the sender.
                    const std::uint32_t local = by.quotient_above_one(gid);
                    odd |= (gid - local * ranks) ^ from;
                    return local;
                });
        case distribution_scheme::random_shuffle:
            break;
        }
        return pack_entries<Bytes>(word, items, count, p, header, used, at,
                                   [this, from](std::uint32_t gid, std::uint32_t& odd) {
                                       odd |= std::uint32_t(cells_.rank_of(gid) != from);
                                       return cells_.local_of(gid);
                                   });
    }
    // The writer's loop for items of `Bytes` bytes: each item's entry, two entries per
    // store where they fit (the writer's stores are a dependency chain); false where an
    // item is refused (write_packed_pair). A function of its own with every input by
    // value: stores through `at` may alias anything whose address escaped, which kept a
    // lambda's captures in memory.
    template <std::size_t Bytes, class LocalOf>
    static bool pack_entries(spike_codec::single_word word, const unsigned char* items, std::size_t count,
                             const packing p, std::uint64_t acc, unsigned used, unsigned char* at, LocalOf local_of) {
        std::uint32_t odd = 0;
        const auto entry = [&](std::size_t k) __attribute__((always_inline)) {
            std::uint32_t destination = 0;
            const wire_spike f = word.unpack_as<Bytes>(items + k * Bytes, destination);
            const std::uint32_t local = local_of(f.item, odd);
            const std::uint32_t offset = step_from(p.base, f.offset, p.period);
            odd |= (destination ^ p.receiver) | std::uint32_t(offset > p.span);
            return std::uint64_t{local} | std::uint64_t{offset} << p.local_bits;
        };
        const auto put = [&](std::uint64_t bits, unsigned length) __attribute__((always_inline)) {
            acc |= bits << used; // used < 8 and length <= 48 after the header (<= 2 + 32 + 6)
            used += length;
            std::memcpy(at, &acc, 8);
            at += used / 8;
            acc >>= used & ~7u;
            used &= 7;
        };
        put(0, 0);
        // In chunks: the entries first (independent of each other), then the stores.
        constexpr std::size_t chunk = 64;
        std::uint64_t entries[chunk];
        for (std::size_t first = 0; first < count; first += chunk) {
            const std::size_t n = std::min(chunk, count - first);
            for (std::size_t i = 0; i < n; ++i) entries[i] = entry(first + i);
            std::size_t i = 0;
            if (2 * p.width <= 48)
                for (; i + 2 <= n; i += 2) put(entries[i] | entries[i + 1] << p.width, 2 * p.width);
            for (; i < n; ++i) put(entries[i], p.width);
        }
        acc |= ~std::uint64_t{0} << used; // the padding: 1-bits
        std::memcpy(at, &acc, 8);
        return odd == 0;
    }
    // (step - base) mod 2M for steps and base < 2M.
    static std::uint32_t step_from(std::uint32_t base, std::uint32_t step, std::uint32_t period) {
        return step >= base ? step - base : step + period - base;
    }

    // Decodes a packed pair message (its two form bits already seen). Its items' fields go
    // to `arrived` instead where given (deliver). The header is read from one word.
    std::size_t decode_packed_pair(const unsigned char* message, std::size_t size, int from, int to,
                                   unsigned char* items, std::size_t capacity, wire_spike* arrived = nullptr) const {
        const unsigned header = pair_header_bits_;
        if (size >= (std::size_t{1} << 28))
            throw internal_error("routed: a bucket message holds more items than a bucket");
        if (size * 8 < header) throw internal_error("routed: a packed bucket message's header cut short");
        std::uint64_t first_word = 0;
        if (size >= 8) {
            std::memcpy(&first_word, message, 8);
        } else {
            for (std::size_t i = 0; i < size; ++i) first_word |= std::uint64_t{message[i]} << (8 * i);
        }
        const std::uint64_t base = (first_word >> 2) & ((std::uint64_t{1} << pair_base_bits_) - 1);
        const std::uint64_t d = (first_word >> (2 + pair_base_bits_)) & ((std::uint64_t{1} << pair_width_bits_) - 1);
        if (base >= period_ || d > pair_base_bits_)
            throw internal_error("routed: a packed bucket message's step base or width outside 2M");
        const std::uint32_t own_count = counts_[static_cast<std::size_t>(from)];
        const unsigned w = packed_pair_local_bits(own_count, static_cast<unsigned>(d));
        const unsigned width = w + static_cast<unsigned>(d);
        // The encoder's entries take at most 3 bytes; the reader takes up to 57 bits from a word.
        if (width > 57) throw internal_error("routed: a packed bucket message's entries wider than a word holds");
        const auto body = static_cast<std::uint32_t>(size * 8 - header); // < 2^31
        const std::uint32_t count = by_entry_width_[width].quotient(body);
        if (count == 0 || body - count * width >= 8)
            throw internal_error("routed: a packed bucket message of no items or of padding past its last byte");
        if (count > capacity) throw internal_error("routed: a bucket message holds more items than a bucket");
        const unpacking p{message, size, header, width, w, own_count, static_cast<std::uint32_t>(base), period32_};
        auto with_gids = [&](auto write) {
            const auto owner = static_cast<std::uint32_t>(from);
            switch (scheme_) {
            case distribution_scheme::consecutive:
                return unpack_entries(p, count, write,
                                      [low = owner * per_rank_](std::uint32_t local) { return low + local; });
            case distribution_scheme::round_robin:
                return unpack_entries(p, count, write,
                                      [ranks = ranks_, owner](std::uint32_t local) { return local * ranks + owner; });
            case distribution_scheme::random_shuffle:
                break;
            }
            return unpack_entries(p, count, write,
                                  [this, from](std::uint32_t local) { return cells_.gid_of(from, local); });
        };
        bool bad = false;
        if (arrived != nullptr) {
            bad = with_gids([arrived](wire_spike fields, std::uint64_t k) { arrived[k] = fields; });
        } else if (format_.word().fits()) {
            const spike_codec::single_word word = format_.word(); // a copy: the items cannot alias it
            bad = word.with_bytes([&](auto item_bytes) {
                constexpr std::size_t bytes = decltype(item_bytes)::value;
                return with_gids(
                    [word, items, receiver = static_cast<std::uint32_t>(to)](wire_spike fields, std::uint64_t k) {
                        word.pack_as<bytes>(receiver, fields, items + k * bytes);
                    });
            });
        } else {
            bad = with_gids([this, items, to](wire_spike fields, std::uint64_t k) {
                format_.encode_fields(to, fields, items + k * format_.bytes());
            });
        }
        if (bad) throw internal_error("routed: a packed bucket message names a cell or step outside the sender's");
        return static_cast<std::size_t>(count);
    }
    // What the packed pair reader needs of a message, by value.
    struct unpacking {
        const unsigned char* message;
        std::size_t size;
        unsigned header, width, local_bits;
        std::uint32_t own_count, base, period;
    };
    // The reader's loop: entry k at bit header + k width, read from a whole word (a copy of
    // a variable length is a call), each item written by write(fields, k) with gid_of(local
    // index on the sender). Returns whether an entry names a cell or step outside the
    // sender's (its item is written with local index 0).
    template <class Write, class GidOf>
    static bool unpack_entries(const unpacking p, std::uint64_t count, Write write, GidOf gid_of) {
        const std::uint64_t mask = (std::uint64_t{1} << p.width) - 1,
                            local_mask = (std::uint64_t{1} << p.local_bits) - 1;
        std::uint32_t bad = 0;
        const auto deliver = [&](std::uint64_t entry, std::uint64_t k) __attribute__((always_inline)) {
            const auto local = static_cast<std::uint32_t>(entry & local_mask);
            const auto offset = static_cast<std::uint32_t>(entry >> p.local_bits);
            bad |= std::uint32_t(local >= p.own_count) | std::uint32_t(offset >= p.period);
            std::uint32_t step = p.base + offset;
            step -= step >= p.period ? p.period : 0;
            write(wire_spike{gid_of(local < p.own_count ? local : 0), step}, k);
        };
        // Entries whose word would run past the message are read from its last 8 bytes
        // (all of it when shorter), loaded once.
        const std::size_t tail_start = p.size >= 8 ? p.size - 8 : 0;
        std::uint64_t tail = 0;
        if (p.size >= 8) {
            std::memcpy(&tail, p.message + tail_start, 8);
        } else {
            for (std::size_t i = 0; i < p.size; ++i) tail |= std::uint64_t{p.message[i]} << (8 * i);
        }
        std::uint64_t k = 0, position = p.header;
        for (; k < count && position / 8 + 8 <= p.size; ++k, position += p.width) {
            std::uint64_t window;
            std::memcpy(&window, p.message + position / 8, 8);
            deliver((window >> (position % 8)) & mask, k);
        }
        for (; k < count; ++k, position += p.width) // position / 8 - tail_start < 8
            deliver((tail >> (8 * (position / 8 - tail_start) + position % 8)) & mask, k);
        return bad != 0;
    }

    // A cell's owner-major index and back, inline for the two fixed layouts (consecutive:
    // the gid itself; round robin: gid = local * P + owner), through the distribution for
    // random_shuffle (position = local * P + owner, gid = its permutation's).
    std::uint32_t owner_major(gid_type gid) const {
        switch (scheme_) {
        case distribution_scheme::consecutive:
            return gid;
        case distribution_scheme::round_robin: {
            const std::uint32_t local = by_ranks_.quotient(gid);
            return (gid - local * ranks_) * per_rank_ + local;
        }
        case distribution_scheme::random_shuffle:
            break;
        }
        return static_cast<std::uint32_t>(cells_.rank_of(gid)) * per_rank_ + cells_.local_of(gid);
    }
    gid_type gid_at(std::uint32_t owner_major) const {
        if (scheme_ == distribution_scheme::consecutive) {
            if (owner_major >= cells_.cells()) throw_no_cell();
            return owner_major;
        }
        const std::uint32_t owner = by_per_rank_.quotient(owner_major);
        const std::uint32_t local = owner_major - owner * per_rank_;
        const std::uint64_t position = std::uint64_t(local) * ranks_ + owner; // < N for a cell the owner holds
        if (position >= cells_.cells()) throw_no_cell();
        if (scheme_ == distribution_scheme::round_robin) return static_cast<gid_type>(position);
        return cells_.gid_of(static_cast<int>(owner), local);
    }
    [[noreturn]] static void throw_no_cell() {
        throw internal_error("routed: a bucket message names a cell its owner does not hold");
    }

    // Each form's size as the codec packs its block (spike_codec::packed_bits, the block's
    // upper bound), its header included.
    spike_codec plain_codec() const { return spike_codec(static_cast<std::uint32_t>(offset_space_)); }
    std::uint64_t plain_bits(std::size_t count, std::uint32_t item_high) const {
        return 2 + plain_codec().packed_bits(count, item_high, item_space_);
    }
    std::uint64_t framed_bits(std::size_t count, std::uint64_t item_range, std::uint64_t offset_range) const {
        return 2 + 2 * (item_bits_ + offset_bits_) +
               spike_codec(static_cast<std::uint32_t>(offset_range)).packed_bits(count, item_range - 1, item_range);
    }
    std::uint64_t pair_bits(std::size_t count, std::uint64_t local_high, int from) const {
        return 2 + spike_codec(static_cast<std::uint32_t>(period_)).packed_bits(count, local_high, cells_.count(from));
    }

    const routed_item_format& format_;
    routed_arrivals* arrivals_;
    const distribution& cells_;
    std::uint64_t period_;
    distribution_scheme scheme_;
    std::uint32_t ranks_, per_rank_;
    std::uint64_t item_space_, offset_space_;
    unsigned item_bits_, offset_bits_;
    // Divisions of every item's conversion, as multiplies (core/divider.hpp).
    std::uint32_t period32_ = 0;
    divider32 by_period_, by_ranks_, by_per_rank_;
    std::array<divider32, 65> by_entry_width_; // a packed pair message's count: its body / its entries' width
    // The packed pair form's header: step base, width d, all of it (constant for a run).
    unsigned pair_base_bits_ = 0, pair_width_bits_ = 0, pair_header_bits_ = 0;
    std::vector<std::uint32_t> counts_;           // cells per rank
    std::uint64_t largest_message_bits_per_item_; // plain, packed at the item space's width
    mutable std::vector<wire_spike> spikes_, arrived_;
    mutable std::vector<unsigned char> block_; // a block form's message before it is copied out
};

} // namespace spikex
