// Exchange "persistent" — Hines, Kumar & Schürmann 2011, Record-Replay (sections
// Multisend method variations and Results: "a separate descriptor is maintained for each
// cell. Only when the cell first generates a spike does the target list get copied to the
// unique descriptor for the cell"). MPI's analogue: persistent requests.
//
// Algorithm: as multisend (target ranks from set-up, one-spike wire messages, receivers
//   poll every step, conservation loop with MPI_Allreduce at every (sub-)interval end,
//   exchange.subintervals = 1 | 2), but the send side is recorded once and replayed: on a
//   cell's first spike, one MPI_Send_init per remote target rank on the cell's own message
//   buffer (its size depends only on the cell) ("record"); every later spike only refills the buffer and MPI_Starts the
//   cell's requests ("replay"). A request may be restarted only once its previous send completed: the rank tests its
//   in-flight cells every step and, if a cell fires again before that, waits for them (polling incoming messages
//   meanwhile; counted as refill_waits). exchange.max_pending_sends bounds the started requests still in flight on a
//   rank, as it bounds multisend's pool: before a start beyond the bound, completed requests are reclaimed and, if none
//   has completed, the rank polls incoming messages until one has (counted as sends_blocked).
// Cost per interval: the messages of multisend (N r T F in total, 2-4 bytes each; F =
//   remote target ranks of a cell), k MPI_Allreduce or more; initiation per spike is F
//   MPI_Start calls instead of F MPI_Isend calls (no request allocation, no descriptor
//   construction) — send_seconds in the summary measures the difference.
// Memory: a wire_message per local cell (buffers), one persistent request per (cell, remote
//   target rank) once the cell has fired (the MPI library's request object each, several
//   hundred bytes in Open MPI), target-rank lists, the source lookup.
// Ordering: none needed (canonical delivery order in the engine). The two-phase relay is a
//   multisend variant: exchange.phases = 2 is refused here.
#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/exchange/point_to_point.hpp"
#include "spikex/instrument/counter_names.hpp"

namespace spikex {
namespace {

class persistent_exchange final: public message_exchange {
public:
    using message_exchange::message_exchange;
    std::string name() const override { return "persistent"; }

    ~persistent_exchange() override {
        if (!comm_ || mpi_finalized()) return; // at interpreter exit MPI is already gone
        try {
            for (local_index i = 0; i < recorded_.size(); ++i) {
                if (!recorded_[i]) continue;
                for (auto j = remote_begin(i); j < remote_begin(i + 1); ++j) {
                    comm_->wait(requests_[j]);
                    comm_->request_free(requests_[j]);
                }
            }
        } catch (...) {}
    }

protected:
    void setup_sends() override {
        const auto local = targets_.cells();
        buffers_.assign(local, wire_message{});
        recorded_.assign(local, 0);
        in_flight_.assign(local, 0);
        requests_.assign(remote_ranks_.size(), request{});
        flying_.clear();
    }

    void send_phase_one(local_index i, const spike_message& msg, std::span<const int> ranks) override {
        const auto first = remote_begin(i);
        if (!recorded_[i]) {
            // Record: one persistent request per target rank on the cell's buffer, whose
            // size depends only on the sender's cells (wire_message: one spike alone).
            buffers_[i] = encode_message(msg);
            for (std::size_t j = 0; j < ranks.size(); ++j) {
                requests_[first + j] =
                    comm_->send_init(ranks[j], buffers_[i].tag, buffers_[i].bytes.data(), buffers_[i].size);
            }
            recorded_[i] = 1;
            recorded_requests_ += ranks.size();
        } else if (in_flight_[i] && !cell_done(i)) {
            ++refill_waits_;
            while (!cell_done(i)) receive_pending();
        }
        // Replay: refill and start, at most max_pending_sends requests in flight.
        const wire_message wire = encode_message(msg);
        if (wire.size != buffers_[i].size || wire.tag != buffers_[i].tag) {
            throw internal_error(spikex::format("persistent: cell {} message changed from {} bytes, tag {} to {} "
                                                "bytes, tag {}",
                                                i, buffers_[i].size, buffers_[i].tag, wire.size, wire.tag));
        }
        buffers_[i].bytes = wire.bytes;
        for (std::size_t j = 0; j < ranks.size(); ++j) {
            make_room(i);
            comm_->start(requests_[first + j]);
            if (requests_[first + j].active) ++requests_in_flight_;
        }
        starts_ += ranks.size();
        messages_ += ranks.size();
        bytes_ += ranks.size() * buffers_[i].size;
        track(i);
    }

