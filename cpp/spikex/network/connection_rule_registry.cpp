#include "spikex/network/connection_rule_registry.hpp"

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"

namespace spikex {
namespace {

parameter_spec count(const std::string& name, const std::string& meaning) {
    return {name, "1", 0.0, "", ranges::count(), meaning};
}

} // namespace

const std::vector<connection_rule_entry>& connection_rule_registry() {
    using k = connection_rule_kind;
    static const std::vector<connection_rule_entry> entries = {
        {.name = "random",
         .kind = k::random,
         .description = "each target draws UniformInt[indegree - spread/2, indegree + spread/2] distinct sources, "
                        "never itself (Hines et al. 2011)",
         .parameters = {count("indegree", "mean number of inputs of each target")},
         .takes_indegree_spread = true,
         .takes_weight_spread = true,
         .self_connection_flags = false,
         .allow_autapses = false,
         .allow_multapses = false,
         .origin = "Hines et al. 2011"},
        {.name = "adjacent",
         .kind = k::adjacent,
         .description = "each target takes the indegree gids around it, not itself (Hines et al. 2011)",
         .parameters = {count("indegree", "number of inputs of each target")},
         .takes_indegree_spread = true,
         .takes_weight_spread = true,
         .self_connection_flags = false,
         .allow_autapses = false,
         .allow_multapses = true,
         .origin = "Hines et al. 2011"},
        {.name = "fixed_indegree",
         .kind = k::fixed_indegree,
         .description = "each target draws indegree sources",
         .parameters = {count("indegree", "number of inputs of each target")},
         .takes_indegree_spread = true,
         .takes_weight_spread = true,
         .origin = "NEST"},
        {.name = "fixed_outdegree",
         .kind = k::fixed_outdegree,
         .description = "each source draws outdegree targets",
         .parameters = {count("outdegree", "number of outputs of each source")},
         .origin = "NEST"},
        {.name = "fixed_total_number",
         .kind = k::fixed_total_number,
         .description = "total_number connections between uniformly drawn sources and targets",
         .parameters = {count("total_number", "number of connections in all")},
         .origin = "NEST"},
        {.name = "pairwise_bernoulli",
         .kind = k::pairwise_bernoulli,
         .description = "each (source, target) pair is connected with the given probability",
         .parameters = {{"probability", "1", 0.0, "", {.low = 0.0, .high = 1.0}, "probability of each pair"}},
         .origin = "NEST"},
        {.name = "one_to_one", .kind = k::one_to_one, .description = "source i to target i", .origin = "NEST"},
        {.name = "all_to_all", .kind = k::all_to_all, .description = "every source to every target", .origin = "NEST"},
    };
    return entries;
}

const connection_rule_entry& find_connection_rule(const std::string& name) {
    std::string allowed;
    for (const auto& entry: connection_rule_registry()) {
        if (entry.name == name) return entry;
        allowed += (allowed.empty() ? "\"" : ", \"") + entry.name + "\"";
    }
    throw user_error(spikex::format("connect: rule \"{}\" is unknown: allowed are {}", name, allowed));
}

const connection_rule_entry& find_connection_rule(connection_rule_kind kind) {
    for (const auto& entry: connection_rule_registry())
        if (entry.kind == kind) return entry;
    throw internal_error("a connection rule without a registry entry");
}

} // namespace spikex
