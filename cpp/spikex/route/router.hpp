#pragma once
// route: aggregation and software routing of small fixed-size items over a process grid
// (Garg & Sabharwal, sections 4.1-4.3, Figures 1 and 2). Knows nothing of spikes or tables:
// an item is `item_bytes` opaque bytes; the user says where an item goes (destination
// function) and what to do when it arrives (delivery function). Both are template
// parameters of `router` (inlined into its loops: no type-erased call per item), and the
// injecting user passes the destination it already knows.
//
// Algorithm: an item injected or received for another rank goes into the bucket of its
//   next-hop router (route_table); a bucket that fills is sent at once (MPI_Isend of the
//   bucket itself, or of its items encoded by router_options::codec, decoded on arrival,
//   or handed by the codec straight to their user where all are for the receiver);
//   to a partner on this node optionally through a shared-memory mailbox instead,
//   router_options::shared_memory)
//   and takes no items until that send completes (with several lanes the router's next
//   bucket takes them meanwhile). Messages arrive on one receive buffer per channel
//   (tag = channel), received only when the buffer is drained; its items are delivered or
//   moved to their next bucket, and processing stops while that bucket is in flight.
//   flush() sends partial buckets; finish() (collective) flushes whenever this rank is
//   idle and returns when every item injected anywhere has arrived.
// Cost (n items injected per rank, uniform destinations, full grid): each item makes
//   h = sum_i (1 - 1/D_i) hops on average (<= d); messages per rank >= n h / c with bucket
//   capacity c = floor(budget / (L sum_i (D_i - 1) + d)) (for L = 1 the paper's
//   1024 / (X + Y + Z)), bytes per rank = n h item_bytes (less with a codec); partners per rank
//   sum_i (D_i - 1) instead of P - 1.
// Memory (bounded buffering): L sum_i (D_i - 1) send buckets (L lanes per partner,
//   router_options::lanes) + d receive buffers (+1 on a ragged grid) of c items each
//   <= budget items, whatever the traffic; counters record the high-water mark (items in
//   buckets, in flight or waiting in receive buffers). MPI's own buffers for messages not
//   yet received are not counted (as in the paper). Plus the route table (2 P bytes),
//   and with mailboxes a shared segment of lanes slots per incoming partner (64 bytes + the
//   largest message each); a message in a slot counts as in flight until copied out.
// No deadlock: an item in the receive buffer of channel c is either delivered or needs a
//   bucket of a higher channel (channels increase along every route, route_table.hpp).
//   Buffers of the highest channel only hold items that have arrived, so they always
//   drain; by induction downwards, the sends on channels > c complete (their receivers
//   drain and receive), so their buckets free up and channel c drains too. Injection only
//   waits for a bucket, never blocks a receive. Every wait is a busy loop of progress(),
//   never a blocking MPI call, so ranks keep forwarding for each other.
// Termination: termination.hpp (counting waves; correct with forwarding).
// Ordering guarantee: none between items (a bucket keeps its order, but items of one
//   source reach a destination through up to d buckets); every item is delivered exactly
//   once.
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "spikex/comm/context.hpp"
#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/route/item_buffer.hpp"
#include "spikex/route/message_codec.hpp"
#include "spikex/route/process_grid.hpp"
#include "spikex/route/route_table.hpp"
#include "spikex/route/termination.hpp"

