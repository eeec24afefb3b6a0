#pragma once
// A validated description of the network, identical on every rank: populations,
// connection rules (drawn later, on each target's rank) and explicit connections.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "spikex/core/types.hpp"
#include "spikex/network/parameter_value.hpp"
#include "spikex/network/random_distribution.hpp"

namespace spikex {

struct population_spec {
    std::string model;
    gid_type first = 0;
    std::uint32_t size = 0;
    parameter_map params;
    // List parameters (parameter_shape::per_cell_list: spike_times, amplitude_times, ...):
    // the list of cell i is values[offsets[i] .. offsets[i + 1]).
    struct cell_lists {
        std::vector<double> values;
        std::vector<std::uint64_t> offsets;
    };
    std::map<std::string, cell_lists> lists;

    bool contains(gid_type gid) const { return gid >= first && gid - first < size; }
    // The list `name` of cell `gid` (empty when not given).
    std::vector<double> list_of(const std::string& name, gid_type gid) const {
        auto it = lists.find(name);
        if (it == lists.end() || it->second.offsets.empty()) return {};
        const std::size_t k = gid - first;
        return {it->second.values.begin() + std::ptrdiff_t(it->second.offsets[k]),
                it->second.values.begin() + std::ptrdiff_t(it->second.offsets[k + 1])};
    }
};

// Parameters of cell `gid` of `pop`, every value resolved (constant, array entry, or the
// first draw of the cell's stream for that parameter).
std::map<std::string, double> cell_parameters(const population_spec& pop, gid_type gid, std::uint32_t seed);
// Whether every parameter of `pop` is one number for all its cells.
bool uniform_parameters(const population_spec& pop);
// The parameters of a population whose parameters are all one number (a model that takes
// no per-cell values): user_error naming the first parameter that is not.
std::map<std::string, double> constant_parameters(const population_spec& pop);

// random:   distinct sources (no multapses), never the target itself; in-degree
//           UniformInt[C - dC/2, C + dC/2] (Hines et al. 2011).
// adjacent: the C gids around the target.
// The others are NEST's rules of the same names, with allow_autapses / allow_multapses
// (docs/user/connection_rules.md).
enum class connection_rule_kind {
    random,
    adjacent,
    fixed_indegree,
    fixed_outdegree,
    fixed_total_number,
    pairwise_bernoulli,
    one_to_one,
    all_to_all
};

struct connection_rule {
    connection_rule_kind kind = connection_rule_kind::random;
    gid_type source_first = 0;
    std::uint32_t source_size = 0;
    gid_type target_first = 0;
    std::uint32_t target_size = 0;
    std::uint32_t indegree = 0;        // random, adjacent, fixed_indegree
    std::uint32_t indegree_spread = 0; // random
    std::uint32_t outdegree = 0;       // fixed_outdegree
    std::uint64_t total_number = 0;    // fixed_total_number
    double probability = 0.0;          // pairwise_bernoulli
    bool allow_autapses = true;
    bool allow_multapses = true;
    random_distribution weight = random_distribution::constant(0.0);
    // Legacy uniform spread (random, adjacent, fixed_indegree with a constant weight):
    // weight + (u - 1/2) * weight_spread.
    double weight_spread = 0.0;
    random_distribution delay_ms = random_distribution::constant(1.0);
};

// Explicit connections. Not local: the same arrays on every rank, each rank keeps its
// targets. Local: each rank gives only connections whose target it owns (an error
// otherwise), so nothing of the size of the whole network is replicated.
// The arrays wait here until the build, which releases them once the connection table
// holds the connections.
struct explicit_connections {
    std::vector<gid_type> source;
    std::vector<gid_type> target;
    // One value when every connection of the set has it (a SONATA edge type's delay, a
    // projection's constant weight): a waiting connection then takes 8 or 12 bytes, not 20.
    std::vector<double> weight;
    std::vector<std::uint32_t> delay; // steps (delay_steps of the delay in ms)
    bool local = false;
    bool released = false;                    // arrays freed after the build
    std::vector<gid_type> target_populations; // first gids of the targets' populations
    std::size_t size() const { return target.size(); }
    double weight_at(std::size_t k) const { return weight.size() == 1 ? weight[0] : weight[k]; }
    std::uint32_t delay_at(std::size_t k) const { return delay.size() == 1 ? delay[0] : delay[k]; }
};

// Recording of a state variable (V_m, ...) of cells at every `interval_steps`-th step:
// sampled after the step's update, the first sample at step `start_step`.
struct state_recording {
    std::string variable;
    std::vector<std::pair<gid_type, std::uint32_t>> cells; // (first gid, count) runs
    std::uint32_t interval_steps = 1;
    step_type start_step = 0;
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
    std::uint16_t receptor = 0;  // receptor port of the targets (0: none; model_entry::receptor_ports)
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
    std::vector<state_recording> state_recordings;
    step_type record_from_step = 0; // spikes of earlier steps are not recorded (presimulation)

    // The population that holds gid (user_error when none does).
    const population_spec& population_of(gid_type gid) const;

    std::uint32_t cells() const { return populations.empty() ? 0 : populations.back().first + populations.back().size; }
};

// Delay in ms -> whole steps (round to nearest), as spec/models.md, "Time".
step_type delay_steps(double delay_ms, double dt_ms);
// The delay of one connection in steps: user_error when below one step or too long.
std::uint32_t connection_delay_steps(double delay_ms, double dt_ms);

} // namespace spikex
