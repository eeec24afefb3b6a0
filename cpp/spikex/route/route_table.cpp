#include "spikex/route/route_table.hpp"

#include <algorithm>
#include <map>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"

namespace spikex {

namespace {

// The normal dimension-ordered hop: replace the lowest differing coordinate.
route_hop ordered_hop(const process_grid& grid, std::vector<int> at, const std::vector<int>& to) {
    const int offset = grid.ragged() ? 1 : 0;
    for (int i = 0; i < grid.dimensions(); ++i) {
        if (at[i] != to[i]) {
            at[i] = to[i];
            return {grid.rank_at(at), i + offset};
        }
    }
    return {};
}

// Whether every position of the normal path from `at` to `to` (both in the last plane)
// exists.
bool in_plane_path_exists(const process_grid& grid, std::vector<int> at, const std::vector<int>& to) {
    for (int i = 0; i + 1 < grid.dimensions(); ++i) {
        if (at[i] == to[i]) continue;
        at[i] = to[i];
        if (grid.rank_at(at) < 0) return false;
    }
    return true;
}

} // namespace

route_hop next_hop(const process_grid& grid, int from, int to) {
    if (from == to) return {to, -1};
    std::vector<int> at = grid.coords(from), dest = grid.coords(to);
    const int last = grid.dimensions() - 1;
    if (grid.ragged() && at[last] == grid.last_plane()) {
        if (dest[last] != at[last]) {
            at[last] = dest[last]; // descend into the destination's (full) plane
            return {grid.rank_at(at), 0};
        }
        if (!in_plane_path_exists(grid, at, dest)) {
            at[last] = grid.last_plane() - 1; // detour through the full plane below
            return {grid.rank_at(at), 0};
        }
    }
    route_hop hop = ordered_hop(grid, at, dest);
    if (hop.rank < 0) {
        throw internal_error(
            spikex::format("route: no next hop from rank {} to rank {} on grid {}", from, to, grid.text()));
    }
    return hop;
}

route_table::route_table(const process_grid& grid, int me): my_rank_(me), next_(grid.ranks(), local) {
    // Partners ordered by (channel, rank): the router index is a position in that order.
    std::map<std::pair<int, int>, int> partners; // (channel, rank) -> router index
    std::vector<route_hop> hops(grid.ranks());
    for (int t = 0; t < grid.ranks(); ++t) {
        hops[t] = next_hop(grid, me, t);
        if (hops[t].channel >= 0) partners[{hops[t].channel, hops[t].rank}] = 0;
    }
    if (partners.size() >= local) {
        throw user_error(
            spikex::format("grid {} gives rank {} {} routers; at most 65534 are supported: use more dimensions",
                           grid.text(), me, partners.size()));
    }
    std::map<int, int> channel_of_rank;
    for (auto& [key, index]: partners) {
        auto [channel, rank] = key;
        if (!channel_of_rank.emplace(rank, channel).second) {
            throw internal_error(spikex::format("route: rank {} is reached on two channels", rank));
        }
        index = static_cast<int>(partner_rank_.size());
        partner_rank_.push_back(rank);
        partner_channel_.push_back(channel);
    }
    for (int t = 0; t < grid.ranks(); ++t) {
        if (hops[t].channel >= 0) next_[t] = static_cast<std::uint16_t>(partners.at({hops[t].channel, hops[t].rank}));
    }
}

} // namespace spikex
