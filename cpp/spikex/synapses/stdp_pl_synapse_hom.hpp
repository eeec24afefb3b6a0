#pragma once
// stdp_pl_synapse_hom: power-law spike-timing-dependent plasticity of Morrison, Aertsen &
// Diesmann 2007, as NEST's synapse of that name (parameters shared by all its synapses),
// with the whole delay dendritic (spec/hpc_benchmark.md).
//
// Times are NEST time stamps in steps: a spike emitted in the update of step n carries
// stamp n + 1 (pre and post alike, so only differences matter). For a presynaptic spike
// with stamp t over delay d, with t_last the stamp of the synapse's previous spike (0 at
// first) and K+ its presynaptic trace:
//   1. every postsynaptic spike t_j in (t_last - d, t - d] facilitates:
//        w += lambda * w^mu * K+ * exp((t_last - (t_j + d)) / tau_plus)
//   2. depression by K- of the last postsynaptic spike strictly before t - d, decayed:
//        w -= lambda * alpha * w * K-(t - d), clipped at 0
//   3. the spike is delivered with the new w
//   4. K+ = K+ * exp((t_last - t) / tau_plus) + 1; t_last = t
// K+ and t_last depend only on the presynaptic spike times, so all synapses of one source
// and delay share them (stdp_pre_state per delay group, not per synapse as in NEST).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "spikex/core/types.hpp"

namespace spikex {

struct stdp_pl_parameters {
    double alpha = 1.0;     // depression / facilitation ratio
    double lambda = 0.1;    // learning rate
    double mu = 0.4;        // power-law exponent of facilitation
    double tau_plus = 20.0; // ms, presynaptic trace
};

// user_error naming the parameter for unknown names or values out of range.
stdp_pl_parameters parse_stdp_pl_parameters(const std::map<std::string, double>& params);
const std::vector<std::string>& stdp_pl_parameter_names();

// Spike history of one postsynaptic neuron: stamps and K- just after each spike. An entry
// goes once every plastic input has read it and a later spike is more than the maximum
// delay older than the newest one (so K- lookups still find their predecessor), as NEST's
// archiving node does.
class post_history {
public:
    // A spike with `stamp`; `incoming` plastic connections read the history.
    void record(step_type stamp, double dt_ms, double tau_minus, std::uint32_t incoming, step_type max_delay);

    // Calls f(stamp) for each spike with stamp in (t1, t2], oldest first, counting the read.
    template <typename F>
    void read_window(step_type t1, step_type t2, F&& f) {
        for (std::size_t i = first_; i < entries_.size(); ++i) {
            if (entries_[i].stamp <= t1) continue;
            if (entries_[i].stamp > t2) break;
            ++entries_[i].reads;
            f(entries_[i].stamp);
        }
    }

    // K- at stamp t: of the last spike strictly before t, decayed to t; 0 if none. All
    // plastic inputs arriving in one step over one delay ask for the same t: the last
    // answer is kept (one exp per neuron and step instead of one per synapse).
    double k_minus_before(step_type t, double dt_ms, double tau_minus);

    std::size_t size() const { return entries_.size() - first_; }
    std::size_t bytes() const { return entries_.capacity() * sizeof(entry); }

private:
    struct entry {
        step_type stamp;
        double k_minus;
        std::uint32_t reads;
    };
    std::vector<entry> entries_;
    std::size_t first_ = 0; // live entries are [first_, end)
    double k_minus_ = 0.0;
    step_type last_ = 0;
    step_type asked_ = -1; // stamp of the kept K- answer (-1: none)
    double answer_ = 0.0;
};

// Presynaptic trace of a delay group's synapses.
struct stdp_pre_state {
    double k_plus = 0.0;
    step_type last_stamp = 0;
};

// Steps 1 and 2 for one synapse: the weight to deliver a spike with `stamp` over `delay`.
double stdp_pl_weight(double w, const stdp_pre_state& pre, step_type stamp, step_type delay, post_history& post,
                      const stdp_pl_parameters& p, double dt_ms, double tau_minus);

// Step 4, once per presynaptic spike of the group.
void stdp_pl_advance(stdp_pre_state& pre, step_type stamp, const stdp_pl_parameters& p, double dt_ms);

} // namespace spikex
