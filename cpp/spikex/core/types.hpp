#pragma once
// Basic index types shared by every layer.
#include <cstdint>

namespace spikex {

using gid_type = std::uint32_t;      // global cell id, 0..N-1 in creation order
using step_type = std::int64_t;      // time-step index: t = step * dt
using local_index = std::uint32_t;   // index of a cell among the cells of this rank
using narrow_target = std::uint16_t; // a local_index kept in 2 bytes (connection_table.hpp)

// One spike as the engine and the exchanges see it.
struct spike {
    gid_type gid;
    step_type step;
};

} // namespace spikex
