// Exchange "rma" — the modern analogue of the Blue Gene/P DMA engine behind DCMF_Multicast
// (Hines, Kumar & Schürmann 2011, sections Multisend and Discussion: transfer "takes place
// in the background without affecting normal CPU computation"): one-sided MPI_Put, passive
// target.
//
// Algorithm: every rank exposes a window with one "window cell" per remote source it needs
//   (per source rank, in the order of its target-rank request list, so a source rank
//   addresses its cell's window cell as base + position, no lookup); a window cell is a
//   ring of exchange.rma_slot_spikes entries — the option and the counters slots_scanned /
//   window_bytes_per_slot keep the older word "slot" for a window cell. An entry is the
//   spike's step within the interval as one spike alone of the spike wire codec
//   (rma_entry_bytes, point_to_point.hpp: a 1-bit "written" tag and bits(M - 1) bits, 1
//   byte up to M = 128): the window cell names the source, and every entry read at an end
//   is of a step in [end - M, end), so the offset gives the step. When a cell fires, the
//   source rank MPI_Puts its entry into the next ring position of the cell's window cell
//   on each target rank, inside one MPI_Win_lock_all epoch that lasts the whole run. At
//   every (sub-)interval end: MPI_Win_flush_all (my puts are complete at their targets),
//   MPI_Barrier, MPI_Win_sync, each rank reads its window cells' written entries in ring
//   order and clears them (nobody writes a position again before the next end), then
//   MPI_Allreduce of (puts, entries read, deferred) makes the counts consistent: equal, or
//   repeat. A cell that fires more often than its ring holds between two ends defers the
//   extra spikes to the loop (written after everyone has read, then flush + barrier).
// Cost per interval (P ranks, N cells, rate r, T = M dt, F = remote target ranks of a cell,
//   S = remote sources with targets on a rank, k sub-intervals): N r T F puts of 1-2 bytes
//   in total, as multisend's messages; per sub-interval one flush, one barrier, one MPI_Allreduce of 3
//   int64, and a scan of S window cells per rank — the receiver has no notification, so
//   the scan is O(S) (<= N) per sub-interval whether spikes came or not.
// Memory: the window, rma_entry_bytes * rma_slot_spikes * S bytes per rank, plus 12 bytes
//   per window cell of receive state, 12 bytes per local cell of send state, target-rank lists, the
//   lookup.
// Ordering: none needed (canonical delivery in the engine). exchange.subintervals = 2 is
//   accepted (every end flushes and reads everything, so it only adds ends);
//   exchange.phases = 2 is refused (the relay is a multisend variant).
// Limits (docs/methods/rma.md): Open MPI 4.1's default one-sided component (osc/rdma) cannot
//   create a window on a single process (only the `self` BTL is loaded): with P = 1 there is
//   nothing remote and no window is created.
#include <array>
#include <cstring>
#include <deque>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/exchange/point_to_point.hpp"
#include "spikex/instrument/counter_names.hpp"
#include "spikex/instrument/stopwatch.hpp"

namespace spikex {
namespace {

// An entry's origin buffer (its first rma_entry_bytes bytes are put).
using rma_entry = std::array<unsigned char, spike_codec::max_single_bytes>;
constexpr unsigned entry_tag_bits = 1; // the tag: 1 = written (a cleared entry is all zeros)

class rma_exchange final: public point_to_point_base {
public:
    using point_to_point_base::point_to_point_base;
    std::string name() const override { return "rma"; }

    ~rma_exchange() override {
        if (!has_window_ || mpi_finalized()) return; // at interpreter exit MPI is already gone
        try {
            comm_->unlock_all(window_);
            comm_->window_free(window_); // collective: every rank destroys its engine alike
        } catch (...) {}
    }

