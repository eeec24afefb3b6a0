#pragma once
// What one thread of a rank owns: a contiguous block of the rank's cells, their model
// instance, the spikes they emitted in the current step (handed to the exchange by one
// thread at the end of the step) and scratch space for merged and scaled deliveries.
#include <memory>
#include <utility>
#include <vector>

#include "spikex/engine/plasticity.hpp"
#include "spikex/models/cell_group.hpp"

namespace spikex {

struct thread_part final: spike_output {
    local_index first = 0, end = 0; // rank-local cells [first, end)
    std::unique_ptr<cell_group> cells;
    std::vector<std::pair<local_index, step_type>> emitted;
    std::size_t next_emitted = 0; // finish_steps: the first not handed over yet
    std::vector<std::uint32_t> merge_scratch;
    std::vector<double> scaled_weights; // a short-term group's weights times its factor, a stochastic one's crossing
    std::vector<local_index> target_scratch;      // a piece of a group's 2-byte targets, widened
    std::vector<local_index> transmitted_targets; // the targets a stochastic group's spike crosses to
    plasticity* plastic = nullptr;

    void emit(local_index cell, step_type step) override {
        emitted.emplace_back(cell, step);
        plastic->post_spike(cell, step); // the cell is this thread's: no race
    }
};

} // namespace spikex
