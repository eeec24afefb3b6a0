#pragma once
// Every connection rule, one entry each: the one place that knows their names, what each
// takes and its defaults. The bindings (connect_rule), the Python API
// (spikex.models.CONNECTION_RULES), spikex.pynn and docs/user/connection_rules.md read it.
#include <string>
#include <vector>

#include "spikex/models/parameter_spec.hpp"
#include "spikex/network/network_spec.hpp"

namespace spikex {

struct connection_rule_entry {
    std::string name;
    connection_rule_kind kind;
    std::string description; // one sentence
    // The rule's own parameter (indegree, outdegree, total_number, probability), required;
    // empty for one_to_one and all_to_all.
    std::vector<parameter_spec> parameters;
    bool takes_indegree_spread = false; // random, adjacent, fixed_indegree
    bool takes_weight_spread = false;   // the legacy uniform spread of a constant weight
    bool self_connection_flags = true;  // allow_autapses / allow_multapses may be given
    bool allow_autapses = true;         // their defaults
    bool allow_multapses = true;
    std::string origin; // "NEST" or "Hines et al. 2011"
};

const std::vector<connection_rule_entry>& connection_rule_registry();
// user_error naming the rule and the allowed names when unknown.
const connection_rule_entry& find_connection_rule(const std::string& name);
const connection_rule_entry& find_connection_rule(connection_rule_kind kind);

} // namespace spikex
