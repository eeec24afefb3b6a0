#pragma once
// The plastic synapses of one rank (the rules of synapse_registry.hpp): presynaptic traces per plastic delay group,
// spike histories of the local neurons that have plastic inputs, short-term states per delay group of a short-term
// or quantal type, the per-connection state of stochastic types, and the rule parameters per synapse type. Threads
// may call update_weights(), transmit() and post_spike() at once for targets they own (every structure touched is
// per target or per connection); advance() runs on one thread after a step's deliveries, arrive() on one thread
// before them (the step's factors and release probabilities, which the threads then read).
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "spikex/connections/connection_table.hpp"
#include "spikex/network/network_spec.hpp"
#include "spikex/synapses/synapse_registry.hpp"

namespace spikex {

class plasticity {
public:
    plasticity() = default;
    // input_index: connection_table::take_input_indices() of a table built with
    // indexed_synapse_types(spec) (the stochastic types' connections). starting_weight: its
    // take_starting_weights(), or empty (every weight is read to check its range).
    plasticity(const network_spec& spec, const std::vector<gid_type>& local_gids, const connection_table& table,
               std::vector<std::uint32_t> input_index = {}, const std::vector<double>& starting_weight = {});
    // Per synapse type of spec: whether its connections need their index among their target's inputs (the keys of
    // the stochastic types' draws), for table_shape::indexed_synapses.
    static std::vector<char> indexed_synapse_types(const network_spec& spec);

    bool active() const { return !pre_.empty(); }
    bool plastic(const delay_group& g) const { return g.synapse != 0; }
    // A short-term type's group: its spikes are delivered with the stored weights times factor(g).
    bool has_short_term() const { return !short_term_.empty(); }
    bool short_term(const delay_group& g) const { return has_short_term() && kind_[g.synapse] == kind::short_term; }
    // A stochastic type's group: its spikes cross each connection a drawn number of times (transmit).
    bool has_stochastic() const { return !stochastic_begin_.empty(); }
    bool stochastic(const delay_group& g) const {
        return has_stochastic() && (kind_[g.synapse] == kind::bernoulli || kind_[g.synapse] == kind::quantal);
    }
    // A group with a short_term_state (short-term and quantal types).
    bool group_state(const delay_group& g) const {
        return has_short_term() && (kind_[g.synapse] == kind::short_term || kind_[g.synapse] == kind::quantal);
    }

    // New weights of connections [begin, end) of plastic group g for its spike arriving at
    // step n (the spike was emitted at n - delay).
    void update_weights(connection_table& table, std::uint32_t g, std::uint32_t begin, std::uint32_t end, step_type n);
    // Once per spike of group g, after every thread has updated its weights (STDP types).
    void advance(const connection_table& table, std::uint32_t g, step_type n);
    // Once per spike of group g arriving at step n, before its deliveries (short-term and quantal types; nothing for
    // others): the state moves to the spike and factor(g) becomes its weight factor.
    void arrive(const connection_table& table, std::uint32_t g, step_type n);
    double factor(std::uint32_t g) const { return short_term_[g].factor; }
    // Stochastic group g's spike arriving at step n over its connections [begin, end): appends the target and the
    // weight of each connection it crosses (the stored weight times the number released) and moves their state.
    void transmit(const connection_table& table, std::uint32_t g, std::uint32_t begin, std::uint32_t end, step_type n,
                  std::vector<local_index>& targets, std::vector<double>& weights);
    // A local neuron fired at step n.
    void post_spike(local_index cell, step_type n);

    std::size_t bytes() const;

    // Checkpoints (engine_state.cpp): the trace of plastic group g, the history of local cell i.
    stdp_pre_state pre_state(std::uint32_t g) const { return pre_[g]; }
    void set_pre_state(std::uint32_t g, stdp_pre_state s) { pre_[g] = s; }
    // ... the state of group g of a short-term or quantal type (group_state),
    short_term_state short_term_state_of(std::uint32_t g) const { return short_term_[g]; }
    void set_short_term_state(std::uint32_t g, short_term_state s) { short_term_[g] = s; }
    // ... the available sites of connection c of quantal group g,
    bool quantal(const delay_group& g) const { return has_stochastic() && kind_[g.synapse] == kind::quantal; }
    bool has_quantal() const { return std::find(kind_.begin(), kind_.end(), kind::quantal) != kind_.end(); }
    std::uint32_t available_sites(std::uint32_t g, std::uint32_t c, const connection_table& table) const {
        return available_[stochastic_begin_[g] + (c - table.group(g).begin)];
    }
    void set_available_sites(std::uint32_t g, std::uint32_t c, const connection_table& table, std::uint32_t a) {
        available_[stochastic_begin_[g] + (c - table.group(g).begin)] = a;
    }
    // ... and the sites of the quantal type `synapse` (n).
    std::uint32_t sites(std::uint16_t synapse) const { return std::get<quantal_stp_rule>(rule_[synapse]).sites; }
    bool has_history(local_index i) const { return active() && incoming_[i] > 0; }
    const post_history& history(local_index i) const { return post_[i]; }
    void set_history(local_index i, post_history h) { post_[i] = std::move(h); }

private:
    // Checks every plastic connection's weight (in its type's range) and target (with a tau_minus where the rule
    // reads the trace), counting each cell's plastic inputs; user_error for the first connection at fault.
    void check_and_count_inputs(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                const connection_table& table, const std::vector<double>& starting_weight);

    enum class kind : std::uint8_t { none, stdp, short_term, bernoulli, quantal };

    double dt_ms_ = 0.1;
    std::uint32_t seed_ = 0;
    step_type max_delay_ = 0;
    std::vector<plastic_rule> rule_;           // per synapse type (index 0, static, unused)
    std::vector<kind> kind_;                   // per synapse type
    std::vector<stdp_pre_state> pre_;          // per delay group
    std::vector<short_term_state> short_term_; // per delay group, when some type keeps one (else empty)
    // Stochastic types: where each group's connections start in the per-connection arrays (per delay group, when
    // some type is stochastic), each connection's index among its target's inputs and its available sites
    // (quantal_stp_synapse's a; 0 for bernoulli_synapse), in table order; the local cells' gids (the draws' key).
    std::vector<std::uint32_t> stochastic_begin_;
    std::vector<std::uint32_t> input_index_;
    std::vector<std::uint32_t> available_;
    std::vector<gid_type> gid_;
    std::vector<post_history> post_;      // per local cell
    std::vector<double> tau_minus_;       // per local cell, ms
    std::vector<std::uint32_t> incoming_; // plastic connections per local cell
};

} // namespace spikex
