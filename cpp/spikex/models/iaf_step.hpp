#pragma once
// What the iaf models' end_step shares after their own update: NEST's current buffer
// (I_stim) and the threshold test with reset and refractoriness.
#include <algorithm>
#include <cstdint>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

// Whether one of v[0 .. count-1] is >= theta: two cells per SSE2 compare (the x86-64
// baseline; GCC leaves the loop below scalar, a compare and a dependent or per cell).
inline bool any_at_least(const double* v, local_index count, double theta) {
    local_index i = 0;
#if defined(__SSE2__)
    const __m128d limit = _mm_set1_pd(theta);
    __m128d crossed = _mm_setzero_pd();
    for (; i + 2 <= count; i += 2) crossed = _mm_or_pd(crossed, _mm_cmpge_pd(_mm_loadu_pd(v + i), limit));
    if (_mm_movemask_pd(crossed) != 0) return true;
#endif
    bool crossed_tail = false;
    for (; i < count; ++i) crossed_tail |= v[i] >= theta;
    return crossed_tail;
}

// NEST's threshold step: V >= theta -> refractory for the set's steps, V = V_reset, spike
// at step n. Cells in runs of one parameter set (Set: theta, V_reset, q.refractory_steps,
// all relative to E_L like V).
template <typename Run, typename Set>
void fire_crossings(const std::vector<Run>& runs, const std::vector<Set>& sets, double* V, std::int32_t* refractory,
                    local_index first_local, step_type n, spike_output& out) {
    // A piece of cells is looked at only when one of them crossed: the test of the piece is
    // a branch-free reduction the compiler vectorises, where a branch per cell costs a
    // compare and a jump each (a third of a small network's update).
    constexpr local_index piece = 32;
    for (const auto& run: runs) {
        const Set& s = sets[run.set];
        const double theta = s.theta;
        for (local_index first = run.begin; first < run.end; first += piece) {
            const local_index last = std::min(first + piece, run.end);
            if (!any_at_least(V + first, last - first, theta)) continue;
            for (local_index i = first; i < last; ++i) {
                if (V[i] >= theta) {
                    refractory[i] = s.q.refractory_steps;
                    V[i] = s.V_reset;
                    out.emit(first_local + i, n);
                }
            }
        }
    }
}

} // namespace spikex::iaf_step
