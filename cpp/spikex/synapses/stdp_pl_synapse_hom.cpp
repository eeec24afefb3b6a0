#include "spikex/synapses/stdp_pl_synapse_hom.hpp"

namespace spikex {

const std::vector<model_parameters::field<stdp_pl_parameters>>& stdp_pl_fields() {
    using P = stdp_pl_parameters;
    static const std::vector<model_parameters::field<P>> fields = {
        {{"alpha", "1", 1.0, "", ranges::non_negative(), "ratio of depression to facilitation"}, &P::alpha},
        {{"lambda", "1", 0.1, "", ranges::non_negative(), "learning rate"}, &P::lambda},
        {{"mu", "1", 0.4, "", ranges::non_negative(), "power-law exponent of the facilitation's weight dependence"},
         &P::mu},
        {{"tau_plus", "ms", 20.0, "", ranges::positive(), "time constant of the presynaptic trace"}, &P::tau_plus},
    };
    return fields;
}

stdp_pl_parameters parse_stdp_pl_parameters(const std::map<std::string, double>& params) {
    return model_parameters::parse("stdp_pl_synapse_hom", stdp_pl_fields(), params);
}

} // namespace spikex
