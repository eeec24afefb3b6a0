#pragma once
// tsodyks2_synapse: short-term depression (Tsodyks & Markram 1997) and facilitation
// (Fuhrmann et al. 2002) in the form of Maass & Markram (2002), as NEST's synapse of that
// name: the weight of a spike is scaled by u x, the release probability times the
// available resources.
//
// At a presynaptic spike, h after the previous one (nothing moves at the first spike: NEST's
// t_lastspike starts at -1, "none"):
//     x = 1 + (x - x u - 1) exp(-h / tau_rec)         (the previous release, then recovery)
//     u = U + u (1 - U) exp(-h / tau_fac)             (exp(...) = 0 when tau_fac = 0)
// then the spike is delivered with weight * u * x. The initial u is a parameter of its own
// (NEST's default 0.5, equal to U's default; NEST does not make it follow U).
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "spikex/models/model_parameters.hpp"
#include "spikex/synapses/short_term.hpp"

namespace spikex {

struct tsodyks2_parameters { // defaults: the parameter table (NEST's)
    double U;                // increase of u at a spike
    double u;                // initial release probability
    double x;                // initial resources
    double tau_rec;          // ms, recovery of x
    double tau_fac;          // ms, decay of u (0: no facilitation)
};
const std::vector<model_parameters::field<tsodyks2_parameters>>& tsodyks2_fields();

// user_error naming the parameter for unknown names or values out of range.
tsodyks2_parameters parse_tsodyks2_parameters(const std::map<std::string, double>& params);

struct tsodyks2_rule {
    tsodyks2_rule() = default;
    tsodyks2_rule(const tsodyks2_parameters& p, double dt): parameters(p), clock(dt) {}
    tsodyks2_parameters parameters{};
    spike_clock clock;
    short_term_state initial() const { return {parameters.x, 0.0, parameters.u, -1, 0.0}; }
};

// One presynaptic spike with `stamp` (steps, later than the state's last one): moves the
// state to it and returns u x, the factor of the spike's weight (NEST's order of operations
// and NEST's intervals, spike_clock: NEST's bits).
inline double tsodyks2_spike(short_term_state& s, step_type stamp, const tsodyks2_rule& rule) {
    const tsodyks2_parameters& p = rule.parameters;
    if (s.last_stamp >= 0) {
        const double h = rule.clock.interval(s.last_stamp, stamp);
        const double decay_x = std::exp(-h / p.tau_rec);
        const double decay_u = p.tau_fac == 0.0 ? 0.0 : std::exp(-h / p.tau_fac);
        s.x = 1.0 + (s.x - s.x * s.u - 1.0) * decay_x;
        s.u = p.U + s.u * (1.0 - p.U) * decay_u;
    }
    s.last_stamp = stamp;
    s.factor = s.x * s.u;
    return s.factor;
}

} // namespace spikex
