#pragma once
// What the target-addressed exchanges of NEST 5g (alltoall, alltoallv) share: the
// presynaptic target table, per-destination send lists filled when a cell fires, the wire
// entry, delivery straight to the connection, and the conservation check. Receivers need
// nothing that grows with N: a spike reaches a rank only if a target there needs it,
// already addressed to the connections it goes to (through the receiver's numbering of
// its locations per sender, 4 bytes a location, which keeps the wire items small).
#include <array>
#include <map>
#include <string>
#include <vector>

#include "spikex/connections/sender_numbering.hpp"
#include "spikex/connections/target_table.hpp"
#include "spikex/exchange/method_registry.hpp"
#include "spikex/exchange/spike_codec.hpp"

namespace spikex {

// A spike on the wire, target-addressed: a wire_spike (exchange/spike_codec.hpp) whose item
// is the location of its source run (sorted layout) or connection (creation order) on the
// receiving rank, in that rank's numbering of its locations from the sending rank
// (connections/sender_numbering.hpp), and whose offset is the step within the interval.
// The entries for one destination in one interval travel as one block of the spike wire
// codec, whose item space is the receiver's count of locations from the sender.

// The option both directed exchanges have, and their capabilities.
option_spec max_init_buffer_option();
method_capabilities directed_capabilities();

class directed_exchange: public spike_exchange {
public:
    explicit directed_exchange(double max_init_buffer_mb): max_init_buffer_mb_(max_init_buffer_mb) {}
    void setup(const exchange_setup& s) override;
    void spike_emitted(gid_type gid, step_type step) override;
    void verify_conservation() override;
    std::map<std::string, double> counters() const override;
    std::map<std::string, double> memory_bytes() const override;
    std::map<std::string, double> properties() const override;
    std::vector<std::pair<local_index, std::uint64_t>> target_entries() const override;

protected:
    void exchange_interval(step_type step, step_type due, spike_sink& sink) override;
    // Moves every pending entry to its destination and delivers what arrives here.
    virtual void transfer(step_type interval_start, spike_sink& sink) = 0;
    virtual std::size_t buffer_bytes() const = 0;         // send side, capacity
    virtual std::size_t receive_buffer_bytes() const = 0; // capacity

    // Appends the block of destination r's pending entries to `out`; returns its bytes.
    std::size_t encode(int r, std::vector<unsigned char>& out) {
        const std::size_t n = codec_.encode(pending_[r], items_for_[r], out, {}, &encoder_sorts_);
        wire_bytes_ += n;
        return n;
    }
    // Delivers every entry of a block received from rank `from`: decoded a batch at a time,
    // then delivered together. Decoding and delivering entry by entry put the decoder's
    // serial bit parsing and each delivery's cache misses (the connection's delay, its
    // slot in the delivery ring) in one out-of-order window, and nothing looked ahead:
    // 5g-nosort (an entry per connection) spent 2.4 s more in the exchange than with
    // 19-byte entries delivered from the receive buffer (28.8 M entries on one rank,
    // 2026-11-27).
    void deliver_block(int from, const unsigned char* block, std::size_t bytes, step_type interval_start,
                       spike_sink& sink) {
        std::size_t n = 0;
        entries_received_ +=
            codec_.decode(block, bytes, numbering_.count(from), [&](std::uint32_t index, std::uint32_t offset) {
                decoded_[n++] = {numbering_.location(from, index), offset};
                if (n == decoded_.size()) {
                    sink.deliver_batch(decoded_.data(), n, interval_start, !sorted_);
                    n = 0;
                }
            });
        sink.deliver_batch(decoded_.data(), n, interval_start, !sorted_);
    }

    int ranks_ = 1;
    double max_init_buffer_mb_ = 128.0;            // exchange.max_init_buffer_mb
    std::vector<std::vector<wire_spike>> pending_; // per destination rank
    std::uint64_t messages_ = 0, bytes_ = 0, bytes_received_ = 0, rounds_ = 0;

private:
    const distribution* cells_ = nullptr;
    bool sorted_ = true;
    step_type steps_per_interval_ = 1;
    spike_codec codec_;
    std::array<spike_sink::entry, 1024> decoded_{}; // deliver_block's batch (8 KiB)
    // Per destination rank: its locations from this rank, the item space of the blocks for
    // it (the target entries for it, one per location).
    std::vector<std::uint32_t> items_for_;
    sender_numbering numbering_; // this rank's locations per sending rank
    std::uint64_t wire_bytes_ = 0;
    std::uint64_t encoder_sorts_ = 0; // blocks the codec had to sort (counter::encoder_sorts)
    target_table targets_;
    target_table_stats init_stats_;
    std::uint64_t spikes_sent_ = 0, entries_sent_ = 0, entries_received_ = 0;
};

} // namespace spikex
