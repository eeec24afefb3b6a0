#include "spikex/synapses/quantal_stp_synapse.hpp"

namespace spikex {

namespace {
value_range unit_interval() { return {.low = 0.0, .high = 1.0}; }
// Release sites: the draws' keys have room for 2^25 per spike (connection_draws_fit).
constexpr double most_sites = double(1u << 25);
} // namespace

const std::vector<model_parameters::field<quantal_stp_parameters>>& quantal_stp_fields() {
    using P = quantal_stp_parameters;
    static const std::vector<model_parameters::field<P>> fields = {
        {{"U", "1", 0.5, "", unit_interval(), "increase of the release probability u at a spike: u += U (1 - u)"},
         &P::U},
        {{"u", "1", 0.5, "", unit_interval(), "initial release probability of a site (NEST's default; set it with U)"},
         &P::u},
        {{"tau_rec", "ms", 800.0, "", ranges::positive(), "recovery time constant of a depleted release site"},
         &P::tau_rec},
        {{"tau_fac", "ms", 0.0, "", ranges::non_negative(),
          "decay time constant of u between spikes (facilitation; 0: none)"},
         &P::tau_fac},
        {{"n", "1", 1.0, "", {.low = 1.0, .high = most_sites, .integer = true}, "number of release sites"}, &P::n},
        {{"a",
          "1",
          1.0,
          "",
          {.low = 0.0, .high = most_sites, .integer = true},
          "initially available release sites, <= n (NEST's default 1, whatever n is: set it with n)"},
         &P::a},
    };
    return fields;
}

quantal_stp_parameters parse_quantal_stp_parameters(const std::map<std::string, double>& params) {
    const quantal_stp_parameters p = model_parameters::parse("quantal_stp_synapse", quantal_stp_fields(), params);
    model_parameters::require(
        p.a <= p.n, "quantal_stp_synapse", "a", p.a,
        spikex::format("must be <= n = {} (available sites of n)", model_parameters::number(p.n)));
    return p;
}

const std::vector<model_parameters::field<quantal_stp_parameters>>& stochastic_stp_fields() {
    using P = quantal_stp_parameters;
    static const std::vector<model_parameters::field<P>> fields = {
        {{"U", "1", 0.5, "", unit_interval(), "increase of the release probability u at a spike: u += U (1 - u)"},
         &P::U},
        {{"u", "1", 0.0, "", unit_interval(), "initial release probability (moves at the first spike, from t = 0)"},
         &P::u},
        {{"tau_rec", "ms", 800.0, "", ranges::positive(), "recovery time constant of the released site"}, &P::tau_rec},
        {{"tau_fac", "ms", 10.0, "", ranges::non_negative(),
          "decay time constant of u between spikes (facilitation; 0: none, u = U)"},
         &P::tau_fac},
    };
    return fields;
}

quantal_stp_parameters parse_stochastic_stp_parameters(const std::map<std::string, double>& params) {
    quantal_stp_parameters p = model_parameters::parse("stochastic_stp_synapse", stochastic_stp_fields(), params);
    p.n = p.a = 1.0;
    return p;
}

} // namespace spikex
