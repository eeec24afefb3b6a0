#pragma once
// Every synapse type a connection can name, one entry each: the one place that knows them.
// The engine (plasticity), the Python bindings (spikex.models.SYNAPSES), validation
// messages and the docs read it.
#include <functional>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "spikex/synapses/bernoulli_synapse.hpp"
#include "spikex/synapses/quantal_stp_synapse.hpp"
#include "spikex/synapses/stdp_pl_synapse_hom.hpp"
#include "spikex/synapses/stdp_synapse.hpp"
#include "spikex/synapses/tsodyks2_synapse.hpp"
#include "spikex/synapses/tsodyks_synapse.hpp"

namespace spikex {

// The rule of a plastic synapse type at one resolution: spike-timing-dependent rules, which
// change the stored weights; short-term rules, which scale the weight a spike is delivered
// with by a factor of their per-group state (short_term.hpp); and stochastic rules, which
// decide per connection and spike how many times its weight crosses (0: the spike does not)
// from keyed draws (bernoulli_synapse.hpp, quantal_stp_synapse.hpp).
using plastic_rule =
    std::variant<stdp_pl_rule, stdp_rule, tsodyks_rule, tsodyks2_rule, bernoulli_rule, quantal_stp_rule>;

template <class Rule>
constexpr bool is_short_term_rule = std::is_same_v<Rule, tsodyks_rule> || std::is_same_v<Rule, tsodyks2_rule>;
template <class Rule>
constexpr bool is_stochastic_rule = std::is_same_v<Rule, bernoulli_rule> || std::is_same_v<Rule, quantal_stp_rule>;
template <class Rule>
constexpr bool is_stdp_rule = std::is_same_v<Rule, stdp_pl_rule> || std::is_same_v<Rule, stdp_rule>;

struct synapse_entry {
    std::string name;
    std::string description;                // one sentence
    std::map<std::string, double> defaults; // every parameter with its default (NEST's)
    std::vector<parameter_spec> parameters; // the same parameters' specs (unit, range, sentence)
    std::string docs_page;                  // docs/models/<name>.md ("" for static)
    // user_error naming the parameter for unknown names or values out of range.
    std::function<void(const std::map<std::string, double>&)> check;
    // The weights a parameter set allows, [low, high].
    std::function<std::pair<double, double>(const std::map<std::string, double>&)> weight_range;
    // The rule; empty for static synapses.
    std::function<plastic_rule(const std::map<std::string, double>&, double dt_ms)> make_rule;
};

const std::vector<synapse_entry>& synapse_registry();
// user_error naming the synapse type and the allowed names when unknown.
const synapse_entry& find_synapse(const std::string& name);

} // namespace spikex
