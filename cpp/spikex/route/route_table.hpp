#pragma once
// route: dimension-ordered next hop on the process grid, as a lookup table (Garg &
// Sabharwal, sections 4.2-4.3: "a lookup table to quickly determine the next-hop router
// given the destination node ... N bytes").
//
// Algorithm: from rank s to rank t, fix the lowest coordinate in which they differ: the
//   next hop is s with that coordinate replaced by t's (the paper's x-, then y-, then
//   z-routers), so a route has at most d hops and uses dimensions in increasing order.
//   Ragged grid (last plane incomplete): a position may be missing only in the last plane.
//   A rank of the last plane sending to a full plane first descends along the last
//   dimension to t's plane (always present), then routes normally inside that full plane;
//   inside the last plane it routes normally when the whole in-plane path exists, else
//   descends to the plane below, routes there and climbs back (d + 1 hops, only possible
//   with 3 or more dimensions: with 2 the in-plane hop goes straight to t).
// Channels: a hop along dimension i travels on channel i (+ 1 on a ragged grid); the
//   descent travels on channel 0 of a ragged grid. Along every route the channels strictly
//   increase: the channel dependency graph has no cycle, which is what makes bounded
//   receive buffers, one per channel, deadlock-free (router.hpp).
// Table: for every destination rank one uint16 = the index of the next-hop router among
//   this rank's partners (local: 0xffff); each partner is reached on exactly one channel.
// Messages and bytes: none (set-up arithmetic, O(P d) per rank). Memory: 2 P bytes + the
//   partner list (<= sum_i (D_i - 1) entries). Ordering guarantee: routes are fixed, so
//   items between one pair of ranks follow one path; nothing more is promised.
#include <cstdint>
#include <vector>

#include "spikex/route/process_grid.hpp"

namespace spikex {

struct route_hop {
    int rank = -1;    // next rank on the way (the destination itself on the last hop)
    int channel = -1; // -1: the item has arrived
};

// The routing rule: the next hop of an item at `from` travelling to `to`.
route_hop next_hop(const process_grid& grid, int from, int to);

class route_table {
public:
    static constexpr std::uint16_t local = 0xffff;

    route_table() = default;
    route_table(const process_grid& grid, int me); // user_error if > 65534 partners

    int my_rank() const { return my_rank_; }
    // Router index of the next hop towards `destination`, or `local`.
    std::uint16_t router_of(int destination) const { return next_[destination]; }

    std::size_t routers() const { return partner_rank_.size(); }
    int router_rank(std::size_t router) const { return partner_rank_[router]; }
    int router_channel(std::size_t router) const { return partner_channel_[router]; }

    std::size_t bytes() const {
        return next_.capacity() * sizeof(std::uint16_t) + partner_rank_.capacity() * sizeof(int) +
               partner_channel_.capacity() * sizeof(int);
    }

private:
    int my_rank_ = 0;
    std::vector<std::uint16_t> next_;
    std::vector<int> partner_rank_, partner_channel_;
};

} // namespace spikex