    void setup(const exchange_setup& s) override {
        setup_common(s);
        window_cell_spikes_ = options_.rma_slot_spikes;
        entry_bytes_ = rma_entry_bytes(codec_);
        window_cell_bytes_ = static_cast<std::uint64_t>(window_cell_spikes_) * entry_bytes_;

        // Receive side: one window cell per remote source, grouped by source rank in request order.
        const auto& from = targets_.requested_from();
        std::vector<std::uint64_t> region(ranks_, 0);
        std::uint64_t window_cells = 0;
        for (int r = 0; r < ranks_; ++r) {
            region[r] = window_cells;
            if (r != my_rank_) window_cells += from[r];
        }
        window_cell_run_.assign(window_cells, 0);
        {
            std::vector<std::uint64_t> fill(region);
            const auto& sources = s.table.sources();
            for (std::uint32_t run = 0; run < sources.size(); ++run) {
                int r = s.cells.rank_of(sources[run]);
                if (r != my_rank_) window_cell_run_[fill[r]++] = run;
            }
        }
        consumed_.assign(window_cells, 0);
        memory_.assign(window_cells * window_cell_bytes_, 0);

        // Send side: where my region starts in each target's window.
        std::vector<std::uint64_t> mine(ranks_);
        for (int r = 0; r < ranks_; ++r) mine[r] = region[r] * window_cell_bytes_;
        base_on_.assign(ranks_, 0);
        s.comm.alltoall(mine.data(), sizeof(std::uint64_t), base_on_.data());
        const auto local = targets_.cells();
        sequence_.assign(local, 0);
        since_end_.assign(local, 0);

        if (ranks_ > 1) {
            void* base = memory_.empty() ? static_cast<void*>(&dummy_) : static_cast<void*>(memory_.data());
            window_ = s.comm.window_create(base, memory_.size());
            has_window_ = true;
            s.comm.lock_all(window_);
        }
    }

    void spike_emitted(gid_type gid, step_type step) override {
        const local_index i = cells_->local_of(gid);
        queue_local(i, step);
        if (remote(i).empty()) return;
        if (since_end_[i] >= static_cast<std::uint32_t>(window_cell_spikes_)) {
            deferred_.push_back({i, step}); // the ring is full until the next end
            ++deferrals_;
            return;
        }
        write(i, step);
    }

    void poll(spike_sink& sink) override {
        maybe_sleep();
        deliver_local(sink);
    }

protected:
    // Every end: my puts complete at their targets, then the barrier (always: it publishes
    // them), then the scan and the count loop.
    bool needs_barrier() const override { return true; }
    void before_barrier(spike_sink& sink) override {
        deliver_local(sink);
        if (has_window_) comm_->flush_all(window_);
        outbox_.clear();
    }

    void exchange_interval(step_type step, step_type, spike_sink& sink) override {
        for (std::uint64_t round = 0;; ++round) {
            // Everyone flushed before the barrier: all puts so far are in the windows.
            if (has_window_) {
                comm_->window_sync(window_);
                scan(step, sink);
                comm_->window_sync(window_); // the cleared entries, before anyone writes again
            }
            std::int64_t v[3] = {static_cast<std::int64_t>(puts_), static_cast<std::int64_t>(read_),
                                 static_cast<std::int64_t>(deferred_.size())};
            comm_->allreduce_sum(v, 3);
            ++rounds_;
            if (v[0] == v[1] && v[2] == 0) break;
            ++iterations_;
            if (v[1] > v[0] || round > max_rounds) {
                throw internal_error(spikex::format("rma: {} spikes put, {} read from the windows after {} rounds",
                                                    v[0], v[1], round + 1));
            }
            if (v[0] == v[1]) {
                // Everything written has been read (and nobody reads until the next
                // barrier): the rings are free again for the deferred spikes.
                reset_rings();
                write_deferred();
            }
            if (has_window_) comm_->flush_all(window_);
            outbox_.clear();
            comm_->barrier();
        }
        reset_rings();
        current_sub_ = sub_of(step);
        slow_pending_ = slow_rank_ >= 0;
    }

public:
    void verify_conservation() override {
        std::int64_t v[3] = {static_cast<std::int64_t>(puts_), static_cast<std::int64_t>(read_),
                             static_cast<std::int64_t>(deferred_.size())};
        comm_->allreduce_sum(v, 3);
        if (v[0] != v[1] || v[2] != 0) {
            throw internal_error(spikex::format("rma: {} spikes put, {} read, {} deferred", v[0], v[1], v[2]));
        }
    }

