// Exchange "allgather" — Hines, Kumar & Schürmann 2011, section Allgather (NEURON's
// default spike exchange).
//
// Algorithm: every rank buffers the spikes its cells emit during an interval. At the
//   interval end one MPI_Allgather of a fixed block per rank: a 4-byte spike count and
//   `allgather_slots` entries. Ranks whose count exceeds the slots send the rest in one
//   MPI_Allgatherv (everyone knows its size from the counts, so it happens only when
//   needed, and all ranks agree on it). Every rank then scans all P blocks and looks up
//   each source: spikes of sources with local targets go to the delivery queue.
// Cost per interval: 1 Allgather of P * (4 + S*e) bytes received per rank (S slots,
//   e = 2 compressed / 8 full bytes), plus 1 Allgatherv of the overflow when any rank
//   emitted more than S spikes; P*N*r*M*dt spikes scanned per rank (N cells, rate r),
//   each with one lookup. Receive buffer and scan grow with P; that is the method's limit.
// Memory: P * (4 + S*e) receive block, the overflow buffer, the source lookup (dense: N
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

constexpr std::size_t header_bytes = 4; // spike count of the rank, uint32

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
        bool possible = s.cells.max_count() <= 256 && s.steps_per_interval <= 256;
        if (options_.compress == "auto")
            compressed_ = possible;
        else if (options_.compress == "true") {
            if (!possible) {
                throw user_error(
                    spikex::format("exchange.compress = true: needs at most 256 cells per rank (a rank holds {}) "
                                   "and at most 256 steps per interval ({})",
                                   s.cells.max_count(), s.steps_per_interval));
            }
            compressed_ = true;
        } else
            compressed_ = false;

        entry_bytes_ = compressed_ ? compressed_codec::entry_bytes : full_codec::entry_bytes;
        block_bytes_ = header_bytes + slots_ * entry_bytes_;
        send_block_.assign(block_bytes_, 0);
        receive_blocks_.assign(block_bytes_ * ranks_, 0);
        counts_.assign(ranks_, 0);
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
            std::memcpy(&counts_[r], &receive_blocks_[r * block_bytes_], header_bytes);
            if (counts_[r] > static_cast<std::uint32_t>(slots_)) any_overflow = true;
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
            {counter::spikes_received, double(spikes_received_)}, {counter::spikes_matched, double(spikes_matched_)}};
    }

    std::map<std::string, double> properties() const override {
        return {{counter::compressed, compressed_ ? 1.0 : 0.0},
                {counter::entry_bytes, double(entry_bytes_)},
                {counter::allgather_slots, double(slots_)}};
    }

    std::map<std::string, double> memory_bytes() const override {
        return {{"exchange_buffers",
                 double(send_block_.capacity() + overflow_send_.capacity() + pending_.capacity() * sizeof(spike))},
                {"receive_buffers", double(receive_blocks_.capacity() + overflow_receive_.capacity())},
                {"lookup_tables", lookup_ ? double(lookup_->bytes()) : 0.0}};
    }

private:
    void encode(unsigned char* out, const spike& s, step_type start) const {
        auto offset = static_cast<std::uint32_t>(s.step - start);
        if (compressed_)
            compressed_codec::encode(out, cells_->local_of(s.gid), offset);
        else
            full_codec::encode(out, s.gid, offset);
    }

    void pack(step_type start) {
        auto count = static_cast<std::uint32_t>(pending_.size());
        std::memcpy(send_block_.data(), &count, header_bytes);
        std::size_t in_block = std::min<std::size_t>(count, slots_);
        for (std::size_t i = 0; i < in_block; ++i) {
            encode(&send_block_[header_bytes + i * entry_bytes_], pending_[i], start);
        }
        overflow_send_.resize((count - in_block) * entry_bytes_);
        for (std::size_t i = in_block; i < count; ++i) {
            encode(&overflow_send_[(i - in_block) * entry_bytes_], pending_[i], start);
        }
    }

    void exchange_overflow() {
        int total = 0;
        for (int r = 0; r < ranks_; ++r) {
            std::uint32_t extra = counts_[r] > static_cast<std::uint32_t>(slots_) ? counts_[r] - slots_ : 0;
            overflow_counts_[r] = static_cast<int>(extra * entry_bytes_);
            overflow_displs_[r] = total;
            total += overflow_counts_[r];
        }
        overflow_receive_.resize(total);
        bytes_received_ += total;
        comm_->allgatherv(overflow_send_.data(), overflow_send_.size(), overflow_receive_.data(), overflow_counts_,
                          overflow_displs_);
        ++rounds_;
        ++overflow_rounds_;
        if (!overflow_send_.empty()) {
            ++messages_;
            bytes_ += overflow_send_.size();
        }
    }

    void deliver(int rank, const unsigned char* entry, step_type start, spike_sink& sink) {
        gid_type gid;
        std::uint32_t offset;
        if (compressed_) {
            local_index local;
            compressed_codec::decode(entry, local, offset);
            gid = cells_->gid_of(rank, local);
        } else {
            full_codec::decode(entry, gid, offset);
        }
        ++spikes_received_;
        std::uint32_t run = lookup_->find(gid);
        if (run != no_run) {
            ++spikes_matched_;
            sink.deliver_source(run, start + offset);
        }
    }

    void unpack(step_type start, spike_sink& sink) {
        for (int r = 0; r < ranks_; ++r) {
            std::uint32_t in_block = std::min<std::uint32_t>(counts_[r], slots_);
            const unsigned char* block = &receive_blocks_[r * block_bytes_ + header_bytes];
            for (std::uint32_t i = 0; i < in_block; ++i) deliver(r, block + i * entry_bytes_, start, sink);
            std::uint32_t extra = counts_[r] - in_block;
            const unsigned char* rest = overflow_receive_.data() + (extra ? overflow_displs_[r] : 0);
            for (std::uint32_t i = 0; i < extra; ++i) deliver(r, rest + i * entry_bytes_, start, sink);
        }
    }

    allgather_options options_;
    const distribution* cells_ = nullptr;
    int ranks_ = 1;
    int slots_ = 10;
    bool compressed_ = false;
    step_type steps_per_interval_ = 1;
    std::size_t entry_bytes_ = 8;
    std::size_t block_bytes_ = 0;
    std::unique_ptr<source_lookup> lookup_;

    std::vector<spike> pending_;
    std::vector<unsigned char> send_block_, receive_blocks_, overflow_send_, overflow_receive_;
    std::vector<std::uint32_t> counts_;
    std::vector<int> overflow_counts_, overflow_displs_;

    std::uint64_t messages_ = 0, bytes_ = 0, bytes_received_ = 0, rounds_ = 0, overflow_rounds_ = 0;
    std::uint64_t spikes_sent_ = 0, spikes_received_ = 0, spikes_matched_ = 0;
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
                {.name = "compress",
                 .kind = option_kind::choice,
                 .default_value = std::string("auto"),
                 .doc = "2-byte spike entries (local cell byte + step byte): auto uses them when every rank has <= "
                        "256 cells and an interval <= 256 steps.",
                 .choices = {std::string("auto"), true, false}},
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
