#include "spikex/synapses/synapse_registry.hpp"

#include <limits>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"

namespace spikex {

namespace {

template <class P>
std::map<std::string, double> defaults_of(const std::vector<model_parameters::field<P>>& fields) {
    std::map<std::string, double> out;
    for (const auto& f: fields) out[f.spec.name] = f.spec.default_value;
    return out;
}

constexpr double infinity = std::numeric_limits<double>::infinity();

} // namespace

const std::vector<synapse_entry>& synapse_registry() {
    static const std::vector<synapse_entry> registry = {
        {"static",
         "a fixed weight",
         {},
         {},
         "",
         [](const std::map<std::string, double>& params) {
             if (!params.empty()) {
                 throw user_error(
                     spikex::format("synapse \"static\" takes no parameters, got \"{}\"", params.begin()->first));
             }
         },
         [](const auto&) {
             return std::pair{-infinity, infinity};
         },
         {}},
        {"stdp_pl_synapse_hom",
         "power-law STDP (Morrison et al. 2007), NEST's stdp_pl_synapse_hom: the hpc_benchmark's E->E synapse",
         defaults_of(stdp_pl_fields()), model_parameters::specs_of(stdp_pl_fields()), "stdp_pl_synapse_hom.md",
         [](const auto& params) { parse_stdp_pl_parameters(params); },
         [](const auto&) {
             return std::pair{0.0, infinity};
         }, // the rule takes w^mu
         [](const auto& params, double dt_ms) {
             return plastic_rule(stdp_pl_rule(parse_stdp_pl_parameters(params), dt_ms));
         }},
        {"stdp_synapse",
         "spike-pair STDP with additive to multiplicative weight dependence (Guetig et al. 2003), NEST's "
         "stdp_synapse: PyNN's STDPMechanism with SpikePairRule",
         defaults_of(stdp_fields()), model_parameters::specs_of(stdp_fields()), "stdp_synapse.md",
         [](const auto& params) { parse_stdp_parameters(params); },
         [](const auto& params) {
             const double w_max = parse_stdp_parameters(params).Wmax;
             return w_max > 0 ? std::pair{0.0, w_max} : std::pair{w_max, 0.0};
         },
         [](const auto& params, double dt_ms) {
             return plastic_rule(stdp_rule(parse_stdp_parameters(params), dt_ms));
         }},
        {"tsodyks_synapse",
         "short-term depression and facilitation (Tsodyks, Uziel & Markram 2000), NEST's tsodyks_synapse: each "
         "spike's weight scaled by the released fraction u x of the resources",
         defaults_of(tsodyks_fields()), model_parameters::specs_of(tsodyks_fields()), "tsodyks_synapse.md",
         [](const auto& params) { parse_tsodyks_parameters(params); },
         [](const auto&) {
             return std::pair{-infinity, infinity};
         },
         [](const auto& params, double dt_ms) {
             return plastic_rule(tsodyks_rule(parse_tsodyks_parameters(params), dt_ms));
         }},
        {"tsodyks2_synapse",
         "short-term depression and facilitation (Tsodyks & Markram 1997, Fuhrmann et al. 2002), NEST's "
         "tsodyks2_synapse: each spike's weight scaled by u x",
         defaults_of(tsodyks2_fields()), model_parameters::specs_of(tsodyks2_fields()), "tsodyks2_synapse.md",
         [](const auto& params) { parse_tsodyks2_parameters(params); },
         [](const auto&) {
             return std::pair{-infinity, infinity};
         },
         [](const auto& params, double dt_ms) {
             return plastic_rule(tsodyks2_rule(parse_tsodyks2_parameters(params), dt_ms));
         }},
        {"bernoulli_synapse",
         "a fixed weight crossing with probability p_transmit at each spike, NEST's bernoulli_synapse (PyNN's "
         "SimpleStochasticSynapse)",
         defaults_of(bernoulli_fields()), model_parameters::specs_of(bernoulli_fields()), "bernoulli_synapse.md",
         [](const auto& params) { parse_bernoulli_parameters(params); },
         [](const auto&) {
             return std::pair{-infinity, infinity};
         },
         [](const auto& params, double) { return plastic_rule(bernoulli_rule(parse_bernoulli_parameters(params))); }},
        {"quantal_stp_synapse",
         "stochastic release from n sites with short-term depression and facilitation (Fuhrmann et al. 2002, Loebel "
         "et al. 2009), NEST's quantal_stp_synapse (PyNN's MultiQuantalSynapse)",
         defaults_of(quantal_stp_fields()), model_parameters::specs_of(quantal_stp_fields()), "quantal_stp_synapse.md",
         [](const auto& params) { parse_quantal_stp_parameters(params); },
         [](const auto&) {
             return std::pair{-infinity, infinity};
         },
         [](const auto& params, double dt_ms) {
             return plastic_rule(quantal_stp_rule(parse_quantal_stp_parameters(params), dt_ms));
         }},
        {"stochastic_stp_synapse",
         "stochastic release from one site with short-term depression and facilitation (the Blue Brain Project's "
         "algorithm), PyNN's NEST extension stochastic_stp_synapse (PyNN's StochasticTsodyksMarkramSynapse)",
         defaults_of(stochastic_stp_fields()), model_parameters::specs_of(stochastic_stp_fields()),
         "stochastic_stp_synapse.md", [](const auto& params) { parse_stochastic_stp_parameters(params); },
         [](const auto&) {
             return std::pair{-infinity, infinity};
         },
         [](const auto& params, double dt_ms) {
             return plastic_rule(quantal_stp_rule(parse_stochastic_stp_parameters(params), dt_ms, true));
         }},
    };
    return registry;
}

const synapse_entry& find_synapse(const std::string& name) {
    std::string allowed;
    for (const auto& entry: synapse_registry()) {
        if (entry.name == name) return entry;
        allowed += (allowed.empty() ? "\"" : ", \"") + entry.name + "\"";
    }
    throw user_error(spikex::format("synapse = \"{}\": must be one of {}", name, allowed));
}

} // namespace spikex
