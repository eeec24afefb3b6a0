#pragma once
// gups: HPCC MPIRandomAccess (Garg & Sabharwal, sections 2, 4 and 6), two algorithms.
//
// Algorithm: a table of N = 2^k words over P ranks (gups_table), initialised outside the
//   timed part; each rank takes its contiguous piece of the one global stream of 4 N updates
//   (hpcc_stream) and every update a becomes T[a & (N - 1)] ^= a on the owning rank. At most
//   `budget` (1024, the benchmark's rule) updates are looked ahead or buffered per rank.
//   baseline: a bucket per destination, the fullest sent when `budget` are pending, one send
//   in flight (the reference implementation's scheme, section 6.1). routed: the route
//   library over any grid (section 4.3). Verification regenerates the stream and re-applies
//   it with a bulk-synchronous exchange; pass when at most 1% of the words differ from i.
// Messages and bytes: baseline ~ 4 N (1 - 1/P) / (P b) messages per rank of b updates
//   (b shrinks with P, the paper's Table 3), 8 bytes per update; routed: 4 N h / P item
//   transmissions per rank (h = sum_i (1 - 1/D_i) hops), in buckets of budget / sum_i D_i.
// Memory: the table (8 N / P bytes per rank) + budget updates of buffers + the route table.
// Ordering guarantee: none needed (XOR commutes).
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "spikex/comm/context.hpp"
#include "spikex/gups/gups_table.hpp"
#include "spikex/gups/hpcc_stream.hpp"
#include "spikex/route/router.hpp"

