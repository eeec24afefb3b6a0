#pragma once
// "Does this rank need spikes of source gid g, and where are its connections?" — the
// per-spike question of source-addressed exchanges (Allgather receives every spike of the
// network). Three answers, selectable by exchange.source_lookup, measured in
// bench/source_lookup (docs/methods/allgather.md has the numbers and the reason for the
// default):
//  dense:  a table of N entries indexed by gid (one load; memory O(N)).
//  hash:   open addressing, linear probing, power-of-two capacity >= 2 * sources
//          (memory O(local sources)).
//  sorted: binary search in a copy of the sorted source list (memory O(local sources);
//          O(log S) loads).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "spikex/core/types.hpp"

namespace spikex {

inline constexpr std::uint32_t no_run = 0xffffffffu;

class source_lookup {
public:
    virtual ~source_lookup() = default;
    // Source run of `gid` (its index in the connection table's source list), or no_run.
    virtual std::uint32_t find(gid_type gid) const = 0;
    virtual std::size_t bytes() const = 0;
    virtual std::string name() const = 0;
};

// `sources` ascending and distinct; `cells` = N. Unknown kind -> user_error.
std::unique_ptr<source_lookup> make_source_lookup(const std::string& kind, const std::vector<gid_type>& sources,
                                                  std::uint32_t cells);

} // namespace spikex
