#pragma once
// Options of an exchange method: what each key of [exchange] accepts (option_spec) and
// the values a run gives (option_values). A method declares its options in its registry
// entry (method_registry.hpp); the Python configuration registry, the CLI help and
// docs/user/config.md are generated from the same declarations, so a key's type, default,
// range and sentence exist once.
//
// Values are checked here too (option_reader), because the Python API reaches the core
// without the configuration layer: a bad value is a user_error naming `exchange.KEY`.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace spikex {

// bool, integer, real, or text (choice names; a process-grid shape as "auto",
// "hypercube" or "[4, 2]").
using option_value = std::variant<bool, std::int64_t, double, std::string>;
using option_values = std::map<std::string, option_value>;

enum class option_kind { boolean, integer, real, choice, grid };

struct option_spec {
    std::string name; // key in [exchange]
    option_kind kind = option_kind::integer;
    option_value default_value;
    std::string doc; // one sentence, without the owning methods (the docs add them)
    std::optional<double> minimum, maximum;
    bool exclusive_minimum = false;
    std::vector<option_value> choices; // option_kind::choice: the allowed values
    // A variant option changes the algorithm (sub-intervals, phases): a run whose method
    // does not own it must leave it at its default. Other options of other methods are
    // ignored, so one configuration can be run with every method.
    bool variant = false;
};

// "exchange.KEY"
std::string option_path(const std::string& name);
// A value as the configuration writes it: true, 3, 0.5, "auto".
std::string option_text(const option_value& value);
// What the spec allows, e.g. "must be an integer >= 1".
std::string option_allowed(const option_spec& spec);

// Throws user_error ("exchange.KEY = VALUE: must be ...") unless `value` fits `spec`;
// returns it normalised (an integer given for a real becomes a double).
option_value check_option(const option_spec& spec, const option_value& value);

// The values of one method's options: given values checked against their specs, defaults
// for the rest. Keys that are not the method's own are ignored (see option_spec::variant).
class option_reader {
public:
    option_reader(const std::vector<option_spec>& specs, const option_values& given);

    bool boolean(const std::string& name) const;
    std::int64_t integer(const std::string& name) const;
    double real(const std::string& name) const;
    std::string text(const std::string& name) const; // choice or grid, as text (true -> "true")

private:
    const option_value& value(const std::string& name) const;
    option_values values_;
};

// Options several method families share.
option_spec source_lookup_option(); // allgather, point-to-point, routed
option_spec compress_option();      // allgather, routed: the spike wire codec or items as they are

} // namespace spikex
