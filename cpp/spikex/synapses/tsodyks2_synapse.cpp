#include "spikex/synapses/tsodyks2_synapse.hpp"

namespace spikex {

namespace {
value_range unit_interval() { return {.low = 0.0, .high = 1.0}; }
} // namespace

const std::vector<model_parameters::field<tsodyks2_parameters>>& tsodyks2_fields() {
    using P = tsodyks2_parameters;
    static const std::vector<model_parameters::field<P>> fields = {
        {{"U", "1", 0.5, "", unit_interval(), "increase of the release probability u at a spike: u += U (1 - u)"},
         &P::U},
        {{"u", "1", 0.5, "", unit_interval(), "initial release probability (NEST's default; set it with U)"}, &P::u},
        {{"x", "1", 1.0, "", unit_interval(), "initial fraction of available resources"}, &P::x},
        {{"tau_rec", "ms", 800.0, "", ranges::positive(), "recovery time constant of x (depression)"}, &P::tau_rec},
        {{"tau_fac", "ms", 0.0, "", ranges::non_negative(),
          "decay time constant of u between spikes (facilitation; 0: none)"},
         &P::tau_fac},
    };
    return fields;
}

tsodyks2_parameters parse_tsodyks2_parameters(const std::map<std::string, double>& params) {
    return model_parameters::parse("tsodyks2_synapse", tsodyks2_fields(), params);
}

} // namespace spikex
