// Delay in ms -> whole steps as NEST's Time::delay_ms_to_steps: ld_round(ms * steps_per_ms),
// i.e. the nearest step, halves rounded up.
#include <cmath>
#include <limits>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/network/network_spec.hpp"

namespace spikex {

step_type delay_steps(double delay_ms, double dt_ms) {
    return static_cast<step_type>(std::floor(delay_ms * (1.0 / dt_ms) + 0.5));
}

std::uint32_t connection_delay_steps(double delay_ms, double dt_ms) {
    const step_type d = delay_steps(delay_ms, dt_ms);
    if (d < 1) {
        throw user_error(
            spikex::format("delay_ms = {:.6f} is shorter than dt_ms = {:.6f}: every delay must be at least one step",
                           delay_ms, dt_ms));
    }
    if (d > std::numeric_limits<std::uint32_t>::max() / 2) {
        throw user_error(spikex::format("delay_ms = {:.6f} is too long", delay_ms));
    }
    return static_cast<std::uint32_t>(d);
}

} // namespace spikex
