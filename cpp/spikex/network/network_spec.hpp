#pragma once
// A validated description of the network, identical on every rank: populations,
// connection rules (drawn later, on each target's rank) and explicit connections.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "spikex/core/types.hpp"

namespace spikex {

struct population_spec {
    std::string model;
    gid_type first = 0;
    std::uint32_t size = 0;
    std::map<std::string, double> params;
};

// random: distinct sources (no multapses); fixed_indegree: NEST's fixed_indegree with
// multapses allowed (sources drawn with replacement); both exclude the target itself.
enum class connection_rule_kind { random, adjacent, fixed_indegree };

struct connection_rule {
    connection_rule_kind kind = connection_rule_kind::random;
    gid_type source_first = 0;
    std::uint32_t source_size = 0;
    gid_type target_first = 0;
    std::uint32_t target_size = 0;
    std::uint32_t indegree = 0;
    std::uint32_t indegree_spread = 0;
    double weight = 0.0;
    double weight_spread = 0.0;
    double delay_ms = 1.0;
};

// Explicit connections, the same arrays on every rank; each rank keeps its targets.
struct explicit_connections {
    std::vector<gid_type> source;
    std::vector<gid_type> target;
    std::vector<double> weight;
    std::vector<double> delay_ms;
};

// A synapse type with its (homogeneous) parameters. Index 0 of network_spec::synapses is
// always "static"; plastic types follow in the order they were first used.
struct synapse_spec {
    std::string name = "static";
    std::map<std::string, double> params;
};

struct connection_set {
    bool is_rule = true;
    std::uint16_t synapse = 0;   // index into network_spec::synapses
    connection_rule rule;        // when is_rule
    explicit_connections arrays; // otherwise
};

struct network_spec {
    double dt_ms = 0.025;
    std::uint32_t seed = 1;
    std::vector<population_spec> populations;
    // Connection sets in the order they were given: a target's connection index counts
    // its incoming connections in this order.
    std::vector<connection_set> connection_sets;
    std::vector<synapse_spec> synapses{synapse_spec{}};
    std::vector<std::pair<gid_type, std::uint32_t>> recorded; // (first gid, count)

    std::uint32_t cells() const { return populations.empty() ? 0 : populations.back().first + populations.back().size; }
};

// Delay in ms -> whole steps (round to nearest), as spec/models.md, "Time".
step_type delay_steps(double delay_ms, double dt_ms);

} // namespace spikex
