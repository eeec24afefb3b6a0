#pragma once
// Eight inputs to eight different interval_fire cells at once, in AVX-512 registers (only
// where ode::wide_vectors(): the CPU has AVX-512 and ode::exp equals std::exp here).
//
// An input costs an exp (the state at the input's time) and a log (the next self-event),
// each a long chain of dependent operations when computed one input at a time: the Hines
// benchmark's delivery was 22 ns an input, at the cost of that arithmetic alone. Here:
//  * the state after the input: interval_fire::state_at's IEEE operations per lane, with
//    ode::exp (std::exp's bits), so the same m;
//  * the next self-event's step: only the step is kept, never the firing time, so the step
//    comes from approximate logarithms (within approximate_log_error of ln) and a bracket:
//    the exact formula's x = (t + tau ln((minf - m)/(minf - 1)))/dt - 1e-9 lies within
//    `margin` of the approximate x (the logs' errors times tau/dt, plus a few roundings of
//    the magnitudes involved, and std::log's own ulp, all with room to spare). Every
//    operation of the exact formula is monotonic, so where ceil() agrees at x - margin and
//    x + margin, that is its step. Elsewhere (a firing time within about 1e-9 steps of a
//    step boundary, or minf - 1 too small for the direct formula) the lane says NaN and
//    the caller computes the step with std::log, as before.
#include <cstddef>
#include <cstdint>

namespace spikex::interval_fire {

inline constexpr std::size_t input_lanes = 8;
inline constexpr std::size_t max_cells_for_lanes = std::size_t{1} << 29;

// What an input reads and writes of a cell, together: the inputs land on random cells, and
// one line holds all of it (separate arrays cost a cache miss each).
struct alignas(32) cell_state {
    double m = 0.0;    // the state at t0
    double t0 = 0.0;   // the time of its last update
    double minf = 0.0; // the state m tends to: 1 / (1 - exp(-invl/tau))
    double tau = 0.0;  // the time constant
};

// For l < 8, cell[l] all different: m_after[l] = state_at(t, m, t0, minf, tau) + w[l] of
// cells[cell[l]] (cell[l] < 2^29: indices are scaled in 32 bits); step[l] = event_step(t + time_to_fire(m_after[l],
// ...), now, dt) where the bracket decides it and m_after[l] <= 1, else NaN.
void inputs_wide(const cell_state* cells, const std::uint32_t* cell, const double* w, double t, std::int64_t now,
                 double dt, double* m_after, double* step);

// ln(x[l]) within approximate_log_error for positive normal finite x[l] (for the tests).
inline constexpr double approximate_log_error = 1e-12;
void approximate_log_wide(const double* x, double* ln);

} // namespace spikex::interval_fire
