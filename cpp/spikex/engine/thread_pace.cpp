#include "spikex/engine/thread_pace.hpp"

#include <algorithm>

namespace spikex {

bool thread_pace::alone_next() {
    ++calls_;
    if (measure_team_next_) return false; // the team woke in the last stretch: measure it awake
    // Both ways in turn for the first 9 stretches (three measured samples each: the team's
    // first stretch after one alone is not a sample), then the faster one, and the slower
    // one again now and then, so that a change of load (another job on the cores) is seen:
    // after 64 stretches, then twice as long after each try that found it still slower
    // (a try can cost a scheduler time slice on a busy host), up to 4,096.
    if (calls_ <= 9) return calls_ % 3 == 0;
    const bool alone_faster = per_unit_[1] < per_unit_[0];
    if (calls_ < next_try_) return alone_faster;
    next_try_ = calls_ + try_gap_;
    try_gap_ = std::min<std::uint64_t>(2 * try_gap_, 4096);
    return !alone_faster;
}

void thread_pace::record(bool alone, double seconds_per_unit) {
    // The team's first stretch after some run alone includes waking its threads (a futex
    // wake-up once they slept; meanwhile the caller runs the parts): not its pace. The
    // next stretch, the team's too, is measured instead.
    const bool woke = !alone && after_alone_;
    after_alone_ = alone;
    measure_team_next_ = woke;
    if (woke) return;
    const int k = alone ? 1 : 0;
    const std::uint64_t n = ++samples_[k];
    double& estimate = per_unit_[k];
    // A stretch can take a thousand times its pace once (the host's scheduler placed the
    // worker on the caller's core, or the virtual CPU was halted): one such sample must
    // not make the team look slow for thousands of stretches. The first samples give
    // their median (both ways alike: the least of a few would favour the way sampled
    // less); later ones count at most twice the estimate, so a real change of pace
    // (another job took a core) still moves it within a few stretches.
    if (n <= first_samples) {
        double* first = opening_[k];
        first[n - 1] = seconds_per_unit;
        std::sort(first, first + n);
        estimate = n % 2 == 1 ? first[n / 2] : 0.5 * (first[n / 2 - 1] + first[n / 2]);
        return;
    }
    seconds_per_unit = std::min(seconds_per_unit, 2.0 * estimate);
    // A moving average; a try of the slower way counts for half, and when it turns out
    // faster now, the tries start again at short gaps.
    const bool slower_way = (per_unit_[1] < per_unit_[0]) != alone;
    estimate += (seconds_per_unit - estimate) * (slower_way ? 0.5 : 0.125);
    if (slower_way && (per_unit_[1] < per_unit_[0]) == alone) try_gap_ = 64;
}

} // namespace spikex
