// Delay in ms -> whole steps as NEST's Time::delay_ms_to_steps: ld_round(ms * steps_per_ms),
// i.e. the nearest step, halves rounded up.
#include <cmath>

#include "spikex/network/network_spec.hpp"

namespace spikex {

step_type delay_steps(double delay_ms, double dt_ms) {
    return static_cast<step_type>(std::floor(delay_ms * (1.0 / dt_ms) + 0.5));
}

} // namespace spikex