    std::map<std::string, double> counters() const override {
        auto out = common_counters();
        out[counter::messages_sent] = double(puts_);
        out[counter::bytes_sent] = double(puts_ * entry_bytes_);
        out[counter::rounds] = double(rounds_);
        out[counter::conservation_iterations] = double(iterations_);
        out[counter::spikes_sent] = double(puts_);
        out[counter::spikes_received] = double(read_);
        out[counter::wire_bytes] = double(puts_ * entry_bytes_); // one window entry per spike and rank
        out[counter::wire_spikes] = double(puts_);
        out[counter::slots_scanned] = double(scanned_);
        out[counter::ring_full_deferrals] = double(deferrals_);
        return out;
    }

    std::map<std::string, double> properties() const override {
        auto out = common_properties();
        out[counter::rma_slot_spikes] = double(window_cell_spikes_);
        return out;
    }

    std::map<std::string, double> memory_bytes() const override {
        auto out = common_memory();
        out["window"] = double(memory_.capacity());
        out["exchange_buffers"] =
            double(consumed_.capacity() * sizeof(std::uint64_t) + window_cell_run_.capacity() * sizeof(std::uint32_t) +
                   sequence_.capacity() * sizeof(std::uint64_t) + since_end_.capacity() * sizeof(std::uint32_t) +
                   outbox_.size() * sizeof(rma_entry) + deferred_.capacity() * sizeof(pending) +
                   local_pending_.capacity() * sizeof(run_step) + base_on_.capacity() * sizeof(std::uint64_t));
        return out;
    }

private:
    struct pending {
        local_index cell;
        step_type step;
    };
    static constexpr std::uint64_t max_rounds = 1u << 20;

    void write(local_index i, step_type step) {
        scoped_timer t(send_s_);
        const std::uint64_t j = sequence_[i]++;
        if (since_end_[i]++ == 0) touched_.push_back(i);
        const step_type interval = step / steps_per_interval_;
        const auto offset = static_cast<std::uint32_t>(step - interval * steps_per_interval_);
        outbox_.emplace_back(); // must stay in place until the next flush
        rma_entry& entry = outbox_.back();
        codec_.encode_single({0, offset}, 1, entry_tag_bits, 1, entry.data());
        const std::uint64_t within = (j % window_cell_spikes_) * entry_bytes_;
        auto ranks = targets_.of(i);
        auto positions = targets_.positions(i);
        std::uint64_t n = 0;
        for (std::size_t k = 0; k < ranks.size(); ++k) {
            if (ranks[k] == my_rank_) continue;
            comm_->put(entry.data(), entry_bytes_, ranks[k],
                       base_on_[ranks[k]] + positions[k] * window_cell_bytes_ + within, window_);
            ++n;
        }
        puts_ += n;
    }

    void write_deferred() {
        std::size_t keep = 0;
        for (std::size_t k = 0; k < deferred_.size(); ++k) {
            const auto d = deferred_[k];
            if (since_end_[d.cell] < static_cast<std::uint32_t>(window_cell_spikes_))
                write(d.cell, d.step);
            else
                deferred_[keep++] = d;
        }
        deferred_.resize(keep);
    }

    void reset_rings() {
        for (auto i: touched_) since_end_[i] = 0;
        touched_.clear();
    }