namespace spikex {

// Largest message a full bucket sends by default. OpenMPI's shared-memory transport sends
// messages up to 4 KiB, its match header included, eagerly: the send completes at once.
// A larger one waits until the receiver has matched it (rendezvous), and while it waits
// its bucket takes no items: at 2 ranks GUPS ran 1.8x slower with 4,096-byte buckets
// than with 4,000-byte ones (docs/user/gups.md).
inline constexpr std::size_t default_message_bytes = 4032;

struct router_options {
    std::size_t item_bytes = 8;
    std::int64_t budget = 1024;                        // items buffered per rank at most (HPCC's look-ahead rule)
    int tag = 21000;                                   // message tags tag .. tag + channels - 1
    std::size_t message_bytes = default_message_bytes; // a full bucket's message at most
    // Buckets per partner, filled in turn: while one is in flight the next takes items.
    // An eager send on shared memory completes only once the receiver has taken it
    // (OpenMPI's vader: every isend above 256 bytes), so with one bucket the injecting
    // loop waits for the partner's next poll after every message. The budget is shared by
    // all of them (fewer lanes when it cannot give each one item).
    int lanes = 1;
    // How a bucket's items travel (route/message_codec.hpp); nullptr: as they are. Not
    // owned: it must outlive the router.
    const message_codec* codec = nullptr;
    // Partners on this rank's node get their messages through a mailbox in shared memory
    // (context::shared_allocate) instead of MPI: one slot per sending bucket in the
    // receiver's segment; a send copies the message into it (a codec encodes straight into
    // it) and marks it full, the
    // receiver copies it out and marks it empty, which completes the send. The same
    // buckets, budget and order of events as with MPI messages, without MPI's matching
    // and progress on both sides (bale's conveyors do the same on a node). Construction
    // and destruction are then collective. Partners on other nodes still get MPI messages.
    bool shared_memory = false;
};

// Why `budget` cannot give every bucket of `grid` one item, or "" when it can.
std::string budget_problem(const process_grid& grid, std::int64_t budget);

// Buckets per partner that the budget allows: options.lanes, fewer when the budget cannot
// give every send bucket and receive buffer one item (at least 1).
int bucket_lanes(const process_grid& grid, const router_options& options);

// Items per bucket: the budget shared by the send buckets (lanes per partner) and the
// receive buffers (one per channel), at most message_bytes per message (at least one item).
std::size_t bucket_capacity(const process_grid& grid, const router_options& options);

struct router_counters {
    std::uint64_t items_injected = 0;  // offered on this rank (to itself included)
    std::uint64_t items_delivered = 0; // reached this rank, their destination
    std::uint64_t items_forwarded = 0; // received here and put into a bucket for the next hop
    std::uint64_t items_sent = 0;      // item transmissions from this rank (hops)
    std::uint64_t messages_sent = 0;
    std::uint64_t shared_memory_messages = 0; // of messages_sent: through a shared-memory mailbox
    std::uint64_t bytes_sent = 0;
    std::uint64_t messages_received = 0;
    std::uint64_t full_sends = 0;         // buckets sent because they were full
    std::uint64_t flush_sends = 0;        // partial buckets sent by flush()
    std::uint64_t send_tests = 0;         // completion tests of in-flight buckets...
    std::uint64_t send_tests_pending = 0; // ...that found the send unfinished (paper's SBF)
    std::uint64_t waves = 0;              // termination waves (non-blocking allreduces)
    std::uint64_t finishes = 0;
    std::uint64_t buffered_high_water = 0; // most items held at once (<= budget)
};

// Everything of the router that does not touch an item's contents: buckets, sends,
// receive buffers, termination, counters (router.cpp). `router` below adds the loops over
// items, with the user's handlers inlined.
class router_core {
public:
    // Not collective (collective with options.shared_memory). Throws user_error when the
    // budget is below one item per bucket.
    router_core(context& comm, const process_grid& grid, router_options options);
    // Completes the sends still in flight: destroy a router only after a finish() that no
    // rank has injected anything since (then every message has been received). Collective
    // with options.shared_memory (the mailboxes are freed).
    ~router_core();
    router_core(const router_core&) = delete;
    router_core& operator=(const router_core&) = delete;

    // Sends every partial bucket that is not in flight. Returns whether it sent any.
    bool flush();

    const process_grid& grid() const { return grid_; }
    const route_table& table() const { return table_; }
    std::size_t bucket_capacity() const { return capacity_; }
    int lanes() const { return lanes_; }
    std::size_t buffered() const { return buffered_; } // items held now
    // Most items one progress() call can add to buffered() before it delivers them: a
    // message into every receive buffer.
    std::size_t receive_reserve() const { return std::size_t(grid_.channels()) * capacity_; }
    // Partners whose messages go through shared memory (options.shared_memory, same node).
    std::size_t shared_memory_partners() const { return shared_partners_; }
    const router_counters& counters() const;
    std::size_t memory_bytes() const;

protected:
    struct bucket {
        int rank = -1;
        int channel = -1;
        item_buffer items;
        std::vector<unsigned char> message; // the items encoded, while in flight (with a codec)
        request sending;
        unsigned char* slot = nullptr; // its mailbox slot in the partner's segment (shared memory), or MPI
        bool busy = false;             // in flight: takes no items until the send completes
    };