    void reclaim_sends() override {
        reclaim_pool();
        std::size_t keep = 0;
        for (auto i: flying_) {
            if (cell_done(i))
                in_flight_[i] = 0;
            else
                flying_[keep++] = i;
        }
        flying_.resize(keep);
    }

    bool sends_pending() const override { return !flying_.empty() || !active_.empty(); }

    void extra_counters(std::map<std::string, double>& out) const override {
        out[counter::persistent_requests] = double(recorded_requests_);
        out[counter::persistent_starts] = double(starts_);
        out[counter::refill_waits] = double(refill_waits_);
    }

    std::size_t extra_memory() const override {
        return buffers_.capacity() * sizeof(wire_message) + requests_.capacity() * sizeof(request) +
               (recorded_.capacity() + in_flight_.capacity()) + flying_.capacity() * sizeof(local_index);
    }

private:
    // True once every send of cell i's last start has completed (MPI_Test on each).
    bool cell_done(local_index i) {
        bool done = true;
        for (auto j = remote_begin(i); j < remote_begin(i + 1); ++j) {
            if (!requests_[j].active) continue;
            if (comm_->test(requests_[j]))
                --requests_in_flight_;
            else
                done = false;
        }
        return done;
    }

    // Cell i has started requests: reclaim_sends tests it.
    void track(local_index i) {
        if (!in_flight_[i]) {
            in_flight_[i] = 1;
            flying_.push_back(i);
        }
    }

    // Before a start of cell `firing`'s requests: below the bound, or reclaim; still full:
    // poll incoming messages until a send completes. The firing cell's own requests
    // started so far count and are tested too.
    void make_room(local_index firing) {
        const auto bound = static_cast<std::uint64_t>(pool_.size()); // exchange.max_pending_sends
        if (requests_in_flight_ < bound) return;
        track(firing);
        reclaim_sends();
        if (requests_in_flight_ < bound) return;
        ++sends_blocked_;
        while (requests_in_flight_ >= bound) {
            track(firing);
            receive_pending();
            reclaim_sends();
        }
    }

    std::vector<wire_message> buffers_; // per local cell, fixed addresses (send_init)
    std::vector<request> requests_;     // parallel to the remote target ranks
    std::vector<char> recorded_, in_flight_;
    std::vector<local_index> flying_;
    std::uint64_t recorded_requests_ = 0, starts_ = 0, refill_waits_ = 0;
    std::uint64_t requests_in_flight_ = 0; // started, not yet seen complete (<= max_pending_sends)
};

} // namespace

void count_point_to_point(count_view& view); // dryrun/exchange_counts.cpp

method_entry persistent_method() {
    method_capabilities capabilities = point_to_point_capabilities();
    capabilities.persistent_requests = true;
    return {
        .name = "persistent",
        .description = "multisend with persistent requests: MPI_Send_init per target rank on a cell's first spike, "
                       "MPI_Start afterwards (the paper's Record-Replay)",
        .capabilities = capabilities,
        .options = {subintervals_option(), max_pending_sends_option(), source_lookup_option()},
        .variants = {{{{"subintervals", std::int64_t{2}}}}, {{{"max_pending_sends", std::int64_t{1}}}}},
        .make =
            [](const option_reader& o) {
                point_to_point_options p = read_point_to_point_options(o);
                p.max_pending_sends = static_cast<int>(o.integer("max_pending_sends"));
                return std::make_unique<persistent_exchange>(p);
            },
        .count = count_point_to_point,
        .cost_formula = "point_to_point",
        .docs_page = "persistent",
    };
}

} // namespace spikex
