#pragma once
// tsodyks_synapse: short-term depression and facilitation of Tsodyks, Uziel & Markram
// (2000), eqs. (3) and (4) solved exactly between spikes, as NEST's synapse of that name.
//
// State: x (recovered resources), y (active: transmitter in the cleft), z = 1 - x - y
// (inactive), u (release probability). Between spikes
//     dx/dt = z / tau_rec,   dy/dt = -y / tau_psc,   du/dt = -u / tau_fac (u = 0 when tau_fac = 0),
// and at a presynaptic spike, after propagating over the time h since the previous one
// (NEST's t_lastspike starts at 0: the first spike propagates the initial state from t = 0,
// which changes nothing for the defaults x = 1, y = u = 0):
//     u += U (1 - u);   release = u x;   x -= release;   y += release,
// and the spike is delivered with weight * release. tau_psc is meant to equal the target's
// synaptic time constant (y is its current); NEST does not check that, nor does spikex.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "spikex/models/model_parameters.hpp"
#include "spikex/synapses/short_term.hpp"

namespace spikex {

struct tsodyks_parameters { // defaults: the parameter table (NEST's)
    double U;               // increase of u at a spike
    double tau_psc;         // ms, decay of y
    double tau_fac;         // ms, decay of u (0: no facilitation)
    double tau_rec;         // ms, recovery of x
    double x, y, u;         // initial state
};
const std::vector<model_parameters::field<tsodyks_parameters>>& tsodyks_fields();

// user_error naming the parameter for unknown names, values out of range, x + y > 1 and
// tau_psc = tau_rec (where the propagator divides by zero).
tsodyks_parameters parse_tsodyks_parameters(const std::map<std::string, double>& params);

struct tsodyks_rule {
    tsodyks_rule() = default;
    tsodyks_rule(const tsodyks_parameters& p, double dt): parameters(p), clock(dt) {}
    tsodyks_parameters parameters{};
    spike_clock clock;
    short_term_state initial() const { return {parameters.x, parameters.y, parameters.u, 0, 0.0}; }
};

// One presynaptic spike with `stamp` (steps, later than the state's last one): moves the
// state to it and returns the release u x, the factor of the spike's weight. The operations
// are in NEST's order and the intervals NEST's (spike_clock): the factors are NEST's bits.
inline double tsodyks_spike(short_term_state& s, step_type stamp, const tsodyks_rule& rule) {
    const tsodyks_parameters& p = rule.parameters;
    const double h = rule.clock.interval(s.last_stamp, stamp);
    const double decay_u = p.tau_fac == 0.0 ? 0.0 : std::exp(-h / p.tau_fac);
    const double decay_y = std::exp(-h / p.tau_psc);
    // exp(-h/tau_rec) - 1, accurate for h << tau_rec: minus the part of z that recovers.
    const double z_recovered = std::expm1(-h / p.tau_rec);
    // What y, decaying into z, adds to x through z's recovery over h (per unit of y).
    const double y_to_x = (z_recovered * p.tau_rec - (decay_y - 1.0) * p.tau_psc) / (p.tau_psc - p.tau_rec);
    const double z = 1.0 - s.x - s.y;
    s.u *= decay_u;
    s.x += y_to_x * s.y - z_recovered * z;
    s.y *= decay_y;
    s.u += p.U * (1.0 - s.u);
    const double release = s.u * s.x;
    s.x -= release;
    s.y += release;
    s.last_stamp = stamp;
    s.factor = release;
    return release;
}

} // namespace spikex
