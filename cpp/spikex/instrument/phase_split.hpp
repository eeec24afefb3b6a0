#pragma once
// Where a loop's time goes, split into a few phases: one time stamp per change of phase
// (the time-stamp counter on x86, about 8 ns; else steady_clock, about 20 ns), converted
// to seconds against the wall clock over the whole split. Cheap enough to mark a phase
// every few hundred operations of a loop that runs at the memory system's limit.
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "spikex/instrument/stopwatch.hpp"

namespace spikex {

template <std::size_t Phases>
class phase_split {
public:
    // Starts now, in phase `first`.
    explicit phase_split(std::size_t first):
        current_(first), start_wall_(wall_seconds()), start_(ticks()), last_(start_) {}

    // Charges the time since the last change to the current phase; `phase` runs from now.
    // Returns the phase that ran until now (to go back to it).
    std::size_t enter(std::size_t phase) {
        const std::uint64_t now = ticks();
        spent_[current_] += now > last_ ? now - last_ : 0;
        last_ = now;
        const std::size_t before = current_;
        current_ = phase;
        return before;
    }

    // Seconds spent in each phase until now.
    std::array<double, Phases> seconds() {
        enter(current_);
        const double elapsed = wall_seconds() - start_wall_;
        const std::uint64_t total = last_ > start_ ? last_ - start_ : 0;
        std::array<double, Phases> out{};
        if (total == 0) return out;
        for (std::size_t p = 0; p < Phases; ++p) out[p] = elapsed * double(spent_[p]) / double(total);
        return out;
    }

private:
    static std::uint64_t ticks() {
#if defined(__x86_64__) || defined(__i386__)
        return __rdtsc();
#else
        return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
    }
    std::array<std::uint64_t, Phases> spent_{};
    std::size_t current_;
    double start_wall_;
    std::uint64_t start_, last_;
};

} // namespace spikex