    void check_destination(int destination) const {
        if (destination < 0 || destination >= grid_.ranks()) [[unlikely]]
            bad_destination(destination);
    }
    [[noreturn]] void bad_destination(int destination) const;
    // Puts `item` into the filling bucket towards `destination` (another rank); false if
    // it is in flight. Sends the bucket when it is full, and the next lane fills next.
    bool push(int destination, const unsigned char* item) {
        const std::uint16_t router = table_.router_of(destination);
        const std::size_t index = std::size_t(router) * lanes_ + filling_[router];
        bucket& b = buckets_[index];
        if (b.busy) return false;
        b.items.push(item);
        if (b.items.full()) send(index, true);
        return true;
    }
    // push() for up to `count` items bound for one destination, in one copy: returns how
    // many the filling bucket took (0 when it is in flight).
    std::size_t push_run(int destination, const unsigned char* items, std::size_t count) {
        const std::uint16_t router = table_.router_of(destination);
        const std::size_t index = std::size_t(router) * lanes_ + filling_[router];
        bucket& b = buckets_[index];
        if (b.busy) return 0;
        const std::size_t n = b.items.append(items, count);
        if (b.items.full()) send(index, true);
        return n;
    }
    // Sends bucket `index`; the next lane of its router takes items from now on.
    void send(std::size_t index, bool full);
    bool complete_sends();
    // The mailboxes: this rank's segment holds a slot per (incoming partner, lane); each
    // bucket towards a partner on this node gets its slot there.
    void set_up_shared_memory();
    bool receive_shared(int channel);
    // Checks a message's size before its items are taken into the channel's buffer.
    void check_message(int channel, std::size_t bytes, int source) const;
    void received(item_buffer& in);
    // A message whose `items` the codec delivered itself (message_codec::deliver).
    void received_delivered(std::size_t items);
    // Receives the next message of `channel` into its buffer if the buffer is drained and
    // one is waiting (or has the codec deliver its items). Returns whether it received one.
    bool receive(int channel);
    // One termination poll of finish(): true once every item of the epoch has arrived.
    bool finished(bool moved);
    void end_finish();
    void note_buffered() {
        if (buffered_ > counters_.buffered_high_water) counters_.buffered_high_water = buffered_;
    }

    context& comm_;
    process_grid grid_;
    route_table table_;
    router_options options_;
    int my_rank_ = 0;
    std::size_t capacity_ = 1;
    int lanes_ = 1;

    std::vector<bucket> buckets_;                 // lanes_ per router (partner), router-major
    std::vector<std::uint8_t> filling_;           // per router: the lane that takes items now
    std::vector<std::uint32_t> in_flight_;        // indices of busy buckets
    std::vector<item_buffer> receive_;            // one per channel
    std::vector<unsigned char> received_message_; // with a codec: a message before it is decoded
    shared_memory mailboxes_;                     // options_.shared_memory: every node rank's segment
    std::size_t slot_bytes_ = 0;                  // a mailbox slot: header + the largest message
    struct inbox_slot {
        unsigned char* slot = nullptr;
        int source = -1;
    };
    std::vector<std::vector<inbox_slot>> inbox_; // per channel: slots of partners on this node
    std::vector<std::size_t> inbox_next_;        // per channel: the slot looked at first (round robin)
    std::vector<bool> probe_mpi_;                // per channel: a partner off this node may send on it
    std::size_t shared_partners_ = 0;
    std::size_t buffered_ = 0;
    bool finishing_ = false;
    termination_detector termination_;
    mutable router_counters counters_;
};

// The router with its item handlers as template parameters:
//   Destination: int(const unsigned char* item) -- the rank an item received for
//     forwarding is travelling to;
//   Deliver: void(const unsigned char* items, std::size_t count) -- items for this rank,
//     `count` of them one after the other (item_bytes each): a whole received run at once,
//     so that the receiver can work on a batch.
// Both are called directly (inlined), never through a type-erased wrapper.
template <class Destination, class Deliver>
class router: public router_core {
public:
    router(context& comm, const process_grid& grid, router_options options, Destination destination, Deliver deliver):
        router_core(comm, grid, options), destination_(std::move(destination)), deliver_(std::move(deliver)) {}

