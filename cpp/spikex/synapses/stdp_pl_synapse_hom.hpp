#pragma once
// stdp_pl_synapse_hom: power-law spike-timing-dependent plasticity of Morrison, Aertsen &
// Diesmann 2007, as NEST's synapse of that name (parameters shared by all its synapses),
// with the whole delay dendritic (spec/hpc_benchmark.md).
//
// For a presynaptic spike with stamp t over delay d, with t_last the stamp of the
// synapse's previous spike (0 at first) and K+ its presynaptic trace (stdp_history.hpp):
//   1. every postsynaptic spike t_j in (t_last - d, t - d] facilitates:
//        w += lambda * w^mu * K+ * exp((t_last - (t_j + d)) / tau_plus)
//   2. depression by K- of the last postsynaptic spike strictly before t - d, decayed:
//        w -= lambda * alpha * w * K-(t - d), clipped at 0
//   3. the spike is delivered with the new w
//   4. K+ = K+ * exp((t_last - t) / tau_plus) + 1; t_last = t
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "spikex/models/model_parameters.hpp"
#include "spikex/synapses/repeated_power.hpp"
#include "spikex/synapses/stdp_history.hpp"

namespace spikex {

struct stdp_pl_parameters {
    double alpha;    // depression / facilitation ratio
    double lambda;   // learning rate
    double mu;       // power-law exponent of facilitation
    double tau_plus; // ms, presynaptic trace
};
const std::vector<model_parameters::field<stdp_pl_parameters>>& stdp_pl_fields();

// user_error naming the parameter for unknown names or values out of range.
stdp_pl_parameters parse_stdp_pl_parameters(const std::map<std::string, double>& params);

// The rule at one resolution: its parameters and the facilitation decay exp(-k*dt/tau_plus).
struct stdp_pl_rule {
    stdp_pl_rule() = default;
    stdp_pl_rule(const stdp_pl_parameters& p, double dt): parameters(p), dt_ms(dt), plus_decay(dt, p.tau_plus, 2048) {}
    stdp_pl_parameters parameters;
    double dt_ms = 0.1;
    step_decay plus_decay; // 2,048 steps: a presynaptic interval of 205 ms at dt = 0.1 ms
    double tau_plus() const { return parameters.tau_plus; }
};

// Step 1 for one synapse whose target fired after t_last - d (post.spiked_after); the engine
// facilitates a spike's synapses before it depresses them. power: w^mu of this rule's mu,
// shared by the synapses of one spike.
inline double stdp_pl_facilitate(double w, const stdp_pre_state& pre, step_type stamp, step_type delay,
                                 post_history& post, const stdp_pl_rule& rule, repeated_power& power) {
    const stdp_pl_parameters& p = rule.parameters;
    post.read_window(pre.last_stamp - delay, stamp - delay, [&](step_type t_j) {
        // exp((t_last - (t_j + d)) * dt / tau_plus), t_j + d > t_last
        const double decay = rule.plus_decay(t_j + delay - pre.last_stamp);
        w += p.lambda * power(w) * pre.k_plus * decay;
    });
    return w;
}
// Step 2 for the synapses of one spike, t = stamp - d. Its constants are copies: read through
// the rule, they were loaded again after every weight stored (doubles that might be one).
struct stdp_pl_depression {
    stdp_pl_depression(const stdp_pl_rule& rule, step_type t):
        rate(rule.parameters.lambda * rule.parameters.alpha), dt_ms(rule.dt_ms), t(t) {}
    double operator()(double w, post_history& post, double tau_minus) const {
        w -= rate * w * post.k_minus_before(t, dt_ms, tau_minus); // NEST's order: lambda * alpha * w * K-
        return w > 0.0 ? w : 0.0;
    }
    double rate, dt_ms;
    step_type t;
};
// Steps 1 and 2: the weight to deliver a spike with `stamp` over `delay`.
inline double stdp_pl_weight(double w, const stdp_pre_state& pre, step_type stamp, step_type delay, post_history& post,
                             const stdp_pl_rule& rule, double tau_minus, repeated_power& power) {
    const double facilitated = stdp_pl_facilitate(w, pre, stamp, delay, post, rule, power);
    return stdp_pl_depression(rule, stamp - delay)(facilitated, post, tau_minus);
}
inline double stdp_pl_weight(double w, const stdp_pre_state& pre, step_type stamp, step_type delay, post_history& post,
                             const stdp_pl_rule& rule, double tau_minus) {
    repeated_power power(rule.parameters.mu);
    return stdp_pl_weight(w, pre, stamp, delay, post, rule, tau_minus, power);
}

// Step 4, once per presynaptic spike of the group.
inline void stdp_pl_advance(stdp_pre_state& pre, step_type stamp, const stdp_pl_rule& rule) {
    stdp_pre_advance(pre, stamp, rule.dt_ms, rule.parameters.tau_plus);
}

} // namespace spikex
