#pragma once
// thread_pace: which way a rank with several threads runs its next stretch of steps, the
// thread team or the calling thread alone running every part in turn (the same spikes
// either way), from each way's seconds per unit of work (moving averages, per stretch):
// the faster, so that a second thread never slows a run (tiny rounds, or a worker that
// claims a part and then loses its core to another job, make the team wait). A unit is a
// cell's step or an event delivered: a network's bursts change the work of a stretch a
// hundredfold, so seconds per step would compare the two ways on different work.
#include <cstdint>

namespace spikex {

class thread_pace {
public:
    // Whether the next stretch runs alone (call once per stretch, then record it).
    bool alone_next();
    // The stretch just run, alone or by the team, at this many seconds per unit of work.
    void record(bool alone, double seconds_per_unit);
    // Each way's estimate, seconds per unit (0 before its first sample).
    double estimate(bool alone) const { return per_unit_[alone ? 1 : 0]; }

private:
    static constexpr std::uint64_t first_samples = 4;
    double per_unit_[2] = {0.0, 0.0};
    double opening_[2][first_samples] = {}; // each way's first samples, ascending
    std::uint64_t samples_[2] = {0, 0};
    std::uint64_t calls_ = 0, next_try_ = 64, try_gap_ = 64;
    bool after_alone_ = true, measure_team_next_ = false;
};

} // namespace spikex
