#include "spikex/connections/sender_numbering.hpp"

#include <algorithm>

namespace spikex {

sender_numbering::sender_numbering(const distribution& cells, const connection_table& table) {
    const auto locations = static_cast<std::uint32_t>(table.location_count());
    // Counting sort of the locations by the rank of their source, ascending within.
    std::vector<std::uint32_t> owner(locations), local(locations);
    first_.assign(cells.ranks() + 1, 0);
    for (std::uint32_t l = 0; l < locations; ++l) {
        const gid_type source = table.location_source(l);
        owner[l] = static_cast<std::uint32_t>(cells.rank_of(source));
        local[l] = cells.local_of(source);
        ++first_[owner[l] + 1];
    }
    for (int r = 0; r < cells.ranks(); ++r) first_[r + 1] += first_[r];
    location_.resize(locations);
    std::vector<std::uint32_t> fill(first_.begin(), first_.end() - 1);
    for (std::uint32_t l = 0; l < locations; ++l) location_[fill[owner[l]]++] = l;
    // Within a sender: by the source's local index there, then by location. Already so in
    // the sorted layout for distributions whose local order follows the gids (round robin,
    // consecutive); a random shuffle or creation order needs the sort.
    auto by_local = [&](std::uint32_t a, std::uint32_t b) { return local[a] < local[b]; };
    for (int r = 0; r < cells.ranks(); ++r) {
        const auto begin = location_.begin() + first_[r], end = location_.begin() + first_[r + 1];
        if (!std::is_sorted(begin, end, by_local)) std::stable_sort(begin, end, by_local);
    }
}

} // namespace spikex
