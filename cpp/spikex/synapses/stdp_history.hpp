#pragma once
// What every spike-pair STDP rule needs besides its weight update: the presynaptic trace of
// a delay group, the spike history of a postsynaptic neuron with its trace K-, and a table
// of exp(-k*dt/tau) for whole steps. Times are NEST time stamps in steps: a spike emitted in
// the update of step n carries stamp n + 1 (pre and post alike, so only differences matter).
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "spikex/core/types.hpp"

namespace spikex {

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

// Spike history of one postsynaptic neuron: stamps and K- just after each spike. An entry
// goes once every plastic input has read it and a later spike is more than the maximum
// delay older than the newest one (so K- lookups still find their predecessor), as NEST's
// archiving node does.
class post_history {
public:
    struct entry {
        step_type stamp;
        double k_minus;
        std::uint32_t reads;
    };
    post_history() = default;
    // A history as a checkpoint kept it: K-, the last stamp and the live entries.
    post_history(double k_minus, step_type last, std::vector<entry> entries):
        entries_(std::move(entries)), k_minus_(k_minus), last_(last) {}

    // A spike with `stamp`; `incoming` plastic connections read the history.
    void record(step_type stamp, double dt_ms, double tau_minus, std::uint32_t incoming, step_type max_delay);

    // Whether a spike is kept with a stamp after t (read_window(t, ...) may find one).
    bool spiked_after(step_type t) const { return last_ > t && !entries_.empty(); }

    // Calls f(stamp) for each spike with stamp in (t1, t2], oldest first, counting the read.
    // Windows end near the newest spike (t2 = now - delay): the start is found from there
    // backwards, in as many steps as the window has spikes, not the history.
    template <typename F>
    void read_window(step_type t1, step_type t2, F&& f) {
        if (last_ <= t1) return; // no spike after t1 (a third of the windows): the entries stay in memory
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

    std::size_t size() const { return entries_.size() - first_; }
    double k_minus() const { return k_minus_; }
    step_type last() const { return last_; }
    template <typename F>
    void for_each_live(F&& f) const {
        for (std::size_t i = first_; i < entries_.size(); ++i)
            f(entries_[i].stamp, entries_[i].k_minus, entries_[i].reads);
    }
    std::size_t bytes() const { return entries_.capacity() * sizeof(entry); }

private:
    void answer(step_type t, double dt_ms, double tau_minus);

    std::vector<entry> entries_;
    std::size_t first_ = 0; // live entries are [first_, end)
    double k_minus_ = 0.0;
    step_type last_ = 0;
    step_type asked_ = -1; // stamp of the kept K- answer (-1: none)
    double answer_ = 0.0;
};

// Presynaptic trace of a delay group's synapses. K+ and t_last depend only on the
// presynaptic spike times, so all synapses of one source and delay share them (per delay
// group, not per synapse as in NEST).
struct stdp_pre_state {
    double k_plus = 0.0;
    step_type last_stamp = 0;
};

// Once per presynaptic spike of a group, after its weights are updated:
// K+ = K+ * exp((t_last - t) / tau_plus) + 1; t_last = t.
void stdp_pre_advance(stdp_pre_state& pre, step_type stamp, double dt_ms, double tau_plus);

} // namespace spikex
