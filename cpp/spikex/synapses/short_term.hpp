#pragma once
// What the short-term plasticity rules (tsodyks_synapse.hpp, tsodyks2_synapse.hpp) keep:
// the resources x (recovered), y (active, tsodyks_synapse only) and the release probability
// u. These depend only on the presynaptic spike times and the synapse type's parameters,
// so every synapse of one source, delay and type shares one state (per delay group, as the
// STDP rules' presynaptic trace; NEST keeps a copy per synapse, all equal). A spike scales
// the weight it is delivered with by the rule's factor; the stored weight never changes.
// quantal_stp_synapse keeps its release probability u here too, and in x the probability
// that a depleted site has recovered by the group's latest spike (quantal_stp_synapse.hpp).
#include <cmath>

#include "spikex/core/types.hpp"

namespace spikex {

// Spike times in ms as NEST takes them for these rules: the stamp in tics of 1 µs (NEST's
// default unit of time) times 0.001 ms, so that an interval, a difference of two such
// times, has NEST's bits and the factors are NEST's to the last bit (a difference of whole
// steps times dt rounds differently for about half the spikes). A step that is not a whole
// number of µs (which NEST refuses) takes the time as stamp x dt.
class spike_clock {
public:
    spike_clock() = default;
    explicit spike_clock(double dt_ms): dt_ms_(dt_ms) {
        const double tics = std::round(dt_ms * 1000.0);
        if (tics >= 1.0 && std::abs(tics - dt_ms * 1000.0) <= 1e-9 * tics) tics_per_step_ = step_type(tics);
    }
    double ms(step_type stamp) const {
        return tics_per_step_ > 0 ? ms_per_tic * double(stamp * tics_per_step_) : double(stamp) * dt_ms_;
    }
    // The time from stamp `from` to stamp `to`.
    double interval(step_type from, step_type to) const { return ms(to) - ms(from); }

private:
    static constexpr double ms_per_tic = 1.0 / 1000.0;
    double dt_ms_ = 0.1;
    step_type tics_per_step_ = 0; // 0: dt is not a whole number of tics
};

struct short_term_state {
    double x = 0.0, y = 0.0, u = 0.0;
    // Stamp (steps) of the previous spike; tsodyks2_synapse: -1 before the first.
    step_type last_stamp = 0;
    // The weight factor of the group's latest spike (what the step's deliveries read; set
    // again at every arrival, so a checkpoint need not keep it).
    double factor = 0.0;
};

} // namespace spikex
