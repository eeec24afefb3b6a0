#include "spikex/route/router.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
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

// A mailbox slot: the message's byte count (0: empty) on a cache line of its own, then the
// message. The receiver's store of 0 completes the send.
constexpr std::size_t slot_header = 64;
std::atomic_ref<std::uint32_t> slot_state(unsigned char* slot) {
    return std::atomic_ref<std::uint32_t>(*reinterpret_cast<std::uint32_t*>(slot));
}
static_assert(std::atomic_ref<std::uint32_t>::is_always_lock_free, "mailboxes need address-free atomics");

// Ranks whose next hop towards `receiver` is `receiver` itself (the ranks that send to it
// directly), ascending: a sender's position in this list is its slot in the receiver's segment.
std::vector<int> incoming_partners(const process_grid& grid, int receiver) {
    std::vector<int> sources;
    for (int s = 0; s < grid.ranks(); ++s) {
        if (s != receiver && next_hop(grid, s, receiver).rank == receiver) sources.push_back(s);
    }
    return sources;
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
        if (options_.codec)
            buckets_[k].message.resize(options_.codec->max_message_bytes(capacity_) + message_codec::encode_slack);
    }
    receive_.assign(grid.channels(), item_buffer(capacity_, options_.item_bytes));
    inbox_.assign(grid.channels(), {});
    inbox_next_.assign(grid.channels(), 0);
    probe_mpi_.assign(grid.channels(), true);
    if (options_.shared_memory) set_up_shared_memory();
}

void router_core::set_up_shared_memory() {
    // With a codec a slot also holds what encode() may write past a message's end: the
    // message is encoded straight into it.
    const std::size_t largest = options_.codec
                                    ? options_.codec->max_message_bytes(capacity_) + message_codec::encode_slack
                                    : capacity_ * options_.item_bytes;
    slot_bytes_ = slot_header + (largest + 63) / 64 * 64;
    const std::vector<int> incoming = incoming_partners(grid_, my_rank_);
    mailboxes_ = comm_.shared_allocate(incoming.size() * lanes_ * slot_bytes_); // collective
    if (!mailboxes_.available()) return;                                        // MPI messages only
    auto slot_at = [&](int owner, std::size_t position, std::size_t lane) {
        unsigned char* slot = mailboxes_.segment[owner] + (position * lanes_ + lane) * slot_bytes_;
        if (reinterpret_cast<std::uintptr_t>(slot) % std::atomic_ref<std::uint32_t>::required_alignment != 0) {
            throw internal_error("router: misaligned shared-memory mailbox");
        }
        return slot;
    };
    // Receiving side: slots of partners on this node are read directly; a channel with a
    // partner elsewhere is also probed for MPI messages.
    std::fill(probe_mpi_.begin(), probe_mpi_.end(), false);
    for (std::size_t k = 0; k < incoming.size(); ++k) {
        const int source = incoming[k];
        const int channel = next_hop(grid_, source, my_rank_).channel;
        if (mailboxes_.segment[source] == nullptr) {
            probe_mpi_[channel] = true;
            continue;
        }
        for (int lane = 0; lane < lanes_; ++lane) inbox_[channel].push_back({slot_at(my_rank_, k, lane), source});
    }
    // Sending side: each bucket towards a partner on this node writes into its own slot
    // there, found by the rule the partner used above.
    for (std::size_t router = 0; router < table_.routers(); ++router) {
        const int partner = table_.router_rank(router);
        if (mailboxes_.segment[partner] == nullptr) continue;
        const route_hop hop = next_hop(grid_, my_rank_, partner);
        const std::vector<int> theirs = incoming_partners(grid_, partner);
        const auto me = std::lower_bound(theirs.begin(), theirs.end(), my_rank_);
        if (hop.rank != partner || hop.channel != table_.router_channel(router) || me == theirs.end() ||
            *me != my_rank_) {
            throw internal_error(spikex::format("router: rank {} is not rank {}'s direct partner", my_rank_, partner));
        }
        for (int lane = 0; lane < lanes_; ++lane) {
            bucket& b = buckets_[router * lanes_ + lane];
            // The bucket fills in this rank's memory and is copied into the slot when sent:
            // filled in the slot itself, whose lines the partner read last, every store
            // waited for its line (GUPS at P = 2: 0.160 against 0.176, medians of 6).
            b.slot = slot_at(partner, std::size_t(me - theirs.begin()), lane);
        }
        ++shared_partners_;
    }
}

router_core::~router_core() {
    // After the last finish() every message sent has been received, so these complete. If
    // an exception is unwinding the job is failing anyway: do not risk waiting.
    if (std::uncaught_exceptions() > 0) return;
    try {
        // A mailbox message has been taken once it was received: nothing to wait for.
        for (auto index: in_flight_) {
            if (!buckets_[index].slot) comm_.wait(buckets_[index].sending);
        }
        comm_.shared_free(mailboxes_); // collective; nothing without mailboxes
    } catch (const std::exception&) {
        // A failing MPI call here ends the job elsewhere; a destructor must not throw.
    }
}

