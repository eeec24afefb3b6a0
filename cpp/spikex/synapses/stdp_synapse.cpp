#include "spikex/synapses/stdp_synapse.hpp"

namespace spikex {

const std::vector<model_parameters::field<stdp_parameters>>& stdp_fields() {
    using P = stdp_parameters;
    static const std::vector<model_parameters::field<P>> fields = {{"tau_plus", &P::tau_plus}, {"lambda", &P::lambda},
                                                                   {"alpha", &P::alpha},       {"mu_plus", &P::mu_plus},
                                                                   {"mu_minus", &P::mu_minus}, {"Wmax", &P::Wmax}};
    return fields;
}

stdp_parameters parse_stdp_parameters(const std::map<std::string, double>& params) {
    namespace mp = model_parameters;
    const std::string name = "stdp_synapse";
    stdp_parameters p;
    std::vector<std::string> allowed;
    for (const auto& f: stdp_fields()) allowed.push_back(f.name);
    mp::assign(name, p, stdp_fields(), allowed, params);
    mp::require(p.tau_plus > 0, name, "tau_plus", p.tau_plus, "must be > 0 ms");
    mp::require(p.lambda >= 0, name, "lambda", p.lambda, "must be >= 0");
    mp::require(p.alpha >= 0, name, "alpha", p.alpha, "must be >= 0");
    mp::require(p.mu_plus >= 0, name, "mu_plus", p.mu_plus, "must be >= 0");
    mp::require(p.mu_minus >= 0, name, "mu_minus", p.mu_minus, "must be >= 0");
    mp::require(p.Wmax != 0, name, "Wmax", p.Wmax, "must not be 0 (its sign is the weights' sign)");
    return p;
}

} // namespace spikex
