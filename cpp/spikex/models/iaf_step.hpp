#pragma once
// What the iaf models' end_step shares after their own update: NEST's current buffer
// (I_stim) and the threshold test with reset and refractoriness.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "spikex/models/cell_group.hpp"

namespace spikex::iaf_step {

// Current inputs (dc_generator): what arrives for step n is read at the end of step n and
// acts on V from step n + 1, as NEST's I_stim. Empty (and free) until the first input.
class current_buffer {
public:
    void add(std::size_t cells, std::size_t i, double pA) {
        if (next_.empty()) { // the first current input: from now on I_stim is read
            now_.assign(cells, 0.0);
            next_.assign(cells, 0.0);
        }
        next_[i] += pA;
    }
    bool active() const { return !now_.empty(); }
    const double* now() const { return now_.empty() ? nullptr : now_.data(); } // I_stim of this update
    // After the update of a step: the inputs of the step become I_stim.
    void advance() {
        if (now_.empty()) return;
        now_.swap(next_);
        std::fill(next_.begin(), next_.end(), 0.0);
    }
    std::size_t bytes() const { return (now_.capacity() + next_.capacity()) * sizeof(double); }
    // Checkpoints: I_stim of cell i (0 while inactive), and setting it back (activates).
    double stim(std::size_t i) const { return now_.empty() ? 0.0 : now_[i]; }
    void restore(std::size_t cells, std::size_t i, double pA) {
        if (now_.empty()) {
            now_.assign(cells, 0.0);
            next_.assign(cells, 0.0);
        }
        now_[i] = pA;
    }

private:
    std::vector<double> now_, next_;
};

// NEST's threshold step: V >= theta -> refractory for the set's steps, V = V_reset, spike
// at step n. Cells in runs of one parameter set (Set: theta, V_reset, q.refractory_steps,
// all relative to E_L like V).
template <typename Run, typename Set>
void fire_crossings(const std::vector<Run>& runs, const std::vector<Set>& sets, double* V, std::int32_t* refractory,
                    local_index first_local, step_type n, spike_output& out) {
    for (const auto& run: runs) {
        const Set& s = sets[run.set];
        for (local_index i = run.begin; i < run.end; ++i) {
            if (V[i] >= s.theta) {
                refractory[i] = s.q.refractory_steps;
                V[i] = s.V_reset;
                out.emit(first_local + i, n);
            }
        }
    }
}

} // namespace spikex::iaf_step
