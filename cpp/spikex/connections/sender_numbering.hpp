#pragma once
// A receiving rank's target locations (source runs in the sorted layout, connections in
// creation order) numbered per sending rank: the locations whose source lives on rank s,
// ordered by their source's local index on s and then by location, are s's indices 0, 1,
// ... count(s) - 1.
//
// Why: a target-addressed spike block from s to this rank (alltoall, alltoallv) names each
// entry by its index among s's locations here, not by the location itself. The block's
// item space is then count(s), at most the sending rank's cells (sorted layout) whatever
// the rank count, instead of every location of the receiver, which grows towards N as
// ranks are added: fewer bits per entry on the wire (docs/methods/wire_format.md). The
// presynaptic target entries carry the index (target_table.hpp), and the receiver maps it
// back through this table: 4 bytes per location and per rank.
//
// Why in the sender's local order: s appends a block's entries as its cells fire, step by
// step and in local order, each cell's entries for this rank in index order (the target
// table keeps the order in which this rank listed them). So the entries arrive at the
// encoder ascending and it need not sort them (spike_codec; `encoder_sorts` counts the
// blocks it did sort), whatever the distribution and the layout.
#include <cstdint>
#include <vector>

#include "spikex/connections/connection_table.hpp"
#include "spikex/network/distribution.hpp"

namespace spikex {

class sender_numbering {
public:
    sender_numbering() = default;
    sender_numbering(const distribution& cells, const connection_table& table);

    int ranks() const { return first_.empty() ? 0 : static_cast<int>(first_.size()) - 1; }
    // Locations whose source lives on `sender`.
    std::uint32_t count(int sender) const { return first_[sender + 1] - first_[sender]; }
    // The location of sender's index `index` (< count(sender)).
    std::uint32_t location(int sender, std::uint32_t index) const { return location_[first_[sender] + index]; }
    std::size_t bytes() const {
        return first_.capacity() * sizeof(std::uint32_t) + location_.capacity() * sizeof(std::uint32_t);
    }

private:
    std::vector<std::uint32_t> first_;    // per sending rank + 1
    std::vector<std::uint32_t> location_; // locations grouped by sending rank, ascending within
};

} // namespace spikex
