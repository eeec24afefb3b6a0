#include "spikex/synapses/tsodyks_synapse.hpp"

namespace spikex {

namespace {
value_range unit_interval() { return {.low = 0.0, .high = 1.0}; }
} // namespace

const std::vector<model_parameters::field<tsodyks_parameters>>& tsodyks_fields() {
    using P = tsodyks_parameters;
    static const std::vector<model_parameters::field<P>> fields = {
        {{"U", "1", 0.5, "", unit_interval(), "increase of the release probability u at a spike: u += U (1 - u)"},
         &P::U},
        {{"tau_psc", "ms", 3.0, "", ranges::positive(),
          "decay time constant of the active resources y (should equal the target's synaptic time constant)"},
         &P::tau_psc},
        {{"tau_fac", "ms", 0.0, "", ranges::non_negative(),
          "decay time constant of u between spikes (facilitation; 0: none)"},
         &P::tau_fac},
        {{"tau_rec", "ms", 800.0, "", ranges::positive(), "recovery time constant of the resources x (depression)"},
         &P::tau_rec},
        {{"x", "1", 1.0, "", unit_interval(), "initial fraction of recovered resources (x + y <= 1)"}, &P::x},
        {{"y", "1", 0.0, "", unit_interval(), "initial fraction of active resources"}, &P::y},
        {{"u", "1", 0.0, "", unit_interval(), "initial release probability"}, &P::u},
    };
    return fields;
}

tsodyks_parameters parse_tsodyks_parameters(const std::map<std::string, double>& params) {
    const tsodyks_parameters p = model_parameters::parse("tsodyks_synapse", tsodyks_fields(), params);
    model_parameters::require(p.x + p.y <= 1.0, "tsodyks_synapse", "x + y", p.x + p.y, "must be <= 1");
    model_parameters::require(p.tau_psc != p.tau_rec, "tsodyks_synapse", "tau_psc", p.tau_psc,
                              "must differ from tau_rec (the propagator divides by their difference)");
    return p;
}

} // namespace spikex