const router_counters& router_core::counters() const {
    counters_.waves = termination_.waves();
    return counters_;
}

std::size_t router_core::memory_bytes() const {
    std::size_t bytes = table_.bytes() + buckets_.capacity() * sizeof(bucket);
    for (const auto& b: buckets_) bytes += b.items.owned_bytes() + b.message.capacity();
    bytes += received_message_.capacity() + mailboxes_.bytes;
    for (const auto& r: receive_) bytes += r.owned_bytes();
    return bytes;
}

void router_core::bad_destination(int destination) const {
    throw internal_error(spikex::format("router: item for rank {} on a job of {} ranks", destination, grid_.ranks()));
}

void router_core::send(std::size_t index, bool full) {
    bucket& b = buckets_[index];
    std::size_t bytes = b.items.bytes();
    const unsigned char* data = b.items.data();
    if (options_.codec) { // into the mailbox slot itself where there is one
        unsigned char* out = b.slot ? b.slot + slot_header : b.message.data();
        bytes = options_.codec->encode(b.items.data(), b.items.size(), comm_.rank(), b.rank, out);
        data = out;
    }
    if (b.slot) {
        if (data != b.slot + slot_header) std::memcpy(b.slot + slot_header, data, bytes);
        slot_state(b.slot).store(static_cast<std::uint32_t>(bytes), std::memory_order_release);
        ++counters_.shared_memory_messages;
    } else {
        b.sending = comm_.isend(b.rank, options_.tag + b.channel, data, bytes);
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
        const bool done = b.slot ? slot_state(b.slot).load(std::memory_order_acquire) == 0 : comm_.test(b.sending);
        if (!done) {
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

void router_core::check_message(int channel, std::size_t bytes, int source) const {
    const item_buffer& in = receive_[channel];
    const std::size_t largest = options_.codec ? options_.codec->max_message_bytes(in.capacity()) : in.capacity_bytes();
    if (bytes == 0 || bytes > largest || (!options_.codec && bytes % options_.item_bytes != 0)) {
        throw internal_error(
            spikex::format("router: message of {} bytes from rank {} on channel {}", bytes, source, channel));
    }
}

void router_core::received(item_buffer& in) {
    ++counters_.messages_received;
    buffered_ += in.size();
    note_buffered();
}

void router_core::received_delivered(std::size_t items) {
    ++counters_.messages_received;
    counters_.items_delivered += items;
}

bool router_core::receive_shared(int channel) {
    const auto& slots = inbox_[channel];
    for (std::size_t looked = 0; looked < slots.size(); ++looked) {
        const std::size_t k = (inbox_next_[channel] + looked) % slots.size();
        unsigned char* slot = slots[k].slot;
        const std::size_t bytes = slot_state(slot).load(std::memory_order_acquire);
        if (bytes == 0) continue;
        check_message(channel, bytes, slots[k].source);
        item_buffer& in = receive_[channel];
        std::size_t delivered = 0;
        if (options_.codec) {
            delivered =
                options_.codec->deliver(slot + slot_header, bytes, slots[k].source, comm_.rank(), in.capacity());
            if (delivered == 0)
                in.filled(options_.codec->decode(slot + slot_header, bytes, slots[k].source, comm_.rank(), in.data(),
                                                 in.capacity()));
        } else {
            // Copied out rather than read in place: the sender's bucket is free again at
            // once (reading in place while applying measured no faster).
            std::memcpy(in.data(), slot + slot_header, bytes);
            in.filled(bytes / options_.item_bytes);
        }
        slot_state(slot).store(0, std::memory_order_release); // the sender's bucket is free again
        inbox_next_[channel] = (k + 1) % slots.size();
        if (delivered > 0)
            received_delivered(delivered);
        else
            received(in);
        return true;
    }
    return false;
}

bool router_core::receive(int channel) {
    if (!inbox_[channel].empty() && receive_shared(channel)) return true;
    if (!probe_mpi_[channel]) return false;
    item_buffer& in = receive_[channel];
    const int tag = options_.tag + channel;
    probe_result found;
    if (!comm_.iprobe(any_source, tag, found)) return false;
    check_message(channel, found.bytes, found.source);
    if (options_.codec) {
        received_message_.resize(found.bytes);
        comm_.recv(found.source, tag, received_message_.data(), found.bytes);
        const std::size_t delivered =
            options_.codec->deliver(received_message_.data(), found.bytes, found.source, comm_.rank(), in.capacity());
        if (delivered > 0) {
            received_delivered(delivered);
            return true;
        }
        in.filled(options_.codec->decode(received_message_.data(), found.bytes, found.source, comm_.rank(), in.data(),
                                         in.capacity()));
    } else {
        comm_.recv(found.source, tag, in.data(), found.bytes);
        in.filled(found.bytes / options_.item_bytes);
    }
    received(in);
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
