#include <algorithm>
#include <limits>

#include "spikex/connections/target_ranks.hpp"
#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"

namespace spikex {

target_ranks target_ranks::build(context& comm, const distribution& cells, const std::vector<gid_type>& sources) {
    const int ranks = comm.size();
    const int me = comm.rank();

    // 1. The requests: the sources of this rank's connections, grouped by owner rank.
    //    `sources` is ascending, so each group is ascending too.
    std::vector<std::uint32_t> send_count(ranks, 0);
    for (gid_type g: sources) ++send_count[cells.rank_of(g)];
    std::vector<int> send_displs(ranks, 0), send_bytes(ranks, 0);
    std::size_t total = 0;
    for (int r = 0; r < ranks; ++r) {
        if (total + send_count[r] > static_cast<std::size_t>(std::numeric_limits<int>::max()) / sizeof(gid_type)) {
            throw user_error("target ranks: more than 2^31 bytes of requests from one rank");
        }
        send_displs[r] = static_cast<int>(total * sizeof(gid_type));
        send_bytes[r] = static_cast<int>(send_count[r] * sizeof(gid_type));
        total += send_count[r];
    }
    std::vector<gid_type> requests(total);
    {
        std::vector<std::size_t> fill(ranks, 0);
        for (int r = 0; r < ranks; ++r) fill[r] = send_displs[r] / sizeof(gid_type);
        for (gid_type g: sources) requests[fill[cells.rank_of(g)]++] = g;
    }

    // 2. Counts, then the gid lists themselves.
    std::vector<std::uint32_t> recv_count(ranks, 0);
    comm.alltoall(send_count.data(), sizeof(std::uint32_t), recv_count.data());
    std::vector<int> recv_displs(ranks, 0), recv_bytes(ranks, 0);
    std::size_t received = 0;
    for (int r = 0; r < ranks; ++r) {
        if (received + recv_count[r] > static_cast<std::size_t>(std::numeric_limits<int>::max()) / sizeof(gid_type)) {
            throw user_error("target ranks: more than 2^31 bytes of requests to one rank");
        }
        recv_displs[r] = static_cast<int>(received * sizeof(gid_type));
        recv_bytes[r] = static_cast<int>(recv_count[r] * sizeof(gid_type));
        received += recv_count[r];
    }
    std::vector<gid_type> asked(received);
    comm.alltoallv(requests.data(), send_bytes, send_displs, asked.data(), recv_bytes, recv_displs);

    // 3. Invert: rank r asked for cell c at position k of its list -> (c: r, k). Counting
    //    sort by local cell; ranks are visited in order, so each cell's list is sorted.
    target_ranks out;
    const std::uint32_t local = cells.count(me);
    out.offsets_.assign(local + 1, 0);
    for (gid_type g: asked) {
        if (cells.rank_of(g) != me) {
            throw internal_error(
                spikex::format("target ranks: rank {} was asked for gid {}, which it does not hold", me, g));
        }
        ++out.offsets_[cells.local_of(g) + 1];
    }
    for (std::uint32_t i = 0; i < local; ++i) out.offsets_[i + 1] += out.offsets_[i];
    out.ranks_.resize(received);
    out.positions_.resize(received);
    std::vector<std::uint32_t> fill(out.offsets_.begin(), out.offsets_.end() - 1);
    std::size_t k = 0;
    for (int r = 0; r < ranks; ++r) {
        for (std::uint32_t pos = 0; pos < recv_count[r]; ++pos, ++k) {
            auto at = fill[cells.local_of(asked[k])]++;
            out.ranks_[at] = r;
            out.positions_[at] = pos;
        }
    }
    out.requested_by_ = std::move(recv_count);
    out.requested_from_ = std::move(send_count);
    return out;
}

std::uint32_t target_ranks::max_fanout() const {
    std::uint32_t m = 0;
    for (std::size_t i = 0; i + 1 < offsets_.size(); ++i) m = std::max(m, offsets_[i + 1] - offsets_[i]);
    return m;
}

} // namespace spikex
