// gups driver: set-up outside the timed part, the timed algorithm between two barriers,
// verification, and the reduction of every rank's counts (see gups.hpp).
#include "spikex/gups/gups.hpp"

#include <algorithm>
#include <thread>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/instrument/stopwatch.hpp"
#include "spikex/instrument/thread_usage.hpp"
#include "spikex/route/router.hpp"

namespace spikex {

namespace {

std::int64_t nanoseconds(double seconds) { return static_cast<std::int64_t>(seconds * 1e9); }

// A barrier that gives the core away while it waits, whatever mpi_yield_when_idle says
// (MPI's blocking barrier polls without yielding when it is off; spikex gups turns it off
// when every rank has a core: python/spikex/scaling/gups.py): with more ranks than cores a
// rank polling in the barrier that ends the timed part holds a core that a rank still
// updating needs (P = 4 on 2 cores, mailboxes, measured with it off: 0.12 -> 0.13 GUPS).
void yielding_barrier(context& comm) {
    std::int64_t token = 0;
    request r = comm.iallreduce_sum(&token, 1);
    while (!comm.test(r)) std::this_thread::yield();
}

bool any_node_oversubscribed(context& comm) {
    return comm.allreduce_max(comm.share_of_node().oversubscribed() ? 1 : 0) == 1;
}

} // namespace

routed_budget share_routed_budget(const process_grid& grid, const gups_options& options, int tag) {
    const std::int64_t spare =
        std::clamp<std::int64_t>(options.budget - grid.buckets(), 0, std::int64_t(largest_generate_block));
    routed_budget shares;
    shares.generate_block = static_cast<std::size_t>(std::max<std::int64_t>(spare, 1));
    shares.router =
        router_options{sizeof(std::uint64_t), options.budget - spare, tag, options.message_bytes, options.lanes};
    shares.router.shared_memory = options.shared_memory.value_or(true); // gups_options::shared_memory
    return shares;
}

gups_kernel::gups_kernel(context& comm, gups_table& table, const gups_options& options):
    comm_(comm),
    table_(table),
    options_(options),
    local_(std::min<std::size_t>(local_block, static_cast<std::size_t>(options.budget))) {}

gups_result run_gups(context& comm, const gups_options& options) {
    const int ranks = comm.size(), me = comm.rank();
    gups_result result;
    result.ranks = ranks;
    result.algorithm = options.algorithm;

    // Every check before the first collective, identical on all ranks.
    if (options.algorithm != "baseline" && options.algorithm != "routed") {
        throw user_error(spikex::format("--algorithm = \"{}\": must be \"baseline\" or \"routed\"", options.algorithm));
    }
    if (options.budget < 1) {
        throw user_error(spikex::format("--budget = {}: must be >= 1", options.budget));
    }
    if (options.poll_every < 1) throw user_error("poll_every must be >= 1");
    if (options.message_bytes < sizeof(std::uint64_t)) {
        throw user_error(spikex::format("--message-bytes = {}: must be >= 8 (one update)", options.message_bytes));
    }
    if (options.lanes < 1 || options.lanes > 255) {
        throw user_error(spikex::format("--lanes = {}: must be from 1 to 255", options.lanes));
    }
    if (options.algorithm == "routed") {
        process_grid grid = make_process_grid(ranks, options.dims, "--dims", options.budget, options.lanes);
        std::string problem = budget_problem(grid, options.budget);
        if (!problem.empty()) throw user_error(spikex::format("--budget = {}: {}", options.budget, problem));
        result.dims = grid.dims();
        const router_options shares = share_routed_budget(grid, options, 0).router;
        result.bucket_capacity = static_cast<std::int64_t>(bucket_capacity(grid, shares));
        result.lanes = bucket_lanes(grid, shares);
        result.shared_memory = shares.shared_memory;
    } else {
        result.bucket_capacity = options.budget;
    }

    result.oversubscribed = any_node_oversubscribed(comm);

    double start = wall_seconds();
    gups_table table(options.log2_table, ranks, me, options.huge_pages);
    result.huge_pages = comm.allreduce_min(table.huge_pages() ? 1 : 0) == 1;
    block_split updates{4 * table.size(), ranks};
    result.table_size = table.size();
    result.updates = updates.total;

    update_stream stream(updates.first(me), updates.count(me), me == 0 ? options.corrupt_updates : 0);
    std::unique_ptr<gups_kernel> kernel = options.algorithm == "baseline" ? make_gups_baseline(comm, table, options)
                                                                          : make_gups_routed(comm, table, options);
    result.init_seconds = wall_seconds() - start; // the table and the algorithm's set-up
    yielding_barrier(comm);
    start = wall_seconds();
    const thread_usage usage_start = thread_usage::now();
    gups_counts counts = kernel->run(stream);
    const thread_usage usage = thread_usage::now().since(usage_start);
    // The algorithms split their loops into phases; "other" is the rest of the call.
    const double algorithm_seconds = wall_seconds() - start;
    double split_seconds = 0;
    for (double s: counts.phase_seconds) split_seconds += s;
    counts.phase_seconds[phase_other] = std::max(0.0, algorithm_seconds - split_seconds);
    yielding_barrier(comm);
    result.seconds = comm.allreduce_max(nanoseconds(wall_seconds() - start)) * 1e-9;
    kernel.reset(); // collective (routed: the mailboxes), outside the timed part

    std::array<std::int64_t, gups_phase_count + 3> spent{};
    for (std::size_t p = 0; p < gups_phase_count; ++p) spent[p] = nanoseconds(counts.phase_seconds[p]);
    spent[gups_phase_count] = nanoseconds(usage.cpu_seconds);
    spent[gups_phase_count + 1] = std::int64_t(usage.voluntary_switches);
    spent[gups_phase_count + 2] = std::int64_t(usage.involuntary_switches);
    comm.allreduce_sum(spent.data(), static_cast<int>(spent.size()));
    for (std::size_t p = 0; p < gups_phase_count; ++p) counts.phase_seconds[p] = spent[p] * 1e-9;
    result.cpu_seconds = spent[gups_phase_count] * 1e-9;
    result.voluntary_switches = std::uint64_t(spent[gups_phase_count + 1]);
    result.involuntary_switches = std::uint64_t(spent[gups_phase_count + 2]);

    std::int64_t sums[9] = {std::int64_t(counts.local_updates),
                            std::int64_t(counts.messages_sent),
                            std::int64_t(counts.shared_memory_messages),
                            std::int64_t(counts.bytes_sent),
                            std::int64_t(counts.updates_sent),
                            std::int64_t(counts.forwarded),
                            std::int64_t(counts.send_tests),
                            std::int64_t(counts.send_tests_pending),
                            std::int64_t(counts.rounds)};
    comm.allreduce_sum(sums, 9);
    result.counts = {
        std::uint64_t(sums[0]), std::uint64_t(sums[1]),
        std::uint64_t(sums[2]), std::uint64_t(sums[3]),
        std::uint64_t(sums[4]), std::uint64_t(sums[5]),
        std::uint64_t(sums[6]), std::uint64_t(sums[7]),
        std::uint64_t(sums[8]), std::uint64_t(comm.allreduce_max(std::int64_t(counts.buffered_high_water))),
        counts.phase_seconds};
    // Termination waves are collective: every rank made the same number.
    result.counts.rounds /= static_cast<std::uint64_t>(ranks);

    if (options.verify) {
        start = wall_seconds();
        gups_reapply(comm, table, updates.first(me), updates.count(me), updates.count(0));
        result.errors = static_cast<std::uint64_t>(comm.allreduce_sum(std::int64_t(table.count_errors())));
        result.verify_seconds = comm.allreduce_max(nanoseconds(wall_seconds() - start)) * 1e-9;
        result.verified = true;
        result.passed = result.errors * 100 <= result.table_size; // at most 1% of the words
    }
    return result;
}

} // namespace spikex
