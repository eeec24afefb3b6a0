#pragma once
// One item of the `routed` exchange (routed.cpp; counted by dryrun/exchange_counts.cpp):
// a spike for one target rank, as one spike alone of the spike wire codec
// (spike_codec::encode_single) whose tag is the destination rank (bits(P - 1) bits, what
// the router reads at every hop), item = the source gid (bits(N - 1)), offset = the step
// mod 2M. An item reaches its destination while that rank computes or synchronizes the
// interval it was emitted in, or synchronizes the interval before (items of the next
// interval may come early), so its step lies in [R - M, R + M) around the receiver's last
// synchronization step R and the step mod 2M gives it. ceil((bits(P - 1) + bits(N - 1) +
// bits(2M - 1)) / 8) bytes, at most 12 (the first version's fixed size).
#include <cstdint>
#include <cstring>

#include "spikex/core/types.hpp"
#include "spikex/exchange/spike_codec.hpp"

namespace spikex {

class routed_item_format {
public:
    routed_item_format() = default;
    routed_item_format(int ranks, std::uint64_t cells, step_type steps_per_interval):
        codec_(static_cast<std::uint32_t>(2 * steps_per_interval)),
        cells_(cells),
        period_(2 * steps_per_interval),
        rank_bits_(spike_codec::bits_for(static_cast<std::uint64_t>(ranks - 1))),
        bytes_(codec_.single_bytes(cells, rank_bits_)),
        word_(codec_, cells, rank_bits_) {}

    std::size_t bytes() const { return bytes_; }

    void encode(int destination, gid_type gid, step_type step, unsigned char* out) const {
        encode_fields(destination, {gid, static_cast<std::uint32_t>(step % period_)}, out);
    }
    // The item's fields as they are: the gid and the step mod 2M (routed_bucket_codec.hpp).
    void encode_fields(int destination, wire_spike gid_and_offset, unsigned char* out) const {
        codec_.encode_single(gid_and_offset, cells_, rank_bits_, static_cast<std::uint32_t>(destination), out);
    }
    // The gid and the step mod 2M of an item that came off the wire, checked as
    // spike_codec::decode_single checks them (gid < N, step mod 2M < 2M); a one-word item
    // read inline (every uncoded item is read here at its destination).
    wire_spike fields(const unsigned char* item) const {
        if (!word_.fits()) return codec_.decode_single(item, bytes_, cells_, rank_bits_);
        std::uint32_t destination = 0;
        const wire_spike spike = word_.unpack(item, destination);
        if (spike.item >= cells_) throw_malformed_block("item outside the item space");
        if (spike.offset >= std::uint64_t(period_)) throw_malformed_block("offset outside the interval");
        return spike;
    }
    // The item as one word, where it fits (a tag = the destination, the gid and the step
    // mod 2M), for the bucket codec's per-item loop (routed_bucket_codec.hpp).
    const spike_codec::single_word& word() const { return word_; }
    std::uint64_t cells() const { return cells_; }
    step_type period() const { return period_; }
    int destination(const unsigned char* item) const {
        return static_cast<int>(spike_codec::single_tag(item, bytes_, rank_bits_));
    }
    // The gid and the step, `reference` = the receiver's last synchronization step.
    void decode(const unsigned char* item, step_type reference, gid_type& gid, step_type& step) const {
        const wire_spike spike = fields(item);
        gid = spike.item;
        step = step_of(spike.offset, reference);
    }
    // The step whose value mod 2M is `offset`, in [reference - M, reference + M).
    step_type step_of(std::uint32_t offset, step_type reference) const {
        const step_type first = reference - period_ / 2;
        const step_type from_first = (step_type(offset) - first) % period_;
        return first + (from_first < 0 ? from_first + period_ : from_first);
    }

private:
    spike_codec codec_;
    std::uint64_t cells_ = 1;
    step_type period_ = 2;
    unsigned rank_bits_ = 0;
    std::size_t bytes_ = 1;
    spike_codec::single_word word_;
};

} // namespace spikex
