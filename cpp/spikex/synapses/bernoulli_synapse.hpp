#pragma once
// bernoulli_synapse: NEST's static synapse with stochastic transmission. Each spike crosses
// the connection with probability p_transmit (with its weight, unchanged) or not at all
// (the target receives nothing: not even an event of weight 0).
//
// NEST draws from the thread's generator, so which spikes cross depends on its layout.
// spikex draws each decision from its own counter-based key (core/random.hpp,
// connection_uniform with purpose::transmission): the target gid, the connection's index
// among its target's inputs in creation order and the spike's emission step. The same
// network then transmits the same spikes on any ranks, threads, distribution and exchange
// method, multapses decide independently, and nothing needs saving in a checkpoint.
#include <map>
#include <string>
#include <vector>

#include "spikex/core/random.hpp"
#include "spikex/models/model_parameters.hpp"

namespace spikex {

struct bernoulli_parameters { // default: the parameter table (NEST's)
    double p_transmit;        // probability that a spike crosses
};
const std::vector<model_parameters::field<bernoulli_parameters>>& bernoulli_fields();

// user_error naming the parameter for unknown names or p_transmit outside [0, 1].
bernoulli_parameters parse_bernoulli_parameters(const std::map<std::string, double>& params);

struct bernoulli_rule {
    bernoulli_rule() = default;
    explicit bernoulli_rule(const bernoulli_parameters& p): parameters(p) {}
    bernoulli_parameters parameters{};
};

// Whether the spike emitted at `step` crosses connection `connection` (its index among the
// inputs of `target`): NEST's test, a uniform in [0, 1) below p_transmit.
inline bool bernoulli_transmits(const bernoulli_rule& rule, std::uint32_t seed, gid_type target,
                                std::uint32_t connection, step_type step) {
    return connection_uniform(seed, target, purpose::transmission, connection, step, 0) < rule.parameters.p_transmit;
}

} // namespace spikex
