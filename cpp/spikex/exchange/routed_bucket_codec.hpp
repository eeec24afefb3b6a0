#pragma once
// How a bucket of `routed` items travels (route/message_codec.hpp): as one block of the
// spike wire codec (exchange/spike_codec.hpp) instead of item after item.
//
// Each item (destination rank, gid, step mod 2M; routed_item.hpp) becomes the codec's
// spike with
//   item   = the cell's owner-major index, owner rank * B + local index on the owner
//            (B = the most cells a rank holds; item space P B), so one rank's cells form
//            one range under every distribution (round robin spreads them over all gids);
//   offset = destination * 2M + step mod 2M (offset space P 2M).
// A bucket's items come from few owners (one on a direct grid: the sender) and go to few
// destinations (one on a direct grid: the receiver), so the message takes one of three
// forms, one bit stream of a header and the block (spike_codec's prefix):
//   1            pair: every item's owner is the sender and its destination the receiver
//                (both known from the message): item = local index on the sender (item
//                space its cells), offset = step mod 2M (offset space 2M)
//   0 1 frame    framed: the block codes item - smallest item and offset - smallest
//                offset within their ranges, its keys spanning the bucket's own cells and
//                steps; the frame is the item base and item range - 1 in bits(P B - 1)
//                bits each, then the offset base and offset range - 1 in bits(P 2M - 1)
//   0 0          plain: the whole spaces
// The encoder takes the form whose packed size (the block's upper bound) is smallest,
// header included, plain on a tie: one item of a direct grid's bucket takes about its
// local index and step alone, a full bucket pays for a frame.
// Only when P * 2M and P * B fit the codec's 32 bits (usable()); otherwise items travel
// as they are.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "spikex/core/divider.hpp"
#include "spikex/core/errors.hpp"
#include "spikex/exchange/routed_item.hpp"
#include "spikex/exchange/spike_codec.hpp"
#include "spikex/network/distribution.hpp"
#include "spikex/route/message_codec.hpp"

namespace spikex {

// Items this wide or narrower travel as they are under exchange.compress = "auto": the
// spike wire target of issue 21 (<= 3 bytes a spike) holds without the codec, and the codec
// would save about 1.2 bytes an item and hop there (1.79 coded bytes at 3-byte items),
// 2.8 ns at BG/P's byte cost (profiles/bgp.toml, 2.35 ns a byte), against 15-24 ns of
// encode and decode (docs/methods/wire_format.md, "Measured").
inline constexpr std::size_t routed_uncoded_item_bytes = 3;

class routed_bucket_codec final: public message_codec {
public:
    // `format` and `cells` must outlive the codec; usable(format, cells) must hold.
    routed_bucket_codec(const routed_item_format& format, const distribution& cells):
        format_(format),
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
        by_period_ = divider32(period32_);
        by_ranks_ = divider32(ranks_);
        by_per_rank_ = divider32(per_rank_);
    }

    static bool usable(const routed_item_format& format, const distribution& cells) {
        const auto ranks = static_cast<std::uint64_t>(cells.ranks());
        return std::uint64_t(format.period()) * ranks < (std::uint64_t{1} << 32) &&
               std::uint64_t(cells.max_count()) * ranks < (std::uint64_t{1} << 32) && cells.max_count() > 0;
    }
    // Whether buckets travel coded under exchange.compress = `compress`: "false" never,
    // "true" wherever usable, "auto" where usable and the items are wider than
    // routed_uncoded_item_bytes. The run (routed.cpp) and the dry run
    // (dryrun/exchange_counts.cpp) both ask here.
    static bool wanted(const std::string& compress, const routed_item_format& format, const distribution& cells) {
        if (compress == "false" || !usable(format, cells)) return false;
        return compress == "true" || format.bytes() > routed_uncoded_item_bytes;
    }

    void encode(const unsigned char* items, std::size_t count, int from, int to,
                std::vector<unsigned char>& out) const override {
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
        out.clear();
        if (count == 0) return;
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
            const wire_field header[] = {{1, 1}};
            spike_codec(static_cast<std::uint32_t>(period_)).encode(spikes_, cells_.count(from), out, header);
        } else if (framed < plain) {
            for (auto& s: spikes_) s = {s.item - item_low, s.offset - offset_low};
            const wire_field header[] = {{0b10, 2},
                                         {item_low, item_bits_},
                                         {item_range - 1, item_bits_},
                                         {offset_low, offset_bits_},
                                         {offset_range - 1, offset_bits_}};
            spike_codec(static_cast<std::uint32_t>(offset_range)).encode(spikes_, item_range, out, header);
        } else {
            const wire_field header[] = {{0b00, 2}};
            spike_codec(static_cast<std::uint32_t>(offset_space_)).encode(spikes_, item_space_, out, header);
        }
    }

    std::size_t decode(const unsigned char* message, std::size_t size, int from, int to, unsigned char* items,
                       std::size_t capacity) const override {
        if (size == 0) throw internal_error("routed: an empty bucket message");
        if (from < 0 || to < 0 || std::uint32_t(from) >= ranks_ || std::uint32_t(to) >= ranks_)
            throw internal_error("routed: a bucket message between ranks outside the job");
        wire_bit_reader in(message, size);
        std::uint64_t pair = 0, framed = 0;
        if (!in.take_long(1, pair)) throw internal_error("routed: a bucket message without its header");
        // What the block's item and offset are relative to, and their spaces.
        std::uint64_t item_low = 0, item_range = item_space_, offset_low = 0, offset_range = offset_space_;
        unsigned header_bits = 1;
        if (pair != 0) {
            item_low = std::uint64_t(from) * per_rank_;
            item_range = cells_.count(from);
            offset_low = std::uint64_t(to) * period_;
            offset_range = period_;
        } else {
            if (!in.take_long(1, framed)) throw internal_error("routed: a bucket message without its header");
            header_bits = 2;
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

    // Plain and packed at the item space's width (the codec's upper bound; another form
    // is used only when smaller): the header, the block's short header and count entries
    // of bits(P B - 1) + bits(P 2M - 1) bits, at least 8 each.
    std::size_t max_message_bytes(std::size_t count) const override {
        return (2 + plain_codec().packed_bits(count, item_space_ - 1, item_space_) + 7) / 8;
    }

private:
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
        return 1 + spike_codec(static_cast<std::uint32_t>(period_)).packed_bits(count, local_high, cells_.count(from));
    }

    const routed_item_format& format_;
    const distribution& cells_;
    std::uint64_t period_;
    distribution_scheme scheme_;
    std::uint32_t ranks_, per_rank_;
    std::uint64_t item_space_, offset_space_;
    unsigned item_bits_, offset_bits_;
    // Divisions of every item's conversion, as multiplies (core/divider.hpp).
    std::uint32_t period32_ = 0;
    divider32 by_period_, by_ranks_, by_per_rank_;
    mutable std::vector<wire_spike> spikes_;
};

} // namespace spikex
