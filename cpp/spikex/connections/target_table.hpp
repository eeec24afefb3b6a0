#pragma once
// The presynaptic tier of NEST 5g's two-tier connection infrastructure (Jordan et al.
// 2018, sections 3.1.2-3.1.3): for every cell of this rank, where its targets are — one
// packed entry (rank, thread, synapse type, location) per target run (sorted layout: the
// source run on the target's rank) or per connection (creation-order layout). The location
// is in the target rank's numbering of its locations from this rank (sender_numbering.hpp):
// the index of the run (or connection) among those whose source lives here.
//
// Built during init from the postsynaptic side, without any structure of size N: every
// rank sends each source's rank the locations of its connections from that source, in
// MPI_Alltoall rounds whose buffer is bounded by exchange.max_init_buffer_mb; a collective
// first finds the largest number of entries any rank sends to any other (paper 3.1.3).
//
// Packed target (64 bits, as NEST's Target): rank 20 bits | thread 10 | synapse type 6 |
// location 27 | 1 spare. Ranks < 2^20, threads < 1024, synapse types < 64 and locations
// (connections or source runs of one (thread, synapse type) on a rank from one rank) <
// 2^27: exceeding any of them is a user error naming the limit.
#include <cstdint>
#include <vector>

#include "spikex/comm/context.hpp"
#include "spikex/connections/connection_table.hpp"
#include "spikex/connections/sender_numbering.hpp"
#include "spikex/network/distribution.hpp"

namespace spikex {

struct packed_target {
    static constexpr int rank_bits = 20, thread_bits = 10, synapse_bits = 6, location_bits = 27;

    // user_error if a field does not fit.
    static std::uint64_t pack(std::uint32_t rank, std::uint32_t thread, std::uint32_t synapse_type,
                              std::uint32_t location);
    static std::uint32_t rank(std::uint64_t t) { return static_cast<std::uint32_t>(t >> 44); }
    static std::uint32_t thread(std::uint64_t t) { return static_cast<std::uint32_t>(t >> 34) & 0x3ff; }
    static std::uint32_t synapse_type(std::uint64_t t) { return static_cast<std::uint32_t>(t >> 28) & 0x3f; }
    static std::uint32_t location(std::uint64_t t) { return static_cast<std::uint32_t>(t >> 1) & 0x7ffffff; }
};

struct target_table_stats {
    std::uint64_t rounds = 0;       // Alltoall rounds used to build the table
    std::uint64_t entries_sent = 0; // entries this rank sent
    std::uint64_t bytes_sent = 0;
    std::uint64_t section_entries = 0; // entries per section per round
};

class target_table {
public:
    target_table() = default;

    // Collective. `numbering`: this rank's locations numbered per sending rank (from cells
    // and table). `max_buffer_bytes` bounds the send (and receive) buffer of one round.
    static target_table build(context& comm, const distribution& cells, const connection_table& table,
                              const sender_numbering& numbering, std::size_t max_buffer_bytes,
                              target_table_stats& stats);

    // Targets of local cell i: [begin(i), end(i)) of data().
    std::uint32_t begin(local_index i) const { return offsets_[i]; }
    std::uint32_t end(local_index i) const { return offsets_[i + 1]; }
    const std::uint64_t* data() const { return targets_.data(); }
    std::size_t size() const { return targets_.size(); }
    std::size_t bytes() const {
        return offsets_.capacity() * sizeof(std::uint32_t) + targets_.capacity() * sizeof(std::uint64_t);
    }

private:
    std::vector<std::uint32_t> offsets_; // local cells + 1
    std::vector<std::uint64_t> targets_;
};

} // namespace spikex