namespace spikex {

struct gups_options {
    int log2_table = 20;
    std::string algorithm = "routed"; // "baseline" | "routed"
    std::string dims = "auto";        // routed: grid shape (route library)
    std::int64_t budget = 1024;       // updates looked ahead or buffered per rank
    std::int64_t corrupt_updates = 0; // tests only: rank 0 applies its first K updates wrong
    bool verify = true;
    bool huge_pages = true;                            // ask for transparent huge pages for the table (gups_table.hpp)
    std::size_t message_bytes = default_message_bytes; // routed: a full bucket's message at most
    int poll_every = 256;                              // updates generated between two receive polls
    int lanes = 1;                                     // routed: buckets per partner (router_options::lanes)
    // routed: partners on this node through shared-memory mailboxes (router_options);
    // nullopt: yes (the default; an MPI that cannot share windows still falls back to MPI
    // messages). Faster than MPI messages at every P measured on 2 cores, 2 to 128 ranks,
    // once their collective set-up was outside the timed part (docs/user/gups.md).
    std::optional<bool> shared_memory;
};

// Where a rank's timed part goes (both algorithms; instrument/phase_split.hpp). The names
// are the keys of the JSON's "time_split_s" (python/spikex/scaling/gups.py).
enum gups_phase : std::size_t {
    phase_other,           // the rest of the timed call (what no other phase marks: about 0)
    phase_generate_inject, // generating updates, putting other ranks' into buckets, sending full ones
    phase_local_apply,     // applying the blocks of this rank's updates
    phase_receive,         // the polls between generated blocks: receive, apply, forward what arrived
    phase_wait,            // waiting for a send in flight or for room in the budget (yielding the core)
    phase_finish,          // after the last update: sending the rest, until every rank is done
    gups_phase_count
};
inline constexpr std::array<const char*, gups_phase_count> gups_phase_names = {
    "other", "generate_inject", "local_apply", "receive", "wait", "finish"};
static_assert(gups_phase_names.back() != nullptr, "a name for every gups_phase");

// Additive counts of one rank's timed run (summed over ranks by run_gups).
struct gups_counts {
    std::uint64_t local_updates = 0; // applied where they were generated
    std::uint64_t messages_sent = 0;
    std::uint64_t shared_memory_messages = 0; // routed: of messages_sent, through shared-memory mailboxes
    std::uint64_t bytes_sent = 0;
    std::uint64_t updates_sent = 0;                       // update transmissions (hops for routed)
    std::uint64_t forwarded = 0;                          // routed: updates received and sent on
    std::uint64_t send_tests = 0;                         // completion tests of an earlier send...
    std::uint64_t send_tests_pending = 0;                 // ...that found it unfinished (send blocking factor)
    std::uint64_t rounds = 0;                             // routed: termination waves
    std::uint64_t buffered_high_water = 0;                // max over ranks, not summed
    std::array<double, gups_phase_count> phase_seconds{}; // wall seconds per gups_phase
};

struct gups_result {
    int ranks = 1;
    std::string algorithm;
    std::vector<int> dims; // routed
    std::int64_t bucket_capacity = 0;
    int lanes = 1; // routed: buckets per partner (router_options::lanes, as the budget allows)
    std::uint64_t table_size = 0, updates = 0, errors = 0;
    bool verified = false, passed = false;
    bool huge_pages = false;     // the kernel accepted the huge-page request on every rank
    bool shared_memory = false;  // routed: mailboxes chosen (asked for, or by default)
    bool oversubscribed = false; // some node has more ranks than cores (context::share_of_node)
    double seconds = 0, init_seconds = 0, verify_seconds = 0;
    gups_counts counts; // phase_seconds summed over ranks
    // The timed part's CPU seconds and context switches of every rank's main thread, summed.
    double cpu_seconds = 0;
    std::uint64_t voluntary_switches = 0, involuntary_switches = 0;
};

// gups_routed's share-out of the look-ahead budget: a block of up to 32 generated updates
// (whose remote ones it may hold while it waits for a bucket) and the router's buckets and
// receive buffers, which get the rest (all of it when the budget leaves no room for a
// block beyond one item per bucket; then blocks are of one update).
inline constexpr std::size_t largest_generate_block = 32;
// This rank's updates prefetched ahead and applied as a block (both algorithms; random
// updates keep getting cheaper up to ~256 in flight: bench/cpp/memory_limits.cpp).
inline constexpr std::size_t local_block = 512;
struct routed_budget {
    std::size_t generate_block = 1;
    router_options router;
};
routed_budget share_routed_budget(const process_grid& grid, const gups_options& options, int tag);

// Collective. Throws user_error for bad options (identically on every rank).
gups_result run_gups(context& comm, const gups_options& options);

// The updates of one rank: its piece of the global stream, optionally corrupted.
class update_stream {
public:
    update_stream(std::uint64_t first, std::uint64_t count, std::uint64_t corrupt = 0):
        value_(hpcc_starts(static_cast<std::int64_t>(first))), left_(count), corrupt_(std::min(corrupt, count)) {}
    bool done() const { return left_ == 0; }
    std::uint64_t left() const { return left_; }
    std::uint64_t next() {
        value_ = hpcc_next(value_);
        --left_;
        if (corrupt_ == 0) return value_;
        --corrupt_;
        return value_ ^ (std::uint64_t(1) << 63); // same word (low bits), wrong value
    }

private:
    std::uint64_t value_, left_, corrupt_;
};

// One algorithm on one rank: constructed (collectively: routed sets up its router and
// mailboxes) before the timed part, run() is the timed part (apply the updates of
// `stream`), destroyed (collectively) after it.
class gups_kernel {
public:
    gups_kernel(context& comm, gups_table& table, const gups_options& options);
    virtual ~gups_kernel() = default;
    gups_kernel(const gups_kernel&) = delete;
    gups_kernel& operator=(const gups_kernel&) = delete;
    virtual gups_counts run(update_stream& stream) = 0;

protected:
    context& comm_;
    gups_table& table_;
    const gups_options options_;
    local_batch local_; // this rank's own updates, prefetched and applied local_block at a time
};
std::unique_ptr<gups_kernel> make_gups_baseline(context& comm, gups_table& table, const gups_options& options);
std::unique_ptr<gups_kernel> make_gups_routed(context& comm, gups_table& table, const gups_options& options);
// Bulk-synchronous re-application of every rank's piece of the stream (verification).
void gups_reapply(context& comm, gups_table& table, std::uint64_t first, std::uint64_t count, std::uint64_t max_count);

} // namespace spikex
