#include "spikex/synapses/bernoulli_synapse.hpp"

namespace spikex {

const std::vector<model_parameters::field<bernoulli_parameters>>& bernoulli_fields() {
    using P = bernoulli_parameters;
    static const std::vector<model_parameters::field<P>> fields = {
        {{"p_transmit", "1", 1.0, "", {.low = 0.0, .high = 1.0}, "probability that a spike crosses the connection"},
         &P::p_transmit},
    };
    return fields;
}

bernoulli_parameters parse_bernoulli_parameters(const std::map<std::string, double>& params) {
    return model_parameters::parse("bernoulli_synapse", bernoulli_fields(), params);
}

} // namespace spikex
