#pragma once
// route: aggregation and software routing of small fixed-size items over a process grid
// (Garg & Sabharwal, sections 4.1-4.3, Figures 1 and 2). Knows nothing of spikes or tables:
// an item is `item_bytes` opaque bytes; the user says where an item goes (destination
// function) and what to do when it arrives (delivery function).
//
// Algorithm: an item injected or received for another rank goes into the bucket of its
//   next-hop router (route_table); a bucket that fills is sent at once (MPI_Isend of the
//   bucket itself) and takes no items until that send completes. Messages arrive on one
//   receive buffer per channel (tag = channel), received only when the buffer is drained;
//   its items are delivered or moved to their next bucket, and processing stops while that
//   bucket is in flight. flush() sends partial buckets; finish() (collective) flushes
//   whenever this rank is idle and returns when every item injected anywhere has arrived.
// Cost (n items injected per rank, uniform destinations, full grid): each item makes
//   h = sum_i (1 - 1/D_i) hops on average (<= d); messages per rank >= n h / c with bucket
//   capacity c = floor(budget / sum_i D_i) (the paper's 1024 / (X + Y + Z)), bytes per rank
//   = n h item_bytes; partners per rank sum_i (D_i - 1) instead of P - 1.
// Memory (bounded buffering): sum_i (D_i - 1) send buckets + d receive buffers (+1 on a
//   ragged grid) of c items each <= budget items, whatever the traffic; counters record the
//   high-water mark (items in buckets, in flight or waiting in receive buffers). MPI's own
//   buffers for messages not yet received are not counted (as in the paper). Plus the
//   route table (2 P bytes).
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
#include <functional>
#include <string>
#include <vector>

#include "spikex/comm/context.hpp"
#include "spikex/route/item_buffer.hpp"
#include "spikex/route/process_grid.hpp"
#include "spikex/route/route_table.hpp"
#include "spikex/route/termination.hpp"

namespace spikex {

struct router_options {
    std::size_t item_bytes = 8;
    std::int64_t budget = 1024; // items buffered per rank at most (HPCC's look-ahead rule)
    int tag = 21000;            // message tags tag .. tag + channels - 1
};

// Why `budget` cannot give every bucket of `grid` one item, or "" when it can.
std::string budget_problem(const process_grid& grid, std::int64_t budget);

struct router_counters {
    std::uint64_t items_injected = 0;  // offered on this rank (to itself included)
    std::uint64_t items_delivered = 0; // reached this rank, their destination
    std::uint64_t items_forwarded = 0; // received here and put into a bucket for the next hop
    std::uint64_t items_sent = 0;      // item transmissions from this rank (hops)
    std::uint64_t messages_sent = 0;
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

class router {
public:
    using destination_fn = std::function<int(const unsigned char* item)>;
    // Items for this rank, `count` of them one after the other (item_bytes each): a whole
    // received run at once, so that the receiver can work on a batch.
    using deliver_fn = std::function<void(const unsigned char* items, std::size_t count)>;

    // Not collective. Throws user_error when the budget is below one item per bucket.
    router(context& comm, const process_grid& grid, router_options options, destination_fn destination,
           deliver_fn deliver);
    // Completes the sends still in flight: destroy a router only after a finish() that no
    // rank has injected anything since (then every message has been received).
    ~router();
    router(const router&) = delete;
    router& operator=(const router&) = delete;

    // Offers an item created on this rank: delivered at once if it is for this rank, else
    // put in its bucket. False: that bucket is in flight; call progress() and offer again.
    bool try_inject(const void* item);
    void inject(const void* item) {
        while (!try_inject(item)) progress();
    }

    // One pass: completes sends, receives and routes what it can (and, inside finish(),
    // flushes when nothing else moved). Returns whether anything happened.
    bool progress();

    // Sends every partial bucket that is not in flight. Returns whether it sent any.
    bool flush();

    // Collective: this rank injects nothing more until it returns; returns once every item
    // injected on any rank before its finish() has been delivered. May be called again for
    // the next epoch; items of the next epoch may arrive (and be delivered, or wait in the
    // buffers for later progress() calls) while a slower rank is still finishing.
    void finish();

    const process_grid& grid() const { return grid_; }
    const route_table& table() const { return table_; }
    std::size_t bucket_capacity() const { return capacity_; }
    std::size_t buffered() const { return buffered_; } // items held now
    const router_counters& counters() const;
    std::size_t memory_bytes() const;

private:
    struct bucket {
        int rank = -1;
        int channel = -1;
        item_buffer items;
        request sending;
        bool busy = false; // in flight: takes no items until the send completes
    };

    void send(std::uint16_t index, bool full);
    bool complete_sends();
    bool drain(int channel);
    void note_buffered() {
        if (buffered_ > counters_.buffered_high_water) counters_.buffered_high_water = buffered_;
    }

    context& comm_;
    process_grid grid_;
    route_table table_;
    router_options options_;
    destination_fn destination_;
    deliver_fn deliver_;
    int my_rank_ = 0;
    std::size_t capacity_ = 1;

    std::vector<bucket> buckets_;          // one per router (partner)
    std::vector<std::uint16_t> in_flight_; // indices of busy buckets
    std::vector<item_buffer> receive_;     // one per channel
    std::size_t buffered_ = 0;
    bool finishing_ = false;
    termination_detector termination_;
    mutable router_counters counters_;
};

} // namespace spikex
