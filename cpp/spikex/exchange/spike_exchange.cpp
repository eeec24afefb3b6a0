// What every exchange method shares at a synchronisation: the call check, the barrier
// (exchange.measure_wait) and the timers; the method's own part is exchange_interval().
#include "spikex/exchange/spike_exchange.hpp"

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/instrument/stopwatch.hpp"

namespace spikex {

void spike_exchange::synchronize(step_type step, step_type due, spike_sink& sink) {
    if (due < 0 || due > step || step < last_step_) {
        throw internal_error(
            spikex::format("{}: synchronize(step {}, due {}) after step {}: needs 0 <= due <= step and "
                           "steps that never go back",
                           name(), step, due, last_step_));
    }
    last_step_ = step;
    if (!collective_due(due)) {
        exchange_interval(step, due, sink);
        return;
    }
    {
        scoped_timer t(exchange_s_);
        before_barrier(sink);
    }
    if (measure_wait_) {
        scoped_timer t(wait_s_);
        comm_->barrier();
    } else if (needs_barrier()) {
        scoped_timer t(exchange_s_);
        comm_->barrier();
    }
    scoped_timer t(exchange_s_);
    exchange_interval(step, due, sink);
}

} // namespace spikex
