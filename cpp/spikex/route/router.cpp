#include "spikex/route/router.hpp"

#include <exception>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"

namespace spikex {

std::string budget_problem(const process_grid& grid, std::int64_t budget) {
    if (budget >= grid.buckets()) return "";
    return spikex::format("below one item per bucket: grid {} needs {} buckets per rank (sum of the dims{}), so the "
                          "budget must be >= {}",
                          grid.text(), grid.buckets(), grid.ragged() ? " + 1 for the ragged plane" : "",
                          grid.buckets());
}

router::router(context& comm, const process_grid& grid, router_options options, destination_fn destination,
               deliver_fn deliver):
    comm_(comm),
    grid_(grid),
    table_(grid, comm.rank()),
    options_(options),
    destination_(std::move(destination)),
    deliver_(std::move(deliver)),
    my_rank_(comm.rank()) {
    if (grid.ranks() != comm.size()) {
        throw internal_error(spikex::format("router: grid of {} ranks on a job of {}", grid.ranks(), comm.size()));
    }
    if (options_.item_bytes == 0) throw internal_error("router: items need at least one byte");
    std::string problem = budget_problem(grid, options_.budget);
    if (!problem.empty()) throw user_error(spikex::format("route budget = {}: {}", options_.budget, problem));
    capacity_ = static_cast<std::size_t>(options_.budget / grid.buckets());
    buckets_.resize(table_.routers());
    for (std::size_t k = 0; k < buckets_.size(); ++k) {
        buckets_[k].rank = table_.router_rank(k);
        buckets_[k].channel = table_.router_channel(k);
        buckets_[k].items = item_buffer(capacity_, options_.item_bytes);
    }
    receive_.assign(grid.channels(), item_buffer(capacity_, options_.item_bytes));
}

router::~router() {
    // After the last finish() every message sent has been received, so these complete. If
    // an exception is unwinding the job is failing anyway: do not risk waiting.
    if (std::uncaught_exceptions() > 0) return;
    for (auto index: in_flight_) comm_.wait(buckets_[index].sending);
}

const router_counters& router::counters() const {
    counters_.waves = termination_.waves();
    return counters_;
}

std::size_t router::memory_bytes() const {
    std::size_t bytes = table_.bytes() + buckets_.capacity() * sizeof(bucket);
    for (const auto& b: buckets_) bytes += b.items.capacity_bytes();
    for (const auto& r: receive_) bytes += r.capacity_bytes();
    return bytes;
}

bool router::try_inject(const void* item) {
    auto bytes = static_cast<const unsigned char*>(item);
    int destination = destination_(bytes);
    if (destination < 0 || destination >= grid_.ranks()) {
        throw internal_error(
            spikex::format("router: item for rank {} on a job of {} ranks", destination, grid_.ranks()));
    }
    if (destination == my_rank_) {
        ++counters_.items_injected;
        ++counters_.items_delivered;
        deliver_(bytes, 1);
        return true;
    }
    std::uint16_t index = table_.router_of(destination);
    bucket& b = buckets_[index];
    if (b.busy) return false;
    b.items.push(bytes);
    ++counters_.items_injected;
    ++buffered_;
    note_buffered();
    if (b.items.full()) send(index, true);
    return true;
}

void router::send(std::uint16_t index, bool full) {
    bucket& b = buckets_[index];
    b.sending = comm_.isend(b.rank, options_.tag + b.channel, b.items.data(), b.items.bytes());
    b.busy = true;
    in_flight_.push_back(index);
    ++counters_.messages_sent;
    counters_.bytes_sent += b.items.bytes();
    counters_.items_sent += b.items.size();
    ++(full ? counters_.full_sends : counters_.flush_sends);
}

bool router::complete_sends() {
    bool moved = false;
    for (std::size_t i = 0; i < in_flight_.size();) {
        bucket& b = buckets_[in_flight_[i]];
        ++counters_.send_tests;
        if (!comm_.test(b.sending)) {
            ++counters_.send_tests_pending;
            ++i;
            continue;
        }
        buffered_ -= b.items.size();
        b.items.clear();
        b.busy = false;
        in_flight_[i] = in_flight_.back();
        in_flight_.pop_back();
        moved = true;
    }
    return moved;
}

// Figure 2 (routeUpdates) inside the receive loop of Figure 1: receive into the channel's
// buffer only when it is drained; stop at an item whose bucket is in flight.
bool router::drain(int channel) {
    item_buffer& in = receive_[channel];
    const int tag = options_.tag + channel;
    bool moved = false;
    for (;;) {
        if (in.drained()) {
            probe_result found;
            if (!comm_.iprobe(any_source, tag, found)) return moved;
            if (found.bytes == 0 || found.bytes % options_.item_bytes != 0 || found.bytes > in.capacity_bytes()) {
                throw internal_error(spikex::format("router: message of {} bytes from rank {} on channel {}",
                                                    found.bytes, found.source, channel));
            }
            comm_.recv(found.source, tag, in.data(), found.bytes);
            in.filled(found.bytes / options_.item_bytes);
            ++counters_.messages_received;
            buffered_ += in.size();
            note_buffered();
            moved = true;
        }
        // Consecutive items for this rank are delivered as one run (contiguous in the
        // receive buffer), before anything else happens to the buffer.
        const unsigned char* run = nullptr;
        std::size_t run_items = 0;
        auto deliver_run = [&] {
            if (run_items == 0) return;
            deliver_(run, run_items);
            counters_.items_delivered += run_items;
            buffered_ -= run_items;
            run_items = 0;
        };
        while (!in.drained()) {
            const unsigned char* item = in.next();
            int destination = destination_(item);
            if (destination == my_rank_) {
                if (run_items == 0) run = item;
                ++run_items;
            } else {
                deliver_run();
                std::uint16_t index = table_.router_of(destination);
                bucket& b = buckets_[index];
                if (b.busy) return moved; // blocked until that send completes
                b.items.push(item);       // still buffered: receive buffer -> bucket
                ++counters_.items_forwarded;
                if (b.items.full()) send(index, true);
            }
            in.advance();
            moved = true;
        }
        deliver_run();
    }
}

bool router::progress() {
    bool moved = complete_sends();
    // Highest channel first: its items only need higher channels or have arrived.
    for (int c = grid_.channels() - 1; c >= 0; --c) moved |= drain(c);
    if (finishing_ && !moved) moved = flush();
    return moved;
}

bool router::flush() {
    bool sent = false;
    for (std::size_t k = 0; k < buckets_.size(); ++k) {
        if (!buckets_[k].busy && !buckets_[k].items.empty()) {
            send(static_cast<std::uint16_t>(k), false);
            sent = true;
        }
    }
    return sent;
}

void router::finish() {
    finishing_ = true;
    flush();
    for (;;) {
        bool moved = progress();
        bool idle = !moved;
        for (const auto& in: receive_) idle = idle && in.drained();
        if (termination_.poll(comm_, idle, counters_.items_injected, counters_.items_delivered)) break;
    }
    // Items of this epoch have all arrived. Buffers may already hold items of the next
    // epoch (a faster rank has moved on and sent to us), and a send in flight may carry
    // some: those are not waited for here (a blocking wait could deadlock with a rank
    // doing the same); later progress() or finish() calls take care of them.
    complete_sends();
    finishing_ = false;
    ++counters_.finishes;
}

} // namespace spikex
