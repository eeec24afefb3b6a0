// gups verification: re-apply the whole stream with a safe bulk-synchronous exchange
// (HPCC's verification step, Garg & Sabharwal section 2).
//
// Algorithm: in rounds of `chunk` updates per rank, every rank regenerates the next piece
//   of its part of the stream, sorts it by owner rank, exchanges counts (MPI_Alltoall) and
//   updates (MPI_Alltoallv), and applies what it received. Every rank makes the same number
//   of rounds (ceil(largest piece / chunk)), so the collectives always match. Since XOR is
//   its own inverse, a correct timed run followed by this leaves T[i] = i everywhere.
// Messages and bytes: 2 collectives per round, 8 bytes per update; rounds = 4 N / (P chunk).
// Memory: 3 chunk-sized buffers of updates per rank.
// Ordering guarantee: none needed (XOR commutes).
#include <algorithm>
#include <vector>

#include "spikex/gups/gups.hpp"

namespace spikex {

void gups_reapply(context& comm, gups_table& table, std::uint64_t first, std::uint64_t count, std::uint64_t max_count) {
    constexpr std::uint64_t chunk = 65536; // updates per all-to-all round (untimed: no budget)
    const int ranks = comm.size();
    update_stream stream(first, count);
    std::vector<std::uint64_t> generated(chunk), sorted(chunk), received;
    std::vector<int> send_count(ranks), send_displs(ranks), recv_count(ranks), recv_displs(ranks);
    std::vector<std::uint32_t> per_rank(ranks), from_rank(ranks);
    const std::uint64_t rounds = (max_count + chunk - 1) / chunk;
    for (std::uint64_t round = 0; round < rounds; ++round) {
        std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, stream.left()));
        std::fill(per_rank.begin(), per_rank.end(), 0);
        for (std::size_t i = 0; i < n; ++i) {
            generated[i] = stream.next();
            ++per_rank[table.owner(generated[i])];
        }
        int offset = 0;
        for (int r = 0; r < ranks; ++r) {
            send_displs[r] = offset;
            send_count[r] = static_cast<int>(per_rank[r] * sizeof(std::uint64_t));
            offset += send_count[r];
        }
        std::vector<int> fill(send_displs);
        for (std::size_t i = 0; i < n; ++i) {
            int r = table.owner(generated[i]);
            sorted[fill[r] / sizeof(std::uint64_t)] = generated[i];
            fill[r] += sizeof(std::uint64_t);
        }
        comm.alltoall(per_rank.data(), sizeof(std::uint32_t), from_rank.data());
        offset = 0;
        for (int r = 0; r < ranks; ++r) {
            recv_displs[r] = offset;
            recv_count[r] = static_cast<int>(from_rank[r] * sizeof(std::uint64_t));
            offset += recv_count[r];
        }
        received.resize(offset / sizeof(std::uint64_t));
        comm.alltoallv(sorted.data(), send_count, send_displs, received.data(), recv_count, recv_displs);
        table.apply_all(received.data(), received.size()); // prefetched ahead: misses overlap
    }
}

} // namespace spikex
