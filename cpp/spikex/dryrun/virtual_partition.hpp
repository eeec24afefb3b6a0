#pragma once
// dryrun: the real network's connectivity partitioned for a virtual rank count P, without
// simulating and without MPI (issue 8, docs/scaling.md).
//
// Algorithm: the cell distribution is the real one (network/distribution.hpp) for P ranks;
//   every target's incoming connections are drawn with the real rule code
//   (network/connectivity.hpp rule_drawer), in a single pass over all targets, exactly as
//   the ranks of a real run would draw them. Nothing is simulated. What is kept:
//    * receive side, for every sampled rank t: its connections grouped by source (the
//      connection table's source runs, connections per run, delay groups of one delay and
//      one synapse type) — what the postsynaptic tier of rank t would hold;
//    * send side, for every cell of a sampled rank: the ranks that hold its targets and its
//      connections to each (target_ranks / target_table of the real run).
//   With all ranks sampled (the default when the connections fit, see dryrun_sample) both
//   sides are complete and every count derived from them is exact for every rank; with a
//   sample, counts are exact for the sampled ranks and global quantities that depend on
//   unsampled ranks (the Alltoall section size, relay loads from unsampled sources) are
//   taken over the sample (the output says so).
// Cost: one draw of every connection of the network (N K draws), memory ~12 bytes per
//   connection of a sampled rank. No messages.
#include <cstdint>
#include <span>
#include <vector>

#include "spikex/core/types.hpp"
#include "spikex/network/distribution.hpp"
#include "spikex/network/network_spec.hpp"

namespace spikex {

class virtual_partition {
public:
    // `sampled`: ranks to keep (ascending, distinct, each < ranks); empty = all ranks.
    // `sorted`: the connection layout of target-addressed methods (connections.sort_by_source).
    virtual_partition(const network_spec& spec, distribution_scheme scheme, int ranks, std::vector<int> sampled,
                      bool sorted);

    const distribution& cells() const { return cells_; }
    int ranks() const { return cells_.ranks(); }
    bool all_ranks() const { return all_; }
    bool sorted() const { return sorted_; }
    const std::vector<int>& sampled() const { return sampled_; }
    int sample_index(int rank) const { return sample_index_[rank]; } // -1: not sampled
    std::uint64_t connections_drawn() const { return drawn_; }
    step_type min_delay() const { return min_delay_; } // over all connections (the interval)
    step_type max_delay_of(std::size_t k) const { return receive_[k].max_delay; }

    // --- receive side: sampled rank number k (index into sampled()) ---------------------
    struct receive_side {
        std::vector<gid_type> sources;          // distinct sources, ascending (source runs)
        std::vector<std::uint32_t> connections; // per source: connections from it
        std::vector<std::uint32_t> groups;      // per source: its delay groups here
        std::uint64_t total_connections = 0;
        std::uint64_t delay_groups = 0; // distinct (source, delay, synapse type): the engine's delay groups
        bool mixed_delays = false;      // some source reaches this rank in two delay groups
        step_type min_delay = 0, max_delay = 0;
    };
    const receive_side& receive(std::size_t k) const { return receive_[k]; }

    // Which sampled ranks hold targets of `gid`, and how many connections each.
    std::span<const std::uint32_t> receivers(gid_type gid) const {
        return {receiver_index_.data() + receiver_offsets_[gid], receiver_index_.data() + receiver_offsets_[gid + 1]};
    }
    std::span<const std::uint32_t> receiver_connections(gid_type gid) const {
        return {receiver_conns_.data() + receiver_offsets_[gid], receiver_conns_.data() + receiver_offsets_[gid + 1]};
    }
    // ... and its delay groups on each (what a spike of it adds to that rank's delivery ring).
    std::span<const std::uint32_t> receiver_groups(gid_type gid) const {
        return {receiver_groups_.data() + receiver_offsets_[gid], receiver_groups_.data() + receiver_offsets_[gid + 1]};
    }

    // --- send side: cells of sampled ranks ----------------------------------------------
    bool tracked(gid_type gid) const { return sample_index_[cells_.rank_of(gid)] >= 0; }
    // All ranks holding targets of `gid` (ascending, may include its own), and connections
    // to each. Only for tracked cells.
    std::span<const int> target_ranks(gid_type gid) const {
        return {target_ranks_.data() + target_offsets_[gid], target_ranks_.data() + target_offsets_[gid + 1]};
    }
    std::span<const std::uint32_t> target_connections(gid_type gid) const {
        return {target_conns_.data() + target_offsets_[gid], target_conns_.data() + target_offsets_[gid + 1]};
    }

private:
    distribution cells_;
    bool all_ = true;
    bool sorted_ = true;
    std::vector<int> sampled_;
    std::vector<int> sample_index_;
    std::uint64_t drawn_ = 0;
    step_type min_delay_ = 0;
    std::vector<receive_side> receive_;
    // receivers per gid (CSR over gids): sampled rank index and connections
    std::vector<std::uint64_t> receiver_offsets_;
    std::vector<std::uint32_t> receiver_index_, receiver_conns_, receiver_groups_;
    // target ranks per gid (CSR over gids; empty for untracked cells)
    std::vector<std::uint64_t> target_offsets_;
    std::vector<int> target_ranks_;
    std::vector<std::uint32_t> target_conns_;
};

// The ranks a dry run keeps: all when ranks <= limit, else `limit` ranks spread evenly
// (rank 0 and the last rank included).
std::vector<int> dryrun_sample(int ranks, int limit);

} // namespace spikex
