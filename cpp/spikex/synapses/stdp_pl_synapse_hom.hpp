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
#include <cmath>
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

// exp(-k*dt/tau) for whole steps k >= 0: a table for the first `size` steps (entries are
// computed by the same expression, so they are the same bits as computing it), computed
// beyond.
class step_decay {
public:
    step_decay() = default;
    step_decay(double dt_ms, double tau_ms, step_type size): dt_ms_(dt_ms), tau_ms_(tau_ms) {
        for (step_type k = 0; k < size; ++k) table_.push_back(compute(k));
    }
    double operator()(step_type k) const {
        return k < static_cast<step_type>(table_.size()) ? table_[static_cast<std::size_t>(k)] : compute(k);
    }
    std::size_t bytes() const { return table_.capacity() * sizeof(double); }

private:
    double compute(step_type k) const { return std::exp(double(-k) * dt_ms_ / tau_ms_); }
    double dt_ms_ = 1.0, tau_ms_ = 1.0;
    std::vector<double> table_;
};

// The rule at one resolution: its parameters and the facilitation decay exp(-k*dt/tau_plus).
struct stdp_pl_rule {
    stdp_pl_rule() = default;
    stdp_pl_rule(const stdp_pl_parameters& p, double dt): parameters(p), dt_ms(dt), plus_decay(dt, p.tau_plus, 2048) {}
    stdp_pl_parameters parameters;
    double dt_ms = 0.1;
    step_decay plus_decay; // 2,048 steps: a presynaptic interval of 205 ms at dt = 0.1 ms
};

// Spike history of one postsynaptic neuron: stamps and K- just after each spike. An entry
// goes once every plastic input has read it and a later spike is more than the maximum
// delay older than the newest one (so K- lookups still find their predecessor), as NEST's
// archiving node does.
class post_history {
public:
    // A spike with `stamp`; `incoming` plastic connections read the history.
    void record(step_type stamp, double dt_ms, double tau_minus, std::uint32_t incoming, step_type max_delay);

    // Calls f(stamp) for each spike with stamp in (t1, t2], oldest first, counting the read.
    // Windows end near the newest spike (t2 = now - delay): the start is found from there
    // backwards, in as many steps as the window has spikes, not the history.
    template <typename F>
    void read_window(step_type t1, step_type t2, F&& f) {
        std::size_t i = entries_.size();
        while (i > first_ && entries_[i - 1].stamp > t1) --i;
        for (; i < entries_.size() && entries_[i].stamp <= t2; ++i) {
            ++entries_[i].reads;
            f(entries_[i].stamp);
        }
    }

    // K- at stamp t: of the last spike strictly before t, decayed to t; 0 if none. All
    // plastic inputs arriving in one step over one delay ask for the same t: the last
    // answer is kept (one exp per neuron and step instead of one per synapse).
    double k_minus_before(step_type t, double dt_ms, double tau_minus) {
        if (t != asked_) answer(t, dt_ms, tau_minus);
        return answer_;
    }

    // Brings the newest spike, where window searches start, towards the cache.
    void prefetch() const {
        if (!entries_.empty()) __builtin_prefetch(&entries_.back());
    }

    std::size_t size() const { return entries_.size() - first_; }
    std::size_t bytes() const { return entries_.capacity() * sizeof(entry); }

private:
    void answer(step_type t, double dt_ms, double tau_minus);

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

// Steps 1 and 2 for one synapse: the weight to deliver a spike with `stamp` over `delay`
// (inline: the engine calls it for every plastic connection a spike reaches).
inline double stdp_pl_weight(double w, const stdp_pre_state& pre, step_type stamp, step_type delay, post_history& post,
                             const stdp_pl_rule& rule, double tau_minus) {
    const stdp_pl_parameters& p = rule.parameters;
    post.read_window(pre.last_stamp - delay, stamp - delay, [&](step_type t_j) {
        // exp((t_last - (t_j + d)) * dt / tau_plus), t_j + d > t_last
        const double decay = rule.plus_decay(t_j + delay - pre.last_stamp);
        w += p.lambda * std::pow(w, p.mu) * pre.k_plus * decay;
    });
    w -= p.lambda * p.alpha * w * post.k_minus_before(stamp - delay, rule.dt_ms, tau_minus);
    return w > 0.0 ? w : 0.0;
}

// Step 4, once per presynaptic spike of the group.
void stdp_pl_advance(stdp_pre_state& pre, step_type stamp, const stdp_pl_rule& rule);

} // namespace spikex
