#include "spikex/route/router.hpp"

#include <algorithm>
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

namespace {
// Buffers of one item each that `lanes` lanes need: lanes send buckets per partner, one
// receive buffer per channel.
std::int64_t buffers_needed(const process_grid& grid, std::int64_t lanes) {
    const std::int64_t sends = grid.buckets() - grid.channels();
    return lanes * sends + grid.channels();
}
} // namespace

int bucket_lanes(const process_grid& grid, const router_options& options) {
    int lanes = std::max(options.lanes, 1);
    while (lanes > 1 && buffers_needed(grid, lanes) > options.budget) --lanes;
    return lanes;
}

std::size_t bucket_capacity(const process_grid& grid, const router_options& options) {
    const auto shared = static_cast<std::size_t>(options.budget / buffers_needed(grid, bucket_lanes(grid, options)));
    const std::size_t per_message = std::max<std::size_t>(options.message_bytes / options.item_bytes, 1);
    return std::min(shared, per_message);
}

router_core::router_core(context& comm, const process_grid& grid, router_options options):
    comm_(comm), grid_(grid), table_(grid, comm.rank()), options_(options), my_rank_(comm.rank()) {
    if (grid.ranks() != comm.size()) {
        throw internal_error(spikex::format("router: grid of {} ranks on a job of {}", grid.ranks(), comm.size()));
    }
    if (options_.item_bytes == 0) throw internal_error("router: items need at least one byte");
    std::string problem = budget_problem(grid, options_.budget);
    if (!problem.empty()) throw user_error(spikex::format("route budget = {}: {}", options_.budget, problem));
    if (options_.lanes < 1 || options_.lanes > 255) {
        throw internal_error(spikex::format("router: {} lanes per partner (1 to 255)", options_.lanes));
    }
    lanes_ = bucket_lanes(grid, options_);
    capacity_ = spikex::bucket_capacity(grid, options_);
    buckets_.resize(table_.routers() * std::size_t(lanes_));
    filling_.assign(table_.routers(), 0);
    for (std::size_t k = 0; k < buckets_.size(); ++k) {
        const std::size_t router = k / lanes_;
        buckets_[k].rank = table_.router_rank(router);
        buckets_[k].channel = table_.router_channel(router);
        buckets_[k].items = item_buffer(capacity_, options_.item_bytes);
    }
    receive_.assign(grid.channels(), item_buffer(capacity_, options_.item_bytes));
}

router_core::~router_core() {
    // After the last finish() every message sent has been received, so these complete. If
    // an exception is unwinding the job is failing anyway: do not risk waiting.
    if (std::uncaught_exceptions() > 0) return;
    for (auto index: in_flight_) comm_.wait(buckets_[index].sending);
}

const router_counters& router_core::counters() const {
    counters_.waves = termination_.waves();
    return counters_;
}

std::size_t router_core::memory_bytes() const {
    std::size_t bytes = table_.bytes() + buckets_.capacity() * sizeof(bucket);
    for (const auto& b: buckets_) bytes += b.items.capacity_bytes() + b.message.capacity();
    bytes += received_message_.capacity();
    for (const auto& r: receive_) bytes += r.capacity_bytes();
    return bytes;
}

void router_core::bad_destination(int destination) const {
    throw internal_error(spikex::format("router: item for rank {} on a job of {} ranks", destination, grid_.ranks()));
}

void router_core::send(std::size_t index, bool full) {
    bucket& b = buckets_[index];
    std::size_t bytes = b.items.bytes();
    if (options_.codec) {
        options_.codec->encode(b.items.data(), b.items.size(), b.message);
        bytes = b.message.size();
        b.sending = comm_.isend(b.rank, options_.tag + b.channel, b.message.data(), bytes);
    } else {
        b.sending = comm_.isend(b.rank, options_.tag + b.channel, b.items.data(), bytes);
    }
    b.busy = true;
    in_flight_.push_back(static_cast<std::uint32_t>(index));
    const std::size_t router = index / lanes_;
    if (filling_[router] == index % lanes_) filling_[router] = static_cast<std::uint8_t>((index + 1) % lanes_);
    ++counters_.messages_sent;
    counters_.bytes_sent += bytes;
    counters_.items_sent += b.items.size();
    ++(full ? counters_.full_sends : counters_.flush_sends);
}

bool router_core::complete_sends() {
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

bool router_core::receive(int channel) {
    item_buffer& in = receive_[channel];
    const int tag = options_.tag + channel;
    probe_result found;
    if (!comm_.iprobe(any_source, tag, found)) return false;
    const std::size_t largest = options_.codec ? options_.codec->max_message_bytes(in.capacity()) : in.capacity_bytes();
    if (found.bytes == 0 || found.bytes > largest || (!options_.codec && found.bytes % options_.item_bytes != 0)) {
        throw internal_error(spikex::format("router: message of {} bytes from rank {} on channel {}", found.bytes,
                                            found.source, channel));
    }
    if (options_.codec) {
        received_message_.resize(found.bytes);
        comm_.recv(found.source, tag, received_message_.data(), found.bytes);
        in.filled(options_.codec->decode(received_message_.data(), found.bytes, in.data(), in.capacity()));
    } else {
        comm_.recv(found.source, tag, in.data(), found.bytes);
        in.filled(found.bytes / options_.item_bytes);
    }
    ++counters_.messages_received;
    buffered_ += in.size();
    note_buffered();
    return true;
}

bool router_core::flush() {
    bool sent = false;
    for (std::size_t k = 0; k < buckets_.size(); ++k) {
        if (!buckets_[k].busy && !buckets_[k].items.empty()) {
            send(k, false);
            sent = true;
        }
    }
    return sent;
}

bool router_core::finished(bool moved) {
    bool idle = !moved;
    for (const auto& in: receive_) idle = idle && in.drained();
    return termination_.poll(comm_, idle, counters_.items_injected, counters_.items_delivered);
}

void router_core::end_finish() {
    // Items of this epoch have all arrived. Buffers may already hold items of the next
    // epoch (a faster rank has moved on and sent to us), and a send in flight may carry
    // some: those are not waited for here (a blocking wait could deadlock with a rank
    // doing the same); later progress() or finish() calls take care of them.
    complete_sends();
    finishing_ = false;
    ++counters_.finishes;
}

} // namespace spikex
