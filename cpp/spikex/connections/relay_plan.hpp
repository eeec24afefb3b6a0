#pragma once
// The two-phase relay plan of the multisend exchange (Hines et al. 2011, section
// "Multisend method variations"): instead of sending a spike to all N_t target ranks of
// its cell, the source rank sends it to ~sqrt(N_t) phase-one ranks, each of which passes
// it on to the ~sqrt(N_t) other ranks of its group (phase two).
//
// Set-up, per local cell with remote target ranks T (its target ranks without this rank,
// ascending; N_t = |T|):
//   1. T is cut into g = ceil(N_t / s) consecutive groups of nearly equal size, where
//      s = isqrt(N_t) (sizes differ by at most one);
//   2. in each group one rank is drawn as the relay with the cell's own Philox stream
//      (key (seed, gid), purpose relay), group by group: the same plan for any P-independent
//      inputs, and reproducible;
//   3. the relays form the cell's phase-one list; each relay is sent (gid, the other ranks
//      of its group) — one MPI_Alltoall of counts and one MPI_Alltoallv — and keeps that
//      list as its phase-two list for the gid, indexed by the gid's source run in its connection
//      table (a relay is a target rank, so it has the gid among its sources).
// Every target rank is reached exactly once: as a relay, or as a member of one relay's
// group (tests/cpp/test_relay_plan.cpp, tests/mpi/test_target_ranks.cpp check the tables).
#include <cstdint>
#include <span>
#include <vector>

#include "spikex/comm/context.hpp"
#include "spikex/connections/target_ranks.hpp"
#include "spikex/core/types.hpp"
#include "spikex/network/distribution.hpp"

namespace spikex {

// One group of a cell's target ranks: the relay and the other members.
struct relay_group {
    int relay = -1;
    std::vector<int> members; // the group without the relay
};

// Integer square root (floor), isqrt(0) = 0.
std::uint32_t integer_sqrt(std::uint32_t n);

// Steps 1-2 for one cell: `targets` are its remote target ranks, ascending.
std::vector<relay_group> split_relay_groups(std::span<const int> targets, gid_type gid, std::uint32_t seed);

class relay_plan {
public:
    relay_plan() = default;

    // Collective. `sources`: this rank's connection-table source list (ascending).
    static relay_plan build(context& comm, const distribution& cells, const target_ranks& targets,
                            const std::vector<gid_type>& sources, std::uint32_t seed);

    // Phase-one ranks of local cell i (ascending relays, one per group).
    std::span<const int> phase_one(local_index i) const {
        return {one_ranks_.data() + one_offsets_[i], one_ranks_.data() + one_offsets_[i + 1]};
    }
    // Phase-two ranks this rank forwards a spike of source run `run` to (empty if none).
    std::span<const int> phase_two(std::uint32_t run) const {
        return {two_ranks_.data() + two_offsets_[run], two_ranks_.data() + two_offsets_[run + 1]};
    }
    std::size_t source_runs() const { return two_offsets_.empty() ? 0 : two_offsets_.size() - 1; }

    std::size_t phase_one_entries() const { return one_ranks_.size(); }
    std::size_t phase_two_entries() const { return two_ranks_.size(); }
    std::size_t bytes() const {
        return (one_offsets_.capacity() + two_offsets_.capacity()) * sizeof(std::uint32_t) +
               (one_ranks_.capacity() + two_ranks_.capacity()) * sizeof(int);
    }

private:
    std::vector<std::uint32_t> one_offsets_; // local cells + 1
    std::vector<int> one_ranks_;
    std::vector<std::uint32_t> two_offsets_; // source runs + 1
    std::vector<int> two_ranks_;
};

} // namespace spikex
