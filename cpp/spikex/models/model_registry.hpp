#pragma once
// Every neuron model and device, one entry each: the one place that knows them. The engine,
// the Python bindings (spikex.models), validation messages and the docs index read it.
//
// A model's factory builds the group of its cells among `local_gids` (ascending gids of
// this model only, rank-local indices first_local, first_local + 1, ...). Its parameters
// are per population (network_spec::populations, parameter_value: a number, an array or a
// distribution; cell_parameters resolves them per cell).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "spikex/models/cell_group.hpp"

namespace spikex {

enum class model_kind {
    neuron,       // integrates input, emits spikes through the exchange
    spike_source, // emits spikes through the exchange, takes no input (spike_source_array)
    input_device  // drives its targets directly on their rank (poisson_generator, dc_generator)
};

struct model_entry {
    std::string name;
    model_kind kind = model_kind::neuron;
    std::string description;                   // one sentence
    std::vector<std::string> parameters;       // accepted parameter names
    std::vector<std::string> state_variables;  // recordable with record_state
    bool accepts_current = false;              // dc_generator targets allowed
    std::vector<std::string> checkpoint_state; // what cell_group::save_cell writes per cell
    std::string docs_page;                     // docs/models/<name>.md
    std::function<std::unique_ptr<cell_group>(const network_spec&, const std::vector<gid_type>& local_gids,
                                              local_index first_local)>
        make;
};

const std::vector<model_entry>& model_registry();
// user_error naming the model and the allowed names when unknown.
const model_entry& find_model(const std::string& name);

} // namespace spikex