    // Reads and clears every window cell's written entries, in ring order. Every entry read
    // at the end `step` is of a step in [step - M, step): written since the last end (each
    // end reads everything), which is at most M steps back.
    void scan(step_type step, spike_sink& sink) {
        const auto window_cells = consumed_.size();
        const step_type first = step - steps_per_interval_;
        scanned_ += window_cells; // counter slots_scanned
        for (std::size_t w = 0; w < window_cells; ++w) {
            unsigned char* ring = &memory_[w * window_cell_bytes_];
            for (;;) {
                const std::uint64_t next = consumed_[w];
                unsigned char* entry = ring + (next % window_cell_spikes_) * entry_bytes_;
                if (spike_codec::single_tag(entry, entry_bytes_, entry_tag_bits) == 0) break; // not written
                const wire_spike spike = codec_.decode_single(entry, entry_bytes_, 1, entry_tag_bits);
                std::memset(entry, 0, entry_bytes_);
                consumed_[w] = next + 1;
                ++read_;
                ++spikes_matched_;
                const step_type from_first = (step_type(spike.offset) - first) % steps_per_interval_;
                sink.deliver_source(window_cell_run_[w],
                                    first + (from_first < 0 ? from_first + steps_per_interval_ : from_first));
            }
        }
    }

    int window_cell_spikes_ = 2;          // entries per window cell (exchange.rma_slot_spikes)
    std::size_t entry_bytes_ = 1;         // rma_entry_bytes(codec_)
    std::uint64_t window_cell_bytes_ = 2; // window_cell_spikes_ * entry_bytes_
    window window_{};
    bool has_window_ = false;
    std::int64_t dummy_ = 0;
    std::vector<unsigned char> memory_;          // the window: window cells * window_cell_bytes_
    std::vector<std::uint64_t> consumed_;        // per window cell: entries read so far
    std::vector<std::uint32_t> window_cell_run_; // per window cell: its source's source run
    std::vector<std::uint64_t> base_on_;         // per rank: byte offset of my region in its window
    std::vector<std::uint64_t> sequence_;        // per local cell: spikes written so far (its ring position)
    std::vector<std::uint32_t> since_end_;       // per local cell: spikes written since the last end
    std::vector<local_index> touched_;
    std::deque<rma_entry> outbox_; // origin buffers of puts not yet flushed (stable addresses)
    std::vector<pending> deferred_;
    std::uint64_t puts_ = 0, read_ = 0, rounds_ = 0, iterations_ = 0, scanned_ = 0, deferrals_ = 0;
};

} // namespace

void count_point_to_point(count_view& view); // dryrun/exchange_counts.cpp

method_entry rma_method() {
    method_capabilities capabilities = point_to_point_capabilities();
    capabilities.rma_windows = true;
    return {
        .name = "rma",
        // User-visible texts (docs/user/config.md) keep "slot" for a window cell, as the option does.
        .description = "one-sided MPI_Put of each spike into its source's slot in the target ranks' windows, flush + "
                       "barrier + scan and an MPI_Allreduce count check per (sub-)interval (the DMA analogue)",
        .capabilities = capabilities,
        .options = {subintervals_option(),
                    {.name = "rma_slot_spikes",
                     .kind = option_kind::integer,
                     .default_value = std::int64_t{2},
                     .doc = "Spikes one source's slot in a target's window holds between two interval ends; more are "
                            "written in the conservation loop.",
                     .minimum = 1,
                     .maximum = 65536},
                    source_lookup_option()},
        .variants = {{{{"subintervals", std::int64_t{2}}}}, {{{"rma_slot_spikes", std::int64_t{1}}}}},
        .make =
            [](const option_reader& o) {
                point_to_point_options p = read_point_to_point_options(o);
                p.rma_slot_spikes = static_cast<int>(o.integer("rma_slot_spikes"));
                return std::make_unique<rma_exchange>(p);
            },
        .count = count_point_to_point,
        .cost_formula = "rma",
        .docs_page = "rma",
    };
}

} // namespace spikex
