// Exchange "allgather" — Hines, Kumar & Schürmann 2011, section Allgather (NEURON's
// default spike exchange).
//
// Algorithm: every rank buffers the spikes its cells emit during an interval and, at the
//   interval end, encodes them as one block of the spike wire codec (exchange/spike_codec.hpp:
//   local cell index and step within the interval, about 1.5-2.5 bytes per spike), or as
//   8-byte entries with exchange.compress = false. One MPI_Allgather of a fixed block per
//   rank: a 4-byte length and `allgather_slots` x 2 bytes of the encoded block (8 bytes per
//   slot uncompressed). Ranks whose block is longer send the rest in one MPI_Allgatherv
//   (everyone knows its size from the lengths, so it happens only when needed, and all
//   ranks agree on it). Every rank then decodes all P blocks and looks up each source:
//   spikes of sources with local targets go to the delivery queue.
// Cost per interval: 1 Allgather of P * (4 + S e) bytes received per rank (S slots, e = 2
//   coded / 8 full bytes), plus 1 Allgatherv of the overflow when any rank's block is
//   longer; P*N*r*M*dt spikes decoded per rank (N cells, rate r), each with one lookup.
//   Receive buffer and scan grow with P; that is the method's limit.
// Memory: P * (4 + S e) receive block, the overflow buffer, the source lookup (dense: N
//   slots).
// Ordering: none needed; the engine's delivery is canonical whatever the arrival order.
#include <algorithm>

#include "spikex/connections/source_lookup.hpp"
#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/exchange/method_registry.hpp"
#include "spikex/exchange/spike_codec.hpp"
#include "spikex/instrument/counter_names.hpp"
#include "spikex/instrument/stopwatch.hpp"

namespace spikex {
namespace {

constexpr std::size_t header_bytes = 4;     // length of the rank's block in bytes, uint32
constexpr std::size_t coded_slot_bytes = 2; // bytes of the fixed block per slot, coded
constexpr std::size_t full_entry_bytes = 8; // [gid uint32 LE][step within the interval uint32 LE]

struct allgather_options {
    int slots = 10;                // exchange.allgather_slots
    std::string compress = "auto"; // exchange.compress: "auto" | "true" | "false"
    std::string source_lookup = "dense";
};

class allgather_exchange final: public spike_exchange {
public:
    explicit allgather_exchange(allgather_options options): options_(std::move(options)) {}
    std::string name() const override { return "allgather"; }

    void setup(const exchange_setup& s) override {
        comm_ = &s.comm;
        cells_ = &s.cells;
        ranks_ = s.comm.size();
        slots_ = options_.slots;
        compressed_ = options_.compress != "false";
        codec_ = spike_codec(s.steps_per_interval);
        slot_bytes_ = compressed_ ? coded_slot_bytes : full_entry_bytes;
        payload_bytes_ = static_cast<std::size_t>(slots_) * slot_bytes_;
        block_bytes_ = header_bytes + payload_bytes_;
        send_block_.assign(block_bytes_, 0);
        receive_blocks_.assign(block_bytes_ * ranks_, 0);
        lengths_.assign(ranks_, 0);
        overflow_counts_.assign(ranks_, 0);
        overflow_displs_.assign(ranks_, 0);
        lookup_ = make_source_lookup(options_.source_lookup, s.table.sources(), s.cells.cells());
        measure_wait_ = s.measure_wait;
        steps_per_interval_ = s.steps_per_interval;
    }

