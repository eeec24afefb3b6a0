#pragma once
// Every neuron model and device, one entry each: the one place that knows them. The engine,
// the Python bindings (spikex.models), validation messages and the docs index read it.
//
// A model's factory builds the group of its cells among `local_gids` (ascending gids of
// this model only, rank-local indices first_local, first_local + 1, ...). Its parameters
// are per population (network_spec::populations, parameter_value: a number, an array or a
// distribution; cell_parameters resolves them per cell).
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "spikex/models/cell_group.hpp"
#include "spikex/models/input_device.hpp"
#include "spikex/models/parameter_spec.hpp"

namespace spikex {

enum class model_kind {
    neuron,       // integrates input, emits spikes through the exchange
    spike_source, // emits spikes through the exchange, takes no input (spike_source_array)
    input_device  // drives its targets directly on their rank (poisson_generator, dc_generator)
};

// What an input device gives its targets (engine/device_inputs.hpp).
enum class device_output {
    none,         // not an input device
    spike_train,  // an independent Poisson train per target (poisson_generator)
    current,      // a current, its level times the connection weight (dc_, step_current_, ac_generator)
    noise_current // an independent noisy current per target times the weight (noise_generator)
};

struct model_entry {
    std::string name;
    model_kind kind = model_kind::neuron;
    std::string description;                // one sentence
    std::vector<parameter_spec> parameters; // accepted parameters, each with its spec
    std::vector<state_spec> state;          // recordable with record_state
    bool accepts_current = false;           // current inputs (current, noise_current) allowed
    device_output output = device_output::none;
    std::vector<std::string> checkpoint_state; // what cell_group::save_cell writes per cell
    std::string receptors;                     // the inputs a neuron takes, one sentence ("" for devices)
    // Models with receptor ports (NEST's multisynapse models): the number of ports of a
    // population's cells (every cell has the same). A connection names its port with its
    // projection's `receptor` (1 .. count, NEST's receptor_type); 0 (none named) is refused.
    // Empty for models without ports: they take receptor 0 only, the weight's sign choosing.
    std::function<std::uint32_t(const population_spec&)> receptor_ports;
    // The ports' names where the model names them (NESTML's receptor types: port k is
    // receptor_port_names[k - 1], as PyNN's receptor_type); empty where a parameter list
    // numbers them (the multisynapse models).
    std::vector<std::string> receptor_port_names;
    std::string integration;             // how its dynamics are integrated, one phrase
    std::string nest_model;              // NEST 3.10's model it matches ("" if none): defaults checked against it
    std::vector<std::string> pynn_types; // PyNN standard types spikex.pynn maps onto it
    std::string docs_page;               // docs/models/<name>.md
    std::function<std::unique_ptr<cell_group>(const network_spec&, const std::vector<gid_type>& local_gids,
                                              local_index first_local)>
        make;
    // Input devices: what device `gid` of a population gives its targets at step h.
    std::function<device_schedule(const population_spec&, gid_type gid, std::uint32_t seed, double h)> schedule;

    std::vector<std::string> parameter_names() const;
    std::vector<std::string> state_names() const; // per_port states as "<name>_<port>"
    // The recordable names of a population's cells: state_names() with every per_port
    // state expanded to <name>_1 .. <name>_<ports> (NEST's I_syn_1, g_1, ...).
    std::vector<std::string> state_names(const population_spec& pop) const;
    // The spec of a recordable name of a population's cells ("V_m", "g_2"), nullptr if none.
    const state_spec* state_of(const std::string& recorded, const population_spec& pop) const;
    const parameter_spec* parameter(const std::string& parameter_name) const; // nullptr if none
};

// Every model: the built-in ones, then those registered at run time (register_model, from
// a model library: models/model_library.hpp). A deque, so that an entry found once stays
// where it is when more are registered. Registration happens before a network is built
// (loading a model library); lookups during a run only read.
const std::deque<model_entry>& model_registry();
// Adds a model at run time (a generated model library's registration function calls it).
// user_error when a model of that name exists. Serialised by a mutex.
void register_model(model_entry entry);
// The model of every cell of a network_spec without populations (the C++ tests' networks
// of Hines et al.'s cells).
inline constexpr const char* model_without_populations = "interval_fire";
// user_error naming the model and the allowed names when unknown.
const model_entry& find_model(const std::string& name);

} // namespace spikex
