#pragma once
// stdp_synapse: spike-pair STDP with a weight dependence between additive and
// multiplicative (Guetig et al. 2003), as NEST's synapse of that name, with the whole delay
// dendritic. PyNN's STDPMechanism(SpikePairRule, Additive/Multiplicative/Guetig weight
// dependence) is this rule, as in pyNN.nest.
//
// Weights are normalised by Wmax (w~ = w / Wmax, in [0, 1]). For a presynaptic spike with
// stamp t over delay d, t_last and K+ as in stdp_history.hpp:
//   1. every postsynaptic spike t_j in (t_last - d, t - d] facilitates:
//        w~ += lambda * (1 - w~)^mu_plus * K+ * exp((t_last - (t_j + d)) / tau_plus), at most 1
//   2. depression by K- of the last postsynaptic spike strictly before t - d, decayed:
//        w~ -= alpha * lambda * w~^mu_minus * K-(t - d), at least 0
//   3. the spike is delivered with the new w; 4. K+ and t_last advance.
// Parameters are per synapse type (every connection of one connect call shares them).
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "spikex/models/model_parameters.hpp"
#include "spikex/synapses/repeated_power.hpp"
#include "spikex/synapses/stdp_history.hpp"

namespace spikex {

struct stdp_parameters { // defaults: the parameter table (NEST's)
    double tau_plus;     // ms, presynaptic trace
    double lambda;       // learning rate (PyNN's A_plus)
    double alpha;        // depression / facilitation ratio (PyNN's A_minus / A_plus)
    double mu_plus;      // weight dependence of facilitation: 0 additive, 1 multiplicative
    double mu_minus;     // weight dependence of depression
    double Wmax;         // largest weight (pA; its sign is the weights' sign)
};
const std::vector<model_parameters::field<stdp_parameters>>& stdp_fields();

// user_error naming the parameter for unknown names or values out of range.
stdp_parameters parse_stdp_parameters(const std::map<std::string, double>& params);

struct stdp_rule {
    stdp_rule() = default;
    stdp_rule(const stdp_parameters& p, double dt): parameters(p), dt_ms(dt), plus_decay(dt, p.tau_plus, 2048) {}
    stdp_parameters parameters;
    double dt_ms = 0.1;
    step_decay plus_decay;
    double tau_plus() const { return parameters.tau_plus; }
};

// The powers of one rule's facilitation and depression, shared by the synapses of one spike.
struct stdp_powers {
    explicit stdp_powers(const stdp_parameters& p): plus(p.mu_plus), minus(p.mu_minus) {}
    repeated_power plus, minus;
};

// Step 1 for one synapse whose target fired after t_last - d (post.spiked_after); step 2; both:
// the weight to deliver a spike with `stamp` over `delay`. The order of the operations is
// NEST's, so the weights agree with NEST's to rounding.
inline double stdp_facilitate(double w, const stdp_pre_state& pre, step_type stamp, step_type delay, post_history& post,
                              const stdp_rule& rule, stdp_powers& power) {
    const stdp_parameters& p = rule.parameters;
    post.read_window(pre.last_stamp - delay, stamp - delay, [&](step_type t_j) {
        const double k_plus = pre.k_plus * rule.plus_decay(t_j + delay - pre.last_stamp);
        const double norm = w / p.Wmax + p.lambda * power.plus(1.0 - w / p.Wmax) * k_plus;
        w = norm < 1.0 ? norm * p.Wmax : p.Wmax;
    });
    return w;
}
inline double stdp_depress(double w, step_type stamp, step_type delay, post_history& post, const stdp_rule& rule,
                           double tau_minus, stdp_powers& power) {
    const stdp_parameters& p = rule.parameters;
    const double k_minus = post.k_minus_before(stamp - delay, rule.dt_ms, tau_minus);
    const double norm = w / p.Wmax - p.alpha * p.lambda * power.minus(w / p.Wmax) * k_minus;
    return norm > 0.0 ? norm * p.Wmax : 0.0;
}
inline double stdp_weight(double w, const stdp_pre_state& pre, step_type stamp, step_type delay, post_history& post,
                          const stdp_rule& rule, double tau_minus, stdp_powers& power) {
    return stdp_depress(stdp_facilitate(w, pre, stamp, delay, post, rule, power), stamp, delay, post, rule, tau_minus,
                        power);
}
inline double stdp_weight(double w, const stdp_pre_state& pre, step_type stamp, step_type delay, post_history& post,
                          const stdp_rule& rule, double tau_minus) {
    stdp_powers power(rule.parameters);
    return stdp_weight(w, pre, stamp, delay, post, rule, tau_minus, power);
}

} // namespace spikex
