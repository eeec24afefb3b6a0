#include "spikex/synapses/stdp_pl_synapse_hom.hpp"

namespace spikex {

const std::vector<model_parameters::field<stdp_pl_parameters>>& stdp_pl_fields() {
    using P = stdp_pl_parameters;
    static const std::vector<model_parameters::field<P>> fields = {
        {"alpha", &P::alpha}, {"lambda", &P::lambda}, {"mu", &P::mu}, {"tau_plus", &P::tau_plus}};
    return fields;
}

stdp_pl_parameters parse_stdp_pl_parameters(const std::map<std::string, double>& params) {
    namespace mp = model_parameters;
    const std::string name = "stdp_pl_synapse_hom";
    stdp_pl_parameters p;
    std::vector<std::string> allowed;
    for (const auto& f: stdp_pl_fields()) allowed.push_back(f.name);
    mp::assign(name, p, stdp_pl_fields(), allowed, params);
    mp::require(p.alpha >= 0, name, "alpha", p.alpha, "must be >= 0");
    mp::require(p.lambda >= 0, name, "lambda", p.lambda, "must be >= 0");
    mp::require(p.mu >= 0, name, "mu", p.mu, "must be >= 0");
    mp::require(p.tau_plus > 0, name, "tau_plus", p.tau_plus, "must be > 0 ms");
    return p;
}

} // namespace spikex
