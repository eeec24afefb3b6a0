#pragma once
// dryrun: what each exchange method would do, per rank and per (sub-)interval, for a
// virtual rank count — counted exactly from the partitioned network (virtual_partition)
// and a spike train. The counting rules live together in dryrun/exchange_counts.cpp, one
// function per method (count_<method>, declared below); each method's registry entry
// points at its own (method_entry::count). They share the row bookkeeping and the codec's
// size model kept there; the dry run stays a layer above the exchanges, which know
// nothing of it:
//   allgather   fixed block of 4 + S e bytes per rank per interval (e = 2 compressed, 8
//               full), an Allgatherv round when a rank's coded block is longer;
//   alltoall    sections of 8 + 2 S bytes, S adapting (grow to the largest fill, shrink
//               by 1/8), further rounds of exactly the rest when some block was longer;
//   alltoallv   a count Alltoall plus an Alltoallv of exactly the coded blocks;
//   multisend   one 2-4 byte message per (spike, remote target rank) (point_to_point.hpp
//               wire_message_bytes); two phases: the
//               source sends to the relays (connections/relay_plan.cpp split_relay_groups,
//               the same Philox draw), each relay forwards to its group;
//   persistent  the messages of multisend, plus a persistent request per (cell, remote
//               target rank) once the cell has fired;
//   rma         puts as multisend, of rma_entry_bytes each, ring deferrals when a cell fires more often than
//               rma_slot_spikes between two ends, window cells scanned at every round;
//   routed      one item per (spike, target rank) (exchange/routed_item.hpp), hop by hop along the
//               dimension-ordered route (route/route_table.hpp next_hop).
// Spikes are the same for every rank count and method (a design invariant checked by the
// test suite), so one spike train — e.g. from a 1-rank run — is the input for any P.
// Counts that depend on timing in a real run are not predicted: conservation iterations
// (multisend family) and how the routed exchange splits a bucket into messages (given as
// a lower bound: every (rank, next hop) pair sends at least ceil(items / bucket capacity)
// messages per interval).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "spikex/dryrun/virtual_partition.hpp"
#include "spikex/exchange/method_registry.hpp"

namespace spikex {

// One exchange synchronisation of the engine (an interval or sub-interval end, or the
// end of the run).
struct sync_row {
    step_type step; // the engine's step when it synchronises
    step_type due;  // spikes emitted before this step have arrived
};

// The engine's synchronisation points for a run made of run_until(stop) calls, one per
// element of `stops` (ascending): the Python API simulates in chunks of whole intervals.
std::vector<sync_row> sync_rows(const std::vector<step_type>& stops, step_type steps_per_interval, int subintervals);

struct exchange_counts {
    std::string method;
    std::vector<sync_row> rows;
    // Per sampled rank (index into virtual_partition::sampled()): run totals with the
    // counter names of the real exchange (summary.json "exchange").
    std::map<std::string, std::vector<double>> per_rank;
    // Per row: maximum and sum over the sampled ranks.
    std::map<std::string, std::vector<double>> row_max, row_sum;
    // Per cell of a sampled rank that has remote targets: fan-out distributions
    // (remote_target_ranks; two phases: phase_one_ranks, and relay_group per relay group).
    std::map<std::string, std::vector<double>> per_cell;
    // Set-up facts: buffer sizes, grid, bucket capacity, whether global values are exact.
    std::map<std::string, double> properties;
};

// What a method's counting rule (method_entry::count) sees: the partition, the method and
// its options, the spike train cut into the rows' emission windows, and the result to fill.
struct count_view {
    const virtual_partition& part;
    const method_entry& method;
    option_reader options;
    std::uint32_t seed;
    std::vector<std::vector<spike>> rows; // row i: spikes emitted in [rows[i-1].step, rows[i].step)
    exchange_counts& out;

    std::size_t sampled() const { return part.sampled().size(); }
    int ranks() const { return part.ranks(); }
    int rank_of(gid_type g) const { return part.cells().rank_of(g); }
    int index_of(gid_type g) const { return part.sample_index(rank_of(g)); }
};

// The counting rules of the registered methods (each entry names its own).
void count_allgather(count_view& view);
void count_alltoall(count_view& view);
void count_alltoallv(count_view& view);
void count_point_to_point(count_view& view); // multisend, persistent, rma
void count_routed(count_view& view);

// `gids`, `steps`: the spike train (any order). `stops`: the run_until calls (steps).
// `options`: the [exchange] values given (defaults for the rest).
exchange_counts count_exchange(const virtual_partition& partition, const std::string& method,
                               const option_values& options, std::uint32_t seed, const std::vector<gid_type>& gids,
                               const std::vector<step_type>& steps, const std::vector<step_type>& stops);

} // namespace spikex