    void spike_emitted(gid_type gid, step_type step) override { pending_.push_back({gid, step}); }

protected:
    void exchange_interval(step_type step, step_type, spike_sink& sink) override {
        // Every buffered spike lies in the interval that `step` ends (or a run ends in).
        const step_type start = ((step - 1) / steps_per_interval_) * steps_per_interval_;
        pack(start);
        comm_->allgather(send_block_.data(), block_bytes_, receive_blocks_.data());
        ++rounds_;
        ++messages_;
        bytes_ += block_bytes_;
        bytes_received_ += receive_blocks_.size();

        bool any_overflow = false;
        for (int r = 0; r < ranks_; ++r) {
            std::memcpy(&lengths_[r], &receive_blocks_[r * block_bytes_], header_bytes);
            if (lengths_[r] > payload_bytes_) any_overflow = true;
        }
        if (any_overflow) exchange_overflow();
        unpack(start, sink);
        spikes_sent_ += pending_.size();
        pending_.clear();
    }

public:
    void verify_conservation() override {
        std::int64_t sent_everywhere = comm_->allreduce_sum(static_cast<std::int64_t>(spikes_sent_));
        std::int64_t missing = comm_->allreduce_max(sent_everywhere - static_cast<std::int64_t>(spikes_received_));
        if (missing != 0) {
            throw internal_error(
                spikex::format("allgather: spikes sent ({}) != spikes received on some rank (difference {})",
                               sent_everywhere, missing));
        }
    }

    std::map<std::string, double> counters() const override {
        return {
            {counter::messages_sent, double(messages_)},          {counter::bytes_sent, double(bytes_)},
            {counter::bytes_received, double(bytes_received_)},   {counter::rounds, double(rounds_)},
            {counter::overflow_rounds, double(overflow_rounds_)}, {counter::spikes_sent, double(spikes_sent_)},
            {counter::spikes_received, double(spikes_received_)}, {counter::spikes_matched, double(spikes_matched_)},
            {counter::wire_bytes, double(wire_bytes_)},           {counter::wire_spikes, double(spikes_sent_)},
            {counter::encoder_sorts, double(encoder_sorts_)}};
    }

    std::map<std::string, double> properties() const override {
        return {{counter::compressed, compressed_ ? 1.0 : 0.0},
                {counter::entry_bytes, double(slot_bytes_)},
                {counter::allgather_slots, double(slots_)}};
    }

    std::map<std::string, double> memory_bytes() const override {
        return {
            {"exchange_buffers", double(send_block_.capacity() + coded_.capacity() +
                                        pending_.capacity() * sizeof(spike) + wire_.capacity() * sizeof(wire_spike))},
            {"receive_buffers", double(receive_blocks_.capacity() + overflow_receive_.capacity() + joined_.capacity())},
            {"lookup_tables", lookup_ ? double(lookup_->bytes()) : 0.0}};
    }

private:
    // Encodes the interval's spikes; the first payload_bytes_ go into the fixed block, the
    // rest is this rank's overflow.
    void pack(step_type start) {
        coded_.clear();
        if (compressed_) {
            wire_.resize(pending_.size());
            for (std::size_t i = 0; i < pending_.size(); ++i) {
                wire_[i] = {cells_->local_of(pending_[i].gid), static_cast<std::uint32_t>(pending_[i].step - start)};
            }
            codec_.encode(wire_, cells_->count(comm_->rank()), coded_, {}, &encoder_sorts_);
        } else {
            coded_.resize(pending_.size() * full_entry_bytes);
            for (std::size_t i = 0; i < pending_.size(); ++i) {
                std::uint32_t words[2] = {pending_[i].gid, static_cast<std::uint32_t>(pending_[i].step - start)};
                std::memcpy(&coded_[i * full_entry_bytes], words, sizeof words); // little-endian targets
            }
        }
        wire_bytes_ += coded_.size();
        auto length = static_cast<std::uint32_t>(coded_.size());
        std::memcpy(send_block_.data(), &length, header_bytes);
        std::size_t in_block = std::min(coded_.size(), payload_bytes_);
        std::copy_n(coded_.begin(), in_block, send_block_.begin() + header_bytes);
    }

    void exchange_overflow() {
        int total = 0;
        for (int r = 0; r < ranks_; ++r) {
            overflow_counts_[r] = lengths_[r] > payload_bytes_ ? static_cast<int>(lengths_[r] - payload_bytes_) : 0;
            overflow_displs_[r] = total;
            total += overflow_counts_[r];
        }
        overflow_receive_.resize(total);
        bytes_received_ += total;
        const std::size_t extra = coded_.size() > payload_bytes_ ? coded_.size() - payload_bytes_ : 0;
        comm_->allgatherv(coded_.data() + (coded_.size() - extra), extra, overflow_receive_.data(), overflow_counts_,
                          overflow_displs_);
        ++rounds_;
        ++overflow_rounds_;
        if (extra > 0) {
            ++messages_;
            bytes_ += extra;
        }
    }

