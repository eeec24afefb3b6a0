#pragma once
// What a model declares about each of its parameters and recordable state variables, once:
// name, unit, default, allowed values and one sentence. The registry entry carries these
// (model_registry.hpp); parsing, validation messages, the Python API's checks, the docs'
// parameter tables and spikex.pynn read them from there.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace spikex {

// The values a parameter allows: an interval (either end open or closed, infinite ends
// allowed) or, when `choices` is not empty, exactly those values (flags: 0 or 1).
struct value_range {
    double low = -std::numeric_limits<double>::infinity();
    double high = std::numeric_limits<double>::infinity();
    bool low_open = false, high_open = false;
    std::vector<double> choices;
    bool finite_only = true; // infinity refused (stop = inf is the one exception)
    bool integer = false;    // whole numbers only (counts)

    bool contains(double x) const;
    // "must be > 0 ms", "must be in [0, 1]", "must be 0 or 1", "" when anything finite goes.
    std::string text(const std::string& unit) const;
};

// Common ranges, named for what they allow.
namespace ranges {
inline value_range any() { return {}; }
inline value_range positive() { return {.low = 0.0, .low_open = true}; }
inline value_range non_negative() { return {.low = 0.0}; }
inline value_range flag() { return {.choices = {0.0, 1.0}}; }
inline value_range non_negative_or_inf() { return {.low = 0.0, .finite_only = false}; }
inline value_range any_or_inf() { return {.finite_only = false}; }
inline value_range count() { return {.low = 0.0, .integer = true}; }
} // namespace ranges

enum class parameter_shape {
    per_cell,      // a number, an array (one per cell) or a distribution
    per_cell_list, // a list of numbers per cell (spike_times, amplitude_times)
};

struct parameter_spec {
    std::string name;
    std::string unit; // "mV", "pF", "ms", "pA", "nS", "Hz", "1" (dimensionless)
    double default_value = 0.0;
    // When the default follows another value, what it is; empty: default_value (every
    // model today: NEST's initial V_m does not follow E_L). A list parameter's default is
    // the empty list.
    std::string default_rule;
    value_range range;
    std::string meaning; // one sentence
    parameter_shape shape = parameter_shape::per_cell;
};

// A recordable state variable (record_state, PyNN's record()).
struct state_spec {
    std::string name;
    std::string unit;
    std::string meaning;
    bool settable = true; // Network.set may set it between runs (as NEST's SetStatus)
    // One per receptor port (model_entry::receptor_ports): recorded as <name>_1, <name>_2, ...
    bool per_port = false;
};

} // namespace spikex
