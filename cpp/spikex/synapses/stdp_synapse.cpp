#include "spikex/synapses/stdp_synapse.hpp"

namespace spikex {

const std::vector<model_parameters::field<stdp_parameters>>& stdp_fields() {
    using P = stdp_parameters;
    static const std::vector<model_parameters::field<P>> fields = {
        {{"tau_plus", "ms", 20.0, "", ranges::positive(), "time constant of the presynaptic trace"}, &P::tau_plus},
        {{"lambda", "1", 0.01, "", ranges::non_negative(), "learning rate (PyNN's A_plus)"}, &P::lambda},
        {{"alpha", "1", 1.0, "", ranges::non_negative(),
          "ratio of depression to facilitation (PyNN's A_minus / A_plus)"},
         &P::alpha},
        {{"mu_plus", "1", 1.0, "", ranges::non_negative(),
          "weight dependence of facilitation: 0 additive, 1 multiplicative"},
         &P::mu_plus},
        {{"mu_minus", "1", 1.0, "", ranges::non_negative(),
          "weight dependence of depression: 0 additive, 1 multiplicative"},
         &P::mu_minus},
        {{"Wmax", "pA", 100.0, "", ranges::any(), "largest weight; its sign is the weights' sign (must not be 0)"},
         &P::Wmax},
    };
    return fields;
}

stdp_parameters parse_stdp_parameters(const std::map<std::string, double>& params) {
    const stdp_parameters p = model_parameters::parse("stdp_synapse", stdp_fields(), params);
    model_parameters::require(p.Wmax != 0, "stdp_synapse", "Wmax", p.Wmax,
                              "must not be 0 (its sign is the weights' sign)");
    return p;
}

} // namespace spikex
