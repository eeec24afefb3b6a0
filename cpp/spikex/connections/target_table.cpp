#include <algorithm>
#include <cstring>

#include "spikex/connections/target_table.hpp"
#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"

namespace spikex {
namespace {

// One entry on the wire: which cell of the receiving rank is the source, and where its
// target run (or connection) lives on the sending rank.
struct wire_entry {
    std::uint32_t source_local;
    std::uint32_t count; // the first record of a section holds the section's entry count
    std::uint64_t target;
};
static_assert(sizeof(wire_entry) == 16);

void require(bool ok, const std::string& what, std::uint64_t value, std::uint64_t limit) {
    if (!ok) {
        throw user_error(
            spikex::format("packed target: {} = {} exceeds the limit of {} (8-byte target entries: rank 20 "
                           "bits, thread 10, synapse type 6, location 27)",
                           what, value, limit));
    }
}

} // namespace

std::uint64_t packed_target::pack(std::uint32_t rank, std::uint32_t thread, std::uint32_t synapse_type,
                                  std::uint32_t location) {
    require(rank < (1u << rank_bits), "rank", rank, (1u << rank_bits) - 1);
    require(thread < (1u << thread_bits), "thread", thread, (1u << thread_bits) - 1);
    require(synapse_type < (1u << synapse_bits), "synapse type", synapse_type, (1u << synapse_bits) - 1);
    require(location < (1u << location_bits), "connections (or source runs) on a rank from one rank", location,
            (1u << location_bits) - 1);
    return (std::uint64_t{rank} << 44) | (std::uint64_t{thread} << 34) | (std::uint64_t{synapse_type} << 28) |
           (std::uint64_t{location} << 1);
}

target_table target_table::build(context& comm, const distribution& cells, const connection_table& table,
                                 const sender_numbering& numbering, std::size_t max_buffer_bytes,
                                 target_table_stats& stats) {
    const int ranks = comm.size();
    const auto me = static_cast<std::uint32_t>(comm.rank());

    // 1. What this rank must tell each source rank, grouped by destination (CSR): for each
    // of its locations from that rank, in that rank's numbering, the source cell.
    std::vector<std::uint32_t> per_rank(ranks + 1, 0);
    for (int r = 0; r < ranks; ++r) per_rank[r + 1] = per_rank[r] + numbering.count(r);
    std::uint32_t most = 0;
    for (int r = 0; r < ranks; ++r) most = std::max(most, numbering.count(r));
    std::vector<wire_entry> outgoing(per_rank[ranks]);
    // In a sender's numbering the locations are in its cells' order, not in memory order:
    // in creation order each is a miss in the table's sources, so they are prefetched.
    constexpr std::uint32_t ahead = 16;
    for (int r = 0; r < ranks; ++r) {
        for (std::uint32_t index = 0; index < numbering.count(r); ++index) {
            if (index + ahead < numbering.count(r))
                __builtin_prefetch(table.location_source_address(numbering.location(r, index + ahead)));
            const std::uint32_t location = numbering.location(r, index);
            const gid_type source = table.location_source(location);
            outgoing[per_rank[r] + index] = {cells.local_of(source), 0, packed_target::pack(me, 0, 0, index)};
        }
    }

    // 2. Size the sections: the largest count between any two ranks, within the bound.
    const auto needed = static_cast<std::uint64_t>(comm.allreduce_max(most));
    const std::uint64_t per_section_limit = max_buffer_bytes / (static_cast<std::uint64_t>(ranks) * sizeof(wire_entry));
    if (per_section_limit < 2) {
        throw user_error(
            spikex::format("exchange.max_init_buffer_mb = {:.6f}: too small for {} ranks (needs at least {} bytes)",
                           max_buffer_bytes / 1048576.0, ranks, 2 * ranks * sizeof(wire_entry)));
    }
    const std::uint64_t section = std::max<std::uint64_t>(1, std::min(needed, per_section_limit - 1));
    const std::uint64_t rounds = needed == 0 ? 1 : (needed + section - 1) / section;
    stats.section_entries = section;

    // 3. Rounds of MPI_Alltoall; a section is [count record][up to `section` entries].
    const std::size_t record_count = (section + 1) * ranks;
    std::vector<wire_entry> send(record_count), receive(record_count);
    std::vector<std::pair<std::uint32_t, std::uint64_t>> received; // (local source, target)
    std::vector<std::uint32_t> sent(ranks, 0);
    for (std::uint64_t round = 0; round < rounds; ++round) {
        for (int r = 0; r < ranks; ++r) {
            std::uint32_t available = per_rank[r + 1] - per_rank[r] - sent[r];
            auto n = static_cast<std::uint32_t>(std::min<std::uint64_t>(available, section));
            wire_entry* out = &send[r * (section + 1)];
            out[0] = {0, n, 0};
            std::copy_n(&outgoing[per_rank[r] + sent[r]], n, out + 1);
            sent[r] += n;
            stats.entries_sent += n;
        }
        comm.alltoall(send.data(), (section + 1) * sizeof(wire_entry), receive.data());
        stats.bytes_sent += record_count * sizeof(wire_entry);
        ++stats.rounds;
        for (int r = 0; r < ranks; ++r) {
            const wire_entry* in = &receive[r * (section + 1)];
            for (std::uint32_t k = 1; k <= in[0].count; ++k) received.emplace_back(in[k].source_local, in[k].target);
        }
    }

    // 4. Counting sort by local source cell -> CSR.
    target_table t;
    const std::uint32_t local_cells = cells.count(comm.rank());
    t.offsets_.assign(local_cells + 1, 0);
    for (const auto& [source, target]: received) {
        if (source >= local_cells) throw internal_error("target table: entry for a cell this rank does not hold");
        ++t.offsets_[source + 1];
    }
    for (std::uint32_t i = 0; i < local_cells; ++i) t.offsets_[i + 1] += t.offsets_[i];
    t.targets_.resize(received.size());
    std::vector<std::uint32_t> fill(t.offsets_.begin(), t.offsets_.end() - 1);
    for (const auto& [source, target]: received) t.targets_[fill[source]++] = target;
    return t;
}

} // namespace spikex