    void unpack(step_type start, spike_sink& sink) {
        for (int r = 0; r < ranks_; ++r) {
            const std::size_t length = lengths_[r];
            const unsigned char* block = &receive_blocks_[r * block_bytes_ + header_bytes];
            if (length > payload_bytes_) { // the block continues in the overflow
                joined_.resize(length);
                std::copy_n(block, payload_bytes_, joined_.begin());
                std::copy_n(overflow_receive_.data() + overflow_displs_[r], length - payload_bytes_,
                            joined_.begin() + payload_bytes_);
                block = joined_.data();
            }
            decode(r, block, length, start, sink);
        }
    }

    void decode(int rank, const unsigned char* block, std::size_t length, step_type start, spike_sink& sink) {
        auto arrive = [&](gid_type gid, std::uint32_t offset) {
            ++spikes_received_;
            std::uint32_t run = lookup_->find(gid);
            if (run != no_run) {
                ++spikes_matched_;
                sink.deliver_source(run, start + offset);
            }
        };
        if (compressed_) {
            codec_.decode(block, length, cells_->count(rank), [&](std::uint32_t local, std::uint32_t offset) {
                arrive(cells_->gid_of(rank, local), offset);
            });
        } else {
            for (std::size_t i = 0; i + full_entry_bytes <= length; i += full_entry_bytes) {
                std::uint32_t words[2];
                std::memcpy(words, block + i, sizeof words);
                arrive(words[0], words[1]);
            }
        }
    }

    allgather_options options_;
    const distribution* cells_ = nullptr;
    int ranks_ = 1;
    int slots_ = 10;
    bool compressed_ = true;
    spike_codec codec_;
    step_type steps_per_interval_ = 1;
    std::size_t slot_bytes_ = coded_slot_bytes, payload_bytes_ = 0, block_bytes_ = 0;
    std::unique_ptr<source_lookup> lookup_;

    std::vector<spike> pending_;
    std::vector<wire_spike> wire_;
    std::vector<unsigned char> coded_, send_block_, receive_blocks_, overflow_receive_, joined_;
    std::vector<std::uint32_t> lengths_;
    std::vector<int> overflow_counts_, overflow_displs_;

    std::uint64_t messages_ = 0, bytes_ = 0, bytes_received_ = 0, rounds_ = 0, overflow_rounds_ = 0;
    std::uint64_t spikes_sent_ = 0, spikes_received_ = 0, spikes_matched_ = 0, wire_bytes_ = 0, encoder_sorts_ = 0;
};

} // namespace

void count_allgather(count_view& view); // dryrun/exchange_counts.cpp

method_entry allgather_method() {
    return {
        .name = "allgather",
        .description = "MPI_Allgather of a fixed number of spike slots per rank each min-delay interval, overflow in a "
                       "following MPI_Allgatherv (Hines et al. 2011, section Allgather)",
        .capabilities = {.broadcast = true},
        .options =
            {
                {.name = "allgather_slots",
                 .kind = option_kind::integer,
                 .default_value = std::int64_t{10},
                 .doc = "Spike slots per rank in the fixed-size MPI_Allgather; more spikes go in an overflow "
                        "MPI_Allgatherv.",
                 .minimum = 1,
                 .maximum = 2147483647},
                compress_option(),
                source_lookup_option(),
            },
        .variants = {{{{"allgather_slots", std::int64_t{1}}}},
                     {{{"compress", false}}},
                     {{{"source_lookup", std::string("hash")}}},
                     {{{"source_lookup", std::string("sorted")}}}},
        .make =
            [](const option_reader& o) {
                return std::make_unique<allgather_exchange>(allgather_options{
                    static_cast<int>(o.integer("allgather_slots")), o.text("compress"), o.text("source_lookup")});
            },
        .count = count_allgather,
        .cost_formula = "allgather",
        .docs_page = "allgather",
    };
}

} // namespace spikex
