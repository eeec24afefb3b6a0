// gups --algorithm routed: the optimised algorithm of Garg & Sabharwal, section 4.3
// (Figure 1), on the route library.
//
// Algorithm: updates are generated a block (up to 32) at a time and split, without a
//   branch, into this rank's (into the prefetched local block, applied when full) and the
//   others', each routed towards the rank that owns its word: put into the bucket of its
//   next-hop router (dimension-ordered over the grid; `lanes` buckets per router, filled
//   in turn; a block's remote updates in one copy when they all have one owner, as at
//   P = 2); a full bucket is sent at once. Every poll_every updates the router receives,
//   applies and forwards what has arrived. After the last update, finish() flushes and
//   keeps routing until the termination wave shows that every update of every rank has
//   been applied (route/termination.hpp).
// Messages and bytes: per rank 4 N h / P update transmissions (h = sum_i (1 - 1/D_i) mean
//   hops), 8 bytes each, in messages of up to c = (budget - block) / (lanes sum_i (D_i - 1)
//   + d) updates (at most message_bytes), to at most sum_i (D_i - 1) partners; a few 16-byte
//   non-blocking allreduces at the end.
// Memory: the router's buckets and receive buffers <= budget - block, the generated block,
//   the local block within what is left (gups.hpp share_routed_budget); the route table
//   (2 P bytes).
// Ordering guarantee: none needed (XOR commutes).
#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include "spikex/core/errors.hpp"
#include "spikex/gups/gups.hpp"
#include "spikex/instrument/phase_split.hpp"
#include "spikex/route/router.hpp"

namespace spikex {

namespace {
constexpr int routed_tag = 21200;

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

// The router (and its mailboxes) and the local block are set up before the timed part, as
// OpenMPI sets up its own shared-memory transport in MPI_Init: inside it, with more ranks
// than cores, the mailboxes' collective set-up took 80-120 ms at P = 4, an eighth of the
// timed part (its collective calls polled while the rank they waited for had no core).
class routed_kernel final: public gups_kernel {
public:
    routed_kernel(context& comm, gups_table& table, const gups_options& options):
        gups_kernel(comm, table, options),
        grid_(make_process_grid(comm.size(), options.dims, "--dims", options.budget, options.lanes)),
        shares_(share_routed_budget(grid_, options_, routed_tag)),
        router_(comm, grid_, shares_.router, owner_of_update{&table}, apply_updates{&table}) {}

    gups_counts run(update_stream& stream) override;

private:
    process_grid grid_;
    routed_budget shares_;
    router<owner_of_update, apply_updates> router_;
};

gups_counts routed_kernel::run(update_stream& stream) {
    context& comm = comm_;
    gups_table& table = table_;
    const gups_options& options = options_;
    auto& r = router_;
    local_batch& local = local_;
    const std::size_t generate_block = shares_.generate_block;

    // Updates are generated a block at a time and split without a branch: every update is
    // written both to the local block's free end and to the block of remote ones, and only
    // the index of its side advances. (At P = 2 "is it mine?" is a coin toss: one branch
    // per update, mispredicted half the time, cost more than the memory access itself.)
    // Updates of this rank's words skip the router: prefetched and applied a block at a
    // time (gups_table.hpp local_batch). The local block, the generated block and the
    // router's buckets and receive buffers together hold at most `budget` updates; the
    // local block is applied first when they would hold more, and before every wait.
    const auto budget = static_cast<std::size_t>(options.budget);
    std::array<std::uint64_t, largest_generate_block> remote;
    std::array<int, largest_generate_block> remote_owner;
    std::uint64_t local_updates = 0;
    const int me = comm.rank();
    // One rank: nothing can arrive, so (almost) no polling.
    const std::int64_t poll_every = comm.size() > 1 ? options.poll_every : std::numeric_limits<std::int64_t>::max();
    std::int64_t until_poll = poll_every;
    auto room = [&] { return budget - std::min(budget, local.size() + r.buffered()); };
    // Where the time goes (gups.hpp gups_phase): a time stamp at each change of phase, i.e.
    // at most a few per poll_every updates.
    phase_split<gups_phase_count> split(phase_generate_inject);
    auto flush_local = [&] {
        split.enter(phase_local_apply);
        local.flush(table);
        split.enter(phase_generate_inject);
    };
    auto wait_for_a_bucket = [&] {
        flush_local(); // nothing of ours waits while we wait
        split.enter(phase_wait);
        r.wait();
        split.enter(phase_generate_inject);
    };
    while (!stream.done()) {
        if (until_poll <= 0) {
            until_poll = poll_every;
            // What arrives now is held until applied: the local block goes first if both
            // would exceed the budget together.
            if (local.size() + r.buffered() + r.receive_reserve() > budget) flush_local();
            split.enter(phase_receive);
            r.progress();
            split.enter(phase_generate_inject);
        }
        std::size_t n = std::min<std::uint64_t>(generate_block, stream.left());
        if (n > local.capacity() - local.size() || n > room()) flush_local();
        n = std::min({n, local.capacity() - local.size(), room()});
        if (n == 0) { // the router holds the whole budget: let its messages go first
            split.enter(phase_wait);
            r.wait();
            split.enter(phase_generate_inject);
            continue;
        }
        until_poll -= static_cast<std::int64_t>(n);
        std::uint64_t* mine = local.tail();
        std::size_t mine_count = 0, remote_count = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint64_t update = stream.next();
            const int owner = table.owner(update);
            mine[mine_count] = update;
            remote[remote_count] = update;
            remote_owner[remote_count] = owner;
            const bool is_mine = owner == me;
            table.prefetch_if(update, is_mine);
            mine_count += is_mine;
            remote_count += !is_mine;
        }
        local_updates += mine_count;
        if (local.added(mine_count)) flush_local();
        // All of them for one owner (always so at P = 2): one copy into its bucket instead
        // of a call per update. Decided once per block: a branch per update on runs of
        // one owner was mispredicted at P = 4 and cost more than it saved.
        int owners_differ = 0;
        for (std::size_t j = 1; j < remote_count; ++j) owners_differ |= remote_owner[j] ^ remote_owner[0];
        if (owners_differ == 0) {
            // A bucket that fills goes at once and the next lane takes the rest; none when
            // every lane towards that owner is in flight.
            for (std::size_t j = 0; j < remote_count;) {
                const std::size_t took = r.try_inject_run(remote_owner[0], &remote[j], remote_count - j);
                if (took == 0) wait_for_a_bucket();
                j += took;
            }
        } else {
            for (std::size_t j = 0; j < remote_count; ++j) {
                while (!r.try_inject(remote_owner[j], &remote[j])) wait_for_a_bucket();
            }
        }
    }
    flush_local();
    split.enter(phase_finish);
    r.finish();

    const auto& c = r.counters();
    gups_counts counts;
    counts.local_updates = local_updates + c.items_injected - c.items_sent + c.items_forwarded; // never sent
    counts.messages_sent = c.messages_sent;
    counts.shared_memory_messages = c.shared_memory_messages;
    counts.bytes_sent = c.bytes_sent;
    counts.updates_sent = c.items_sent;
    counts.forwarded = c.items_forwarded;
    counts.send_tests = c.send_tests;
    counts.send_tests_pending = c.send_tests_pending;
    counts.rounds = c.waves;
    counts.buffered_high_water = c.buffered_high_water;
    counts.phase_seconds = split.seconds();
    return counts;
}

} // namespace

std::unique_ptr<gups_kernel> make_gups_routed(context& comm, gups_table& table, const gups_options& options) {
    return std::make_unique<routed_kernel>(comm, table, options);
}

} // namespace spikex
