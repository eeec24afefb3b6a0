#pragma once
// The plastic synapses of one rank (the rules of synapse_registry.hpp): presynaptic traces per plastic delay group,
// spike histories of the local neurons that have plastic inputs, short-term states per delay group of a short-term
// type, and the rule parameters per synapse type. Threads may call update_weights() and post_spike() at once for
// targets they own (every structure touched is per target); advance() runs on one thread after a step's deliveries,
// arrive() on one thread before them (the step's factors, which the threads then read).
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
    plasticity(const network_spec& spec, const std::vector<gid_type>& local_gids, const connection_table& table);

    bool active() const { return !pre_.empty(); }
    bool plastic(const delay_group& g) const { return g.synapse != 0; }
    // A short-term type's group: its spikes are delivered with the stored weights times factor(g).
    bool has_short_term() const { return !short_term_.empty(); }
    bool short_term(const delay_group& g) const { return has_short_term() && short_term_type_[g.synapse]; }

    // New weights of connections [begin, end) of plastic group g for its spike arriving at
    // step n (the spike was emitted at n - delay).
    void update_weights(connection_table& table, std::uint32_t g, std::uint32_t begin, std::uint32_t end, step_type n);
    // Once per spike of group g, after every thread has updated its weights (STDP types).
    void advance(const connection_table& table, std::uint32_t g, step_type n);
    // Once per spike of group g arriving at step n, before its deliveries (short-term types; nothing for others):
    // the state moves to the spike and factor(g) becomes its weight factor.
    void arrive(const connection_table& table, std::uint32_t g, step_type n);
    double factor(std::uint32_t g) const { return short_term_[g].factor; }
    // A local neuron fired at step n.
    void post_spike(local_index cell, step_type n);

    std::size_t bytes() const;

    // Checkpoints (engine_state.cpp): the trace of plastic group g, the history of local cell i.
    stdp_pre_state pre_state(std::uint32_t g) const { return pre_[g]; }
    void set_pre_state(std::uint32_t g, stdp_pre_state s) { pre_[g] = s; }
    // ... and the short-term state of group g of a short-term type.
    short_term_state short_term_state_of(std::uint32_t g) const { return short_term_[g]; }
    void set_short_term_state(std::uint32_t g, short_term_state s) { short_term_[g] = s; }
    bool has_history(local_index i) const { return active() && incoming_[i] > 0; }
    const post_history& history(local_index i) const { return post_[i]; }
    void set_history(local_index i, post_history h) { post_[i] = std::move(h); }

private:
    double dt_ms_ = 0.1;
    step_type max_delay_ = 0;
    std::vector<plastic_rule> rule_;           // per synapse type (index 0, static, unused)
    std::vector<stdp_pre_state> pre_;          // per delay group
    std::vector<bool> short_term_type_;        // per synapse type
    std::vector<short_term_state> short_term_; // per delay group, when some type is short-term (else empty)
    std::vector<post_history> post_;           // per local cell
    std::vector<double> tau_minus_;            // per local cell, ms
    std::vector<std::uint32_t> incoming_;      // plastic connections per local cell
};

} // namespace spikex
