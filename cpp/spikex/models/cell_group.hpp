#pragma once
// The cells of one rank as the engine drives them. Models never see MPI or exchanges:
// they receive synaptic input in canonical order and report spikes to a spike_output.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "spikex/core/types.hpp"
#include "spikex/network/network_spec.hpp"

namespace spikex {

class spike_output {
public:
    virtual ~spike_output() = default;
    virtual void emit(local_index cell, step_type step) = 0;
};

class cell_group {
public:
    virtual ~cell_group() = default;

    // Work due at step n before synaptic input (an event-driven cell's self-event).
    virtual void begin_step(step_type n, spike_output& out) = 0;

    // Synaptic input at step n: connections [begin, end) of the rank's connection arrays,
    // already in canonical order.
    virtual void deliver(step_type n, const local_index* targets, const double* weights, std::uint32_t begin,
                         std::uint32_t end, spike_output& out) = 0;

    // Work after synaptic input (a time-driven cell's update). Default: nothing.
    virtual void end_step(step_type, spike_output&) {}

    virtual std::size_t bytes() const = 0;
};

// Cells `local_gids` of the populations `spec`: a contiguous block of the rank's cells
// (all of them, or one thread's share), whose rank-local indices are first_local,
// first_local + 1, ... in this order. Targets handed to deliver() and cells reported to
// emit() are rank-local indices. user_error for unknown models, unknown or invalid
// parameters.
std::unique_ptr<cell_group> make_cell_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                            local_index first_local = 0);

// Parameter names a model accepts (for validation messages).
std::vector<std::string> model_parameter_names(const std::string& model);

} // namespace spikex
