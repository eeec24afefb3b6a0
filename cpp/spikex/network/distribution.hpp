#pragma once
// Which rank holds which cell (spec/models.md, "Cell distribution over ranks").
//  round_robin:    gid i on rank i mod P, local index i / P.
//  consecutive:    blocks of B = ceil(N/P) gids: rank i / B, local index i mod B.
//  random_shuffle: every gid gets a position in one seeded permutation of 0..N-1 (gids
//                  ordered by a 64-bit key from the gid's own Philox stream, purpose
//                  placement, ties by gid), independent of P; position p goes to rank
//                  p mod P with local index p / P. Each rank gets N/P cells (+-1).
// Local indices on a rank run 0..count(rank)-1.
#include <cstdint>
#include <string>
#include <vector>

#include "spikex/core/types.hpp"

namespace spikex {

enum class distribution_scheme { round_robin, consecutive, random_shuffle };

distribution_scheme parse_distribution_scheme(const std::string& name); // user_error if unknown

class distribution {
public:
    distribution(distribution_scheme scheme, std::uint32_t cells, int ranks, std::uint32_t seed);

    int rank_of(gid_type gid) const;
    local_index local_of(gid_type gid) const;
    gid_type gid_of(int rank, local_index local) const;
    std::uint32_t count(int rank) const;
    std::uint32_t max_count() const;

    std::uint32_t cells() const { return cells_; }
    int ranks() const { return ranks_; }
    distribution_scheme scheme() const { return scheme_; }

    // Gids held by `rank`, in local-index order.
    std::vector<gid_type> gids_of(int rank) const;

private:
    distribution_scheme scheme_;
    std::uint32_t cells_;
    int ranks_;
    std::uint32_t block_ = 0;             // consecutive: ceil(N/P)
    std::vector<gid_type> gid_at_;        // random_shuffle: position -> gid
    std::vector<std::uint32_t> position_; // random_shuffle: gid -> position
};

} // namespace spikex
