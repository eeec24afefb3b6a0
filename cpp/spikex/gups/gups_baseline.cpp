// gups --algorithm baseline: the scheme of the HPCC MPIRandomAccess reference code as the
// paper describes it (Garg & Sabharwal, sections 2 and 6.1), written for spikex.
//
// Algorithm: local updates are applied in prefetched blocks of up to 512 (gups_table.hpp
//   local_batch), within the look-ahead budget; a remote update goes into the bucket of its
//   destination rank (a heap keyed by bucket size finds the fullest). When `budget` updates
//   are pending, the fullest bucket is sent, but only once the previous send has completed
//   (one MPI_Isend in flight); meanwhile arriving messages are received and applied. At the
//   end every bucket is sent, then an empty message to every rank says "done": MPI's
//   per-pair order (non-overtaking) guarantees it arrives after that rank's updates, and
//   with no forwarding that is all a rank needs to know. A rank stops after P - 1 "done".
// Messages and bytes: per rank 4 N (1 - 1/P) / (P b) messages of b updates on average, b
//   falling as P grows (budget / P buckets share the pending limit: the paper's Table 3);
//   8 bytes per update, plus P - 1 empty messages.
// Memory: buckets <= budget updates + the send buffer and the receive buffer (budget each).
// Ordering guarantee: none needed (XOR commutes).
#include <limits>
#include <thread>
#include <vector>

#include "spikex/engine/indexed_min_heap.hpp"
#include "spikex/gups/gups.hpp"
#include "spikex/instrument/phase_split.hpp"

namespace spikex {

namespace {
constexpr int baseline_tag = 21100;

// The buffers are allocated before the timed part, as routed's router is (gups_routed.cpp;
// a few kB here); the buckets grow inside it, as the reference code's do.
class baseline_kernel final: public gups_kernel {
public:
    baseline_kernel(context& comm, gups_table& table, const gups_options& options):
        gups_kernel(comm, table, options),
        buckets_(static_cast<std::size_t>(comm.size())),
        fullest_(comm.size()),
        send_buffer_(static_cast<std::size_t>(options.budget)),
        receive_buffer_(static_cast<std::size_t>(options.budget)) {}

    gups_counts run(update_stream& stream) override;

private:
    std::vector<std::vector<std::uint64_t>> buckets_;
    indexed_min_heap fullest_; // key = -(bucket size): the top is the fullest bucket
    std::vector<std::uint64_t> send_buffer_, receive_buffer_;
};

gups_counts baseline_kernel::run(update_stream& stream) {
    context& comm = comm_;
    gups_table& table = table_;
    const gups_options& options = options_;
    const int ranks = comm.size(), me = comm.rank();
    const std::size_t budget = static_cast<std::size_t>(options.budget);
    gups_counts counts;

    auto& buckets = buckets_;
    auto& fullest = fullest_;
    std::size_t pending = 0;
    auto& send_buffer = send_buffer_;
    auto& receive_buffer = receive_buffer_;
    request sending;
    int done_received = 0;

    // Returns whether anything arrived.
    auto receive_all = [&] {
        probe_result found;
        bool received = false;
        while (comm.iprobe(any_source, baseline_tag, found)) {
            received = true;
            comm.recv(found.source, baseline_tag, receive_buffer.data(), found.bytes);
            if (found.bytes == 0) {
                ++done_received;
                continue;
            }
            table.apply_all(receive_buffer.data(), found.bytes / sizeof(std::uint64_t));
        }
        return received;
    };
    // Waiting for another rank: give the core away when nothing arrived (with more ranks
    // than cores, the rank waited for may need it; MPI need not yield by itself: gups.cpp).
    auto wait = [&] {
        if (!receive_all()) std::this_thread::yield();
    };
    // True when the previous send has completed (the reference tests it before each send).
    auto send_free = [&] {
        if (!sending.active) return true;
        ++counts.send_tests;
        if (comm.test(sending)) return true;
        ++counts.send_tests_pending;
        return false;
    };
    auto send_fullest = [&] {
        int destination = static_cast<int>(fullest.top());
        auto& bucket = buckets[destination];
        std::copy(bucket.begin(), bucket.end(), send_buffer.begin());
        std::size_t bytes = bucket.size() * sizeof(std::uint64_t);
        sending = comm.isend(destination, baseline_tag, send_buffer.data(), bytes);
        ++counts.messages_sent;
        counts.bytes_sent += bytes;
        counts.updates_sent += bucket.size();
        pending -= bucket.size();
        bucket.clear();
        fullest.set(static_cast<local_index>(destination), 0);
    };

    // Local updates wait in a prefetched block; it and the buckets share the look-ahead budget.
    local_batch& local = local_;
    phase_split<gups_phase_count> split(phase_generate_inject); // where the time goes (gups.hpp)
    auto flush_local = [&](std::size_t then) {
        split.enter(phase_local_apply);
        local.flush(table);
        split.enter(then);
    };
    // One rank: nothing can arrive, so (almost) no polling.
    const int poll_every = ranks > 1 ? options.poll_every : std::numeric_limits<int>::max();
    int until_poll = poll_every;
    while (!stream.done()) {
        if (pending + local.size() >= budget) {
            if (local.size()) {
                flush_local(phase_generate_inject);
                continue;
            }
            if (send_free()) {
                send_fullest();
            } else {
                split.enter(phase_wait);
                wait();
                split.enter(phase_generate_inject);
            }
            continue;
        }
        if (--until_poll == 0) {
            until_poll = poll_every;
            split.enter(phase_receive);
            receive_all();
            split.enter(phase_generate_inject);
        }
        std::uint64_t update = stream.next();
        int destination = table.owner(update);
        if (destination == me) {
            if (local.add(table, update)) flush_local(phase_generate_inject);
            ++counts.local_updates;
            continue;
        }
        auto& bucket = buckets[destination];
        bucket.push_back(update);
        ++pending;
        counts.buffered_high_water = std::max<std::uint64_t>(counts.buffered_high_water, pending);
        fullest.set(static_cast<local_index>(destination), -static_cast<step_type>(bucket.size()));
    }
    flush_local(phase_finish);
    while (pending > 0) {
        if (send_free())
            send_fullest();
        else
            wait();
    }
    while (!send_free()) wait();
    std::vector<request> done(ranks);
    for (int r = 0; r < ranks; ++r) {
        if (r != me) done[r] = comm.isend(r, baseline_tag, nullptr, 0);
    }
    for (auto& d: done) {
        while (!comm.test(d)) wait();
    }
    while (done_received < ranks - 1) wait();
    counts.phase_seconds = split.seconds();
    return counts;
}

} // namespace

std::unique_ptr<gups_kernel> make_gups_baseline(context& comm, gups_table& table, const gups_options& options) {
    return std::make_unique<baseline_kernel>(comm, table, options);
}

} // namespace spikex
