#pragma once
// How a bucket of `routed` items travels (route/message_codec.hpp): as one block of the
// spike wire codec (exchange/spike_codec.hpp) instead of item after item. Each item
// (destination rank, gid, step mod 2M; routed_item.hpp) becomes the codec's spike
// (item = gid, item space N = all cells; offset = destination * 2M + step mod 2M, P * 2M
// "steps"), so a bucket is bit-packed or sent as sorted Golomb-Rice gaps, whichever is
// smaller; every hop decodes it back into items and encodes its own buckets again.
// A bucket's items share few destinations (one on a direct grid) and spread over the
// gids, so gaps cost about log2(2M N / n) + 2 bits for n items: 2-3 bytes where a fixed
// item of a million cells per rank takes 4 (docs/methods/wire_format.md).
// Only when P * 2M fits the codec's 32-bit steps (usable()); otherwise items travel as
// they are.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/exchange/routed_item.hpp"
#include "spikex/exchange/spike_codec.hpp"
#include "spikex/route/message_codec.hpp"

namespace spikex {

class routed_bucket_codec final: public message_codec {
public:
    // `format` must outlive the codec; usable(format, ranks) must hold.
    routed_bucket_codec(const routed_item_format& format, int ranks):
        format_(format),
        period_(static_cast<std::uint64_t>(format.period())),
        codec_(static_cast<std::uint32_t>(period_ * std::uint64_t(ranks))) {
        if (!usable(format, ranks)) throw internal_error("routed: P * 2M does not fit the bucket codec");
    }

    static bool usable(const routed_item_format& format, int ranks) {
        return std::uint64_t(format.period()) * std::uint64_t(ranks) < (std::uint64_t{1} << 32);
    }

    void encode(const unsigned char* items, std::size_t count, std::vector<unsigned char>& out) const override {
        spikes_.resize(count);
        const std::size_t bytes = format_.bytes();
        for (std::size_t k = 0; k < count; ++k) {
            const unsigned char* item = items + k * bytes;
            const wire_spike f = format_.fields(item);
            const auto destination = static_cast<std::uint64_t>(format_.destination(item));
            spikes_[k] = {f.item, static_cast<std::uint32_t>(destination * period_ + f.offset)};
        }
        out.clear();
        codec_.encode(spikes_, format_.cells(), out);
    }

    std::size_t decode(const unsigned char* message, std::size_t size, unsigned char* items,
                       std::size_t capacity) const override {
        const std::size_t bytes = format_.bytes();
        std::size_t count = 0;
        codec_.decode(message, size, format_.cells(), [&](std::uint32_t gid, std::uint32_t offset) {
            if (count == capacity) throw internal_error("routed: a bucket message holds more items than a bucket");
            format_.encode_fields(static_cast<int>(offset / period_),
                                  {gid, static_cast<std::uint32_t>(offset % period_)}, items + count * bytes);
            ++count;
        });
        if (count == 0) throw internal_error("routed: an empty bucket message");
        return count;
    }

    // Packed (the codec's upper bound): the header and count entries of bits(N - 1) +
    // bits(P 2M - 1) bits, at least 8 each.
    std::size_t max_message_bytes(std::size_t count) const override {
        const unsigned entry =
            std::max(8u, spike_codec::bits_for(format_.cells() - 1) + spike_codec::bits_for(codec_.steps() - 1));
        return (spike_codec::mode_bits + spike_codec::parameter_bits + count * entry + 7) / 8;
    }

private:
    const routed_item_format& format_;
    std::uint64_t period_;
    spike_codec codec_;
    mutable std::vector<wire_spike> spikes_;
};

} // namespace spikex
