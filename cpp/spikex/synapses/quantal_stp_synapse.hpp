#pragma once
// quantal_stp_synapse: NEST's probabilistic synapse with short-term depression and
// facilitation in the quantal release model of Fuhrmann et al. (2002) and Loebel et al.
// (2009). A connection has n release sites, a of them available. At a presynaptic spike,
// h after the previous one (nothing moves at the first: NEST's t_lastspike starts at -1):
//     u = U + u (1 - U) exp(-h / tau_fac)        (exp(...) = 0 when tau_fac < 1e-10 ms)
//     each of the n - a depleted sites recovers with probability 1 - exp(-h / tau_rec)
// then each of the a available sites releases with probability u; the spike is delivered
// with weight x (number released), the released sites are depleted, and a spike that
// releases nothing is not delivered at all.
//
// u depends only on the spike times and the parameters: it lives once per delay group
// (short_term_state, with the spike's recovery probability in x), moved once per arriving
// spike before the deliveries (quantal_stp_arrive). The available sites a are the
// connection's own (quantal_stp_release, on the thread that owns the target). The draws
// are keyed, not taken from a generator (core/random.hpp, connection_uniform): the k-th
// depleted site's recovery by (purpose::site_recovery, k) and the k-th available site's
// release by (purpose::quantal_release, k), each with the target gid, the connection's
// index among its target's inputs and the spike's emission step.
//
// stochastic_stp_synapse (PyNN's NEST extension of that name, after the Blue Brain
// Project's ProbGABAAB_EMS.mod; PyNN's StochasticTsodyksMarkramSynapse) is the same model
// with one site, available at first (its R = 1), and u moved at every spike, the first one
// from t = 0 (its t_lastspike starts at 0): u = u e + U (1 - u e), e = exp(-h / tau_fac)
// (u = U when tau_fac <= 1e-10 ms); an unrecovered site recovers with probability
// 1 - exp(-h / tau_rec) over the time since the previous spike, as here.
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "spikex/core/random.hpp"
#include "spikex/models/model_parameters.hpp"
#include "spikex/synapses/short_term.hpp"

namespace spikex {

struct quantal_stp_parameters { // defaults: the parameter table (NEST's)
    double U;                   // increase of u at a spike
    double u;                   // initial release probability
    double tau_rec;             // ms, recovery of a depleted site
    double tau_fac;             // ms, decay of u (0: no facilitation)
    double n;                   // release sites (a whole number)
    double a;                   // initially available sites (a whole number <= n)
};
const std::vector<model_parameters::field<quantal_stp_parameters>>& quantal_stp_fields();

// user_error naming the parameter for unknown names, values out of range and a > n.
quantal_stp_parameters parse_quantal_stp_parameters(const std::map<std::string, double>& params);

// stochastic_stp_synapse's parameters (U, u, tau_rec, tau_fac; n = a = 1).
const std::vector<model_parameters::field<quantal_stp_parameters>>& stochastic_stp_fields();
quantal_stp_parameters parse_stochastic_stp_parameters(const std::map<std::string, double>& params);

struct quantal_stp_rule {
    quantal_stp_rule() = default;
    quantal_stp_rule(const quantal_stp_parameters& p, double dt, bool every_spike = false):
        parameters(p), clock(dt), sites(std::uint32_t(p.n)), available(std::uint32_t(p.a)), every_spike(every_spike) {}
    quantal_stp_parameters parameters{};
    spike_clock clock;
    std::uint32_t sites = 1, available = 1; // n, and the initial a of every connection
    bool every_spike = false;               // stochastic_stp_synapse: u moves at the first spike too, from t = 0
    // x: the recovery probability of the group's latest spike (0 before the first).
    short_term_state initial() const { return {0.0, 0.0, parameters.u, every_spike ? 0 : -1, 0.0}; }
};

// The group's part of a spike with `stamp` (steps, later than the state's last one): u
// moves to it and x becomes the probability that a depleted site has recovered since the
// previous spike (0 at the first spike, which draws no recoveries, as NEST).
inline void quantal_stp_arrive(short_term_state& s, step_type stamp, const quantal_stp_rule& rule) {
    const quantal_stp_parameters& p = rule.parameters;
    if (s.last_stamp >= 0) {
        const double h = rule.clock.interval(s.last_stamp, stamp);
        const double decay_sites = std::exp(-h / p.tau_rec);
        if (rule.every_spike) { // stochastic_stp_synapse's operations, in its order
            if (p.tau_fac > 1.0e-10) {
                s.u *= std::exp(-h / p.tau_fac);
                s.u += p.U * (1.0 - s.u);
            } else {
                s.u = p.U;
            }
        } else {
            const double decay_u = p.tau_fac < 1.0e-10 ? 0.0 : std::exp(-h / p.tau_fac);
            s.u = p.U + s.u * (1.0 - p.U) * decay_u;
        }
        s.x = 1.0 - decay_sites;
    } else {
        s.x = 0.0;
    }
    s.last_stamp = stamp;
}

// The connection's part: its depleted sites recover, its available ones release; returns
// the number released (the spike's weight is that many times the connection's), taken
// from `available`. `s` is the group's state after quantal_stp_arrive; the draws are those
// of connection `connection` of `target` for the spike emitted at `step`.
inline std::uint32_t quantal_stp_release(std::uint32_t& available, const short_term_state& s,
                                         const quantal_stp_rule& rule, std::uint32_t seed, gid_type target,
                                         std::uint32_t connection, step_type step) {
    if (s.x > 0.0) {
        const std::uint32_t depleted = rule.sites - available;
        for (std::uint32_t k = 0; k < depleted; ++k) {
            if (connection_uniform(seed, target, purpose::site_recovery, connection, step, k) < s.x) ++available;
        }
    }
    std::uint32_t released = 0;
    for (std::uint32_t k = 0; k < available; ++k) {
        if (connection_uniform(seed, target, purpose::quantal_release, connection, step, k) < s.u) ++released;
    }
    available -= released;
    return released;
}

} // namespace spikex
