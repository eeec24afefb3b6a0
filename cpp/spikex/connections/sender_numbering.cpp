#include "spikex/connections/sender_numbering.hpp"

namespace spikex {

sender_numbering::sender_numbering(const distribution& cells, const connection_table& table) {
    const auto locations = static_cast<std::uint32_t>(table.location_count());
    // Counting sort of the locations by the rank of their source, ascending within.
    std::vector<std::uint32_t> owner(locations);
    first_.assign(cells.ranks() + 1, 0);
    for (std::uint32_t l = 0; l < locations; ++l) {
        owner[l] = static_cast<std::uint32_t>(cells.rank_of(table.location_source(l)));
        ++first_[owner[l] + 1];
    }
    for (int r = 0; r < cells.ranks(); ++r) first_[r + 1] += first_[r];
    location_.resize(locations);
    std::vector<std::uint32_t> fill(first_.begin(), first_.end() - 1);
    for (std::uint32_t l = 0; l < locations; ++l) location_[fill[owner[l]]++] = l;
}

} // namespace spikex