    // Offers an item created on this rank for rank `destination`: delivered at once if that
    // is this rank, else put in its bucket. False: that bucket is in flight; call
    // progress() and offer again.
    bool try_inject(int destination, const void* item) {
        auto bytes = static_cast<const unsigned char*>(item);
        check_destination(destination);
        if (destination == my_rank_) {
            ++counters_.items_injected;
            ++counters_.items_delivered;
            deliver_(bytes, 1);
            return true;
        }
        if (!push(destination, bytes)) return false;
        ++counters_.items_injected;
        ++buffered_;
        note_buffered();
        return true;
    }
    // try_inject() for `count` items (item_bytes each, one after the other) that all go to
    // `destination`: a copy per bucket instead of a call per item. Returns how many it
    // took, in order (fewer when a bucket towards `destination` is in flight).
    std::size_t try_inject_run(int destination, const void* items, std::size_t count) {
        auto bytes = static_cast<const unsigned char*>(items);
        check_destination(destination);
        if (destination == my_rank_) {
            counters_.items_injected += count;
            counters_.items_delivered += count;
            deliver_(bytes, count);
            return count;
        }
        std::size_t done = 0;
        while (done < count) {
            const std::size_t n = push_run(destination, bytes + done * options_.item_bytes, count - done);
            if (n == 0) break;
            done += n;
        }
        counters_.items_injected += done;
        buffered_ += done;
        note_buffered();
        return done;
    }
    void inject(int destination, const void* item) {
        while (!try_inject(destination, item)) wait();
    }

    // progress(), giving the core away when nothing moved: with more ranks than cores the
    // rank this one waits for may need it (MPI need not yield by itself: gups.cpp).
    void wait() {
        if (!progress()) std::this_thread::yield();
    }

    // One pass: completes sends, receives and routes what it can (and, inside finish(),
    // flushes when nothing else moved). Returns whether anything happened.
    bool progress() {
        bool moved = complete_sends();
        // Highest channel first: its items only need higher channels or have arrived.
        for (int c = grid_.channels() - 1; c >= 0; --c) moved |= drain(c);
        if (finishing_ && !moved) moved = flush();
        return moved;
    }

    // Collective: this rank injects nothing more until it returns; returns once every item
    // injected on any rank before its finish() has been delivered. May be called again for
    // the next epoch; items of the next epoch may arrive (and be delivered, or wait in the
    // buffers for later progress() calls) while a slower rank is still finishing.
    void finish() {
        finishing_ = true;
        flush();
        for (;;) {
            const bool moved = progress();
            if (finished(moved)) break;
            if (!moved) std::this_thread::yield();
        }
        end_finish();
    }

private:
    // Figure 2 (routeUpdates) inside the receive loop of Figure 1: receive into the
    // channel's buffer only when it is drained; stop at an item whose bucket is in flight.
    // Consecutive items for this rank are delivered as one run (contiguous in the receive
    // buffer), before anything else happens to the buffer; on a one-dimensional grid every
    // item arrives at its destination, so the whole message is one run.
    bool drain(int channel) {
        item_buffer& in = receive_[channel];
        bool moved = false;
        for (;;) {
            if (in.drained()) {
                if (!receive(channel)) return moved;
                moved = true;
            }
            if (grid_.dimensions() == 1) { // one hop: every item that arrives is this rank's
                const std::size_t n = in.remaining();
                deliver_(in.next(), n);
                counters_.items_delivered += n;
                buffered_ -= n;
                in.advance(n);
                moved = true;
                continue;
            }
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
                    check_destination(destination);
                    if (!push(destination, item)) return moved; // blocked until that send completes
                    ++counters_.items_forwarded;                // still buffered: receive buffer -> bucket
                }
                in.advance();
                moved = true;
            }
            deliver_run();
        }
    }

    Destination destination_;
    Deliver deliver_;
};

} // namespace spikex
