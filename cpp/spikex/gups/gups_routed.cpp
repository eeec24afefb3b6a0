// gups --algorithm routed: the optimised algorithm of Garg & Sabharwal, section 4.3
// (Figure 1), on the route library.
//
// Algorithm: each update is routed towards the rank that owns its word: applied at once if
//   local, else put into the bucket of its next-hop router (dimension-ordered over the
//   grid); a full bucket is sent at once. An update is formed only when its bucket can take
//   it, and every poll_every updates the router receives and forwards what has arrived.
//   After the last update, finish() flushes and keeps routing until the termination wave
//   shows that every update of every rank has been applied (route/termination.hpp).
// Messages and bytes: per rank 4 N h / P update transmissions (h = sum_i (1 - 1/D_i) mean
//   hops), 8 bytes each, in messages of up to c = budget / sum_i D_i updates, to at most
//   sum_i (D_i - 1) partners; a few 16-byte non-blocking allreduces at the end.
// Memory: sum_i D_i buckets of c updates <= budget; the route table (2 P bytes).
// Ordering guarantee: none needed (XOR commutes).
#include <algorithm>
#include <cstring>
#include <limits>

#include "spikex/core/errors.hpp"
#include "spikex/gups/gups.hpp"
#include "spikex/route/router.hpp"

namespace spikex {

namespace {
constexpr int routed_tag = 21200;
constexpr std::size_t local_block = 512; // local updates prefetched ahead (memory_limits)

// The router's item handlers, inlined into its loops (route/router.hpp).
struct owner_of_update {
    const gups_table* table;
    int operator()(const unsigned char* item) const {
        std::uint64_t update;
        std::memcpy(&update, item, sizeof update);
        return table->owner(update);
    }
};
struct apply_updates {
    gups_table* table;
    void operator()(const unsigned char* items, std::size_t count) const {
        table->apply_all(items, count); // in place, prefetched ahead
    }
};
} // namespace

gups_counts gups_routed(context& comm, gups_table& table, update_stream& stream, const gups_options& options) {
    process_grid grid = make_process_grid(comm.size(), options.dims, "--dims", options.budget);
    router r(comm, grid, router_options{sizeof(std::uint64_t), options.budget, routed_tag, options.message_bytes},
             owner_of_update{&table}, apply_updates{&table});

    // Updates of this rank's words skip the router: prefetched and applied a block at a
    // time (gups_table.hpp local_batch). The block and the router's buckets together hold
    // at most `budget` updates: the block is applied first when they would hold more.
    const auto budget = static_cast<std::size_t>(options.budget);
    local_batch local(std::min<std::size_t>(local_block, budget));
    std::uint64_t local_updates = 0;
    const int me = comm.rank();
    // One rank: nothing can arrive, so (almost) no polling.
    const int poll_every = comm.size() > 1 ? options.poll_every : std::numeric_limits<int>::max();
    int until_poll = poll_every;
    while (!stream.done()) {
        if (--until_poll == 0) {
            until_poll = poll_every;
            r.progress();
        }
        std::uint64_t update = stream.next();
        int owner = table.owner(update);
        if (owner == me) {
            ++local_updates;
            if (local.size() + r.buffered() >= budget) local.flush(table);
            if (r.buffered() >= budget) {
                table.apply(update); // nothing may wait: applied at once
                continue;
            }
            local.add(table, update);
            continue;
        }
        while (!r.try_inject(owner, &update)) r.wait();
    }
    local.flush(table);
    r.finish();

    const auto& c = r.counters();
    gups_counts counts;
    counts.local_updates = local_updates + c.items_injected - c.items_sent + c.items_forwarded; // never sent
    counts.messages_sent = c.messages_sent;
    counts.bytes_sent = c.bytes_sent;
    counts.updates_sent = c.items_sent;
    counts.forwarded = c.items_forwarded;
    counts.send_tests = c.send_tests;
    counts.send_tests_pending = c.send_tests_pending;
    counts.rounds = c.waves;
    counts.buffered_high_water = c.buffered_high_water;
    return counts;
}

} // namespace spikex
