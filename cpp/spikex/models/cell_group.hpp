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

    // Input of one weight over `count` connections to targets[0..count) (a delay group
    // whose synapses share their weight): the same as deliver() with that weight for each.
    // Models may do it faster; the default fills a buffer.
    virtual void deliver_uniform(step_type n, const local_index* targets, std::uint32_t count, double weight,
                                 spike_output& out) {
        uniform_scratch_.assign(count, weight);
        deliver(n, targets, uniform_scratch_.data(), 0, count, out);
    }

    // The same two with 2-byte targets (connection_table::narrow_targets): by default
    // widened into a buffer and handed to deliver() / deliver_uniform(); the models on the
    // hot path read them directly (cell_group_of_both_widths).
    virtual void deliver_narrow(step_type n, const narrow_target* targets, const double* weights, std::uint32_t begin,
                                std::uint32_t end, spike_output& out) {
        narrow_scratch_.assign(targets + begin, targets + end);
        deliver(n, narrow_scratch_.data(), weights + begin, 0, end - begin, out);
    }
    virtual void deliver_uniform_narrow(step_type n, const narrow_target* targets, std::uint32_t count, double weight,
                                        spike_output& out) {
        narrow_scratch_.assign(targets, targets + count);
        deliver_uniform(n, narrow_scratch_.data(), count, weight, out);
    }
    // And with byte targets (connection_table::byte_targets): target c is base + targets[c].
    virtual void deliver_bytes(step_type n, local_index base, const std::uint8_t* targets, const double* weights,
                               std::uint32_t begin, std::uint32_t end, spike_output& out) {
        narrow_scratch_.resize(end - begin);
        for (std::uint32_t c = begin; c < end; ++c) narrow_scratch_[c - begin] = base + targets[c];
        deliver(n, narrow_scratch_.data(), weights + begin, 0, end - begin, out);
    }
    virtual void deliver_uniform_bytes(step_type n, local_index base, const std::uint8_t* targets, std::uint32_t count,
                                       double weight, spike_output& out) {
        narrow_scratch_.resize(count);
        for (std::uint32_t c = 0; c < count; ++c) narrow_scratch_[c] = base + targets[c];
        deliver_uniform(n, narrow_scratch_.data(), count, weight, out);
    }

    // Synaptic input at step n through receptor port `port` (1, 2, ...: NEST's
    // receptor_type) of a model with receptor ports (model_entry::receptor_ports, NEST's
    // multisynapse models): the same rules as deliver(). The build refuses ports a model
    // does not have, so the default is never reached.
    virtual void deliver_port(std::uint32_t port, step_type n, const local_index* targets, const double* weights,
                              std::uint32_t begin, std::uint32_t end, spike_output& out);
    // deliver_uniform() through a port; the default fills a buffer.
    virtual void deliver_uniform_port(std::uint32_t port, step_type n, const local_index* targets, std::uint32_t count,
                                      double weight, spike_output& out) {
        uniform_scratch_.assign(count, weight);
        deliver_port(port, n, targets, uniform_scratch_.data(), 0, count, out);
    }

    // A current input (a dc_generator's, times its connection weight) [pA] for step n:
    // what NEST reads from the neuron's current buffer at step n (it acts on V from step
    // n + 1). Called before end_step(n); the currents of one step add up. Models without
    // a membrane current refuse it at build time (accepts_current).
    virtual void deliver_current(step_type, local_index, double) {}

    // Work after synaptic input (a time-driven cell's update). Default: nothing.
    virtual void end_step(step_type, spike_output&) {}

    // A state variable of a cell after the last end_step (for recording); the names are the
    // model's state_variables in its registry entry. user_error for an unknown name.
    virtual double state(local_index cell, const std::string& variable) const;

    // Sets a state variable of a cell between two steps (a change between runs, NEST's
    // SetStatus): one of the recordable names the model allows setting. user_error
    // otherwise.
    virtual void set_state(local_index cell, const std::string& variable, double value);

    virtual std::size_t bytes() const = 0;

    // Checkpoints: the state of one cell between two steps, as the values its model's
    // registry entry names (model_entry::checkpoint_state), in that order; integers are
    // stored as doubles (exact below 2^53). load_cell sets a cell of a freshly built group
    // (inputs of the step are zero between steps, so they are not state); after_load runs
    // once when every cell is set. A model without run-time state keeps the defaults.
    virtual void save_cell(local_index, double*) const {}
    virtual void load_cell(local_index, const double*) {}
    virtual void after_load() {}

private:
    std::vector<double> uniform_scratch_;
    std::vector<local_index> narrow_scratch_;
};

// Byte targets as the models' input loops read them: targets[c] is base + low[c].
struct paged_byte_targets {
    const std::uint8_t* low;
    local_index base;
    local_index operator[](std::uint32_t c) const { return base + low[c]; }
};

// A model whose input loops are templates over the targets' type (anything indexed by
// position: a pointer or paged_byte_targets), deliver_to(n, targets, weights, begin, end,
// out) and deliver_uniform_to(n, targets, count, weight, out), takes 4-, 2- and 1-byte
// targets from the one body (CRTP: class m : public cell_group_of_both_widths<m>, or
// <m, its_interface> for a model's own cell_group interface).
template <class Model, class Base = cell_group>
class cell_group_of_both_widths: public Base {
public:
    void deliver_bytes(step_type n, local_index base, const std::uint8_t* targets, const double* weights,
                       std::uint32_t begin, std::uint32_t end, spike_output& out) override {
        self().deliver_to(n, paged_byte_targets{targets, base}, weights, begin, end, out);
    }
    void deliver_uniform_bytes(step_type n, local_index base, const std::uint8_t* targets, std::uint32_t count,
                               double weight, spike_output& out) override {
        self().deliver_uniform_to(n, paged_byte_targets{targets, base}, count, weight, out);
    }
    void deliver(step_type n, const local_index* targets, const double* weights, std::uint32_t begin, std::uint32_t end,
                 spike_output& out) override {
        self().deliver_to(n, targets, weights, begin, end, out);
    }
    void deliver_narrow(step_type n, const narrow_target* targets, const double* weights, std::uint32_t begin,
                        std::uint32_t end, spike_output& out) override {
        self().deliver_to(n, targets, weights, begin, end, out);
    }
    void deliver_uniform(step_type n, const local_index* targets, std::uint32_t count, double weight,
                         spike_output& out) override {
        self().deliver_uniform_to(n, targets, count, weight, out);
    }
    void deliver_uniform_narrow(step_type n, const narrow_target* targets, std::uint32_t count, double weight,
                                spike_output& out) override {
        self().deliver_uniform_to(n, targets, count, weight, out);
    }

private:
    Model& self() { return static_cast<Model&>(*this); }
};

// Cells `local_gids` (ascending) of the populations of `spec`: a contiguous block of the
// rank's cells (all of them, or one thread's share), whose rank-local indices are
// first_local, first_local + 1, ... in this order. Targets handed to deliver() and cells
// reported to emit() are rank-local indices. The cells may belong to populations of
// different models: each model's cells get their own group (model_registry.hpp).
// user_error for unknown models, unknown or invalid parameters.
std::unique_ptr<cell_group> make_cell_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                            local_index first_local = 0);

// Parameter names a model accepts (for validation messages).
std::vector<std::string> model_parameter_names(const std::string& model);

} // namespace spikex
