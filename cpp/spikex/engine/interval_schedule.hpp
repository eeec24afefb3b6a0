#pragma once
// The interval rule, in one place: where the exchange synchronises and what must have
// arrived by then. Used by the engine's loop (engine::run_until), the point-to-point
// exchanges' sub-interval numbering (exchange/point_to_point.hpp) and the dry run's
// synchronisation rows (dryrun/exchange_counts.cpp), so the arithmetic exists once.
//
// M = steps per interval (min delay / dt). Interval j = [jM, (j+1)M) is cut into k
// sub-intervals, k = 1 or 2 (2 needs M >= 2): with k = 2, A = [jM, jM + floor(M/2)) and
// B = the rest. Sub-intervals are numbered globally:
//     sub(n) = k floor(n / M) + (k == 2 && n mod M >= floor(M/2)).
// A boundary is the end of a sub-interval. At boundary b the spikes emitted before
// due(b) must have been delivered: due(b) = b with k = 1; with k = 2, the start of the
// sub-interval that just ended (its own spikes may still be in flight, they have until
// the next boundary). A run that ends between boundaries synchronises once more with
// due = its last step (engine::run_until).
#include <cstdint>
#include <string>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/core/types.hpp"

namespace spikex {

class interval_schedule {
public:
    interval_schedule() = default;

    // Throws user_error unless k is 1 or 2 and (k == 2) => M >= 2: the one check of the rule.
    interval_schedule(step_type steps_per_interval, int subintervals):
        steps_(steps_per_interval),
        subintervals_(subintervals),
        first_steps_(subintervals == 2 ? steps_per_interval / 2 : steps_per_interval) {
        std::string problem = check(steps_per_interval, subintervals);
        if (!problem.empty()) throw user_error(problem);
    }

    // The rule's message ("" when the pair is valid); python/spikex/config.py words its
    // pre-launch check the same way.
    static std::string check(step_type steps_per_interval, int subintervals) {
        if (subintervals != 1 && subintervals != 2) {
            return spikex::format("exchange.subintervals = {}: must be 1 or 2", subintervals);
        }
        if (subintervals == 2 && steps_per_interval < 2) {
            return spikex::format("exchange.subintervals = 2: needs at least 2 steps per interval (min delay / dt), "
                                  "this run has {}; use 1",
                                  steps_per_interval);
        }
        if (steps_per_interval < 1) {
            return spikex::format("steps per interval = {}: must be >= 1", steps_per_interval);
        }
        return {};
    }

    step_type steps_per_interval() const { return steps_; }
    int subintervals() const { return subintervals_; }
    // Steps of the first sub-interval: floor(M/2) with k = 2, M with k = 1.
    step_type first_part() const { return first_steps_; }

    step_type interval_start(step_type n) const { return (n / steps_) * steps_; }

    // The first boundary after step n (n itself excluded).
    step_type next_boundary(step_type n) const {
        const step_type start = interval_start(n);
        if (subintervals_ == 2 && n < start + first_steps_) return start + first_steps_;
        return start + steps_;
    }

    // Spikes emitted before due(b) must have arrived at boundary b.
    step_type due(step_type boundary) const {
        if (subintervals_ == 1) return boundary;
        return boundary % steps_ == 0 ? boundary - (steps_ - first_steps_) : boundary - first_steps_;
    }

    // The global sub-interval of step n.
    std::int64_t sub_of(step_type n) const {
        if (subintervals_ == 1) return n / steps_;
        return 2 * (n / steps_) + ((n % steps_) >= first_steps_ ? 1 : 0);
    }

    // The last sub-interval whose spikes are due at synchronize(.., due, ..); -1: none.
    std::int64_t due_sub(step_type due) const { return due > 0 ? sub_of(due - 1) : -1; }

private:
    step_type steps_ = 1;
    int subintervals_ = 1;
    step_type first_steps_ = 1;
};

} // namespace spikex
