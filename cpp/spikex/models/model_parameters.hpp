#pragma once
// Reading a model's parameters from name -> number maps through its parameter table
// (parameter_spec.hpp), with the one wording of the errors:
// "<model> parameter <name> = <value>: <what is allowed>" and
// "<model> parameter "<name>" is unknown: allowed are <names>".
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/models/parameter_spec.hpp"

namespace spikex::model_parameters {

// A value as users wrote it: the shortest decimal that reads back as the same double
// (-50.4, not -50.399999999999999; 1e-06).
inline std::string number(double x) {
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, x).ptr;
    return std::string(text, end);
}

inline std::string joined(const std::vector<std::string>& names) {
    std::string s;
    for (const auto& n: names) s += (s.empty() ? "" : ", ") + n;
    return s;
}

// One line of a model's parameter table: the spec and where the value goes. The struct's
// members need no initialisers: parse() starts from the specs' defaults.
template <class P>
struct field {
    parameter_spec spec;
    double P::*member;
};

template <class P>
std::vector<parameter_spec> specs_of(const std::vector<field<P>>& table) {
    std::vector<parameter_spec> out;
    for (const auto& f: table) out.push_back(f.spec);
    return out;
}

// user_error "<model> parameter <name> = <value>: <allowed>" unless `spec` allows value.
inline void check(const std::string& model, const parameter_spec& spec, double value) {
    if (spec.range.contains(value)) return;
    const std::string allowed = spec.range.text(spec.unit);
    throw user_error(spikex::format("{} parameter {} = {}: {}", model, spec.name, number(value),
                                    allowed.empty() ? "must be a finite number" : allowed));
}

// user_error naming the model's parameters when `name` is none of them.
inline const parameter_spec& find(const std::string& model, const std::vector<parameter_spec>& specs,
                                  const std::string& name) {
    for (const auto& s: specs)
        if (s.name == name) return s;
    std::vector<std::string> allowed;
    for (const auto& s: specs) allowed.push_back(s.name);
    throw user_error(spikex::format("{} parameter \"{}\" is unknown: allowed are {}", model, name, joined(allowed)));
}

// Parameters from a name -> number map: every default from the table, then every given
// value, each checked against its range. `given` receives the names given (for a model
// whose default follows another value).
template <class P>
P parse(const std::string& model, const std::vector<field<P>>& table, const std::map<std::string, double>& values,
        std::set<std::string>* given = nullptr) {
    P p{};
    for (const auto& f: table) p.*(f.member) = f.spec.default_value;
    for (const auto& [name, value]: values) {
        const field<P>* f = nullptr;
        for (const auto& candidate: table)
            if (name == candidate.spec.name) f = &candidate;
        if (!f) find(model, specs_of(table), name); // throws
        check(model, f->spec, value);
        p.*(f->member) = value;
        if (given) given->insert(name);
    }
    return p;
}

// user_error unless the step is positive (a model's propagators need h > 0).
inline void require_positive_dt(const std::string& model, double dt_ms) {
    if (!(dt_ms > 0)) throw user_error(spikex::format("{}: dt = {} ms: must be > 0", model, number(dt_ms)));
}

// user_error for a state variable the model does not record.
[[noreturn]] inline void unknown_state(const std::string& model, const std::vector<state_spec>& state,
                                       const std::string& variable) {
    std::vector<std::string> allowed;
    for (const auto& v: state) allowed.push_back(v.name);
    throw user_error(
        spikex::format("{} has no state variable \"{}\": allowed are {}", model, variable, joined(allowed)));
}

// user_error "<model> parameter <name> = <value>: <allowed>" unless ok (relations between
// parameters, which a range cannot say).
inline void require(bool ok, const std::string& model, const std::string& name, double value,
                    const std::string& allowed) {
    if (!ok) throw user_error(spikex::format("{} parameter {} = {}: {}", model, name, number(value), allowed));
}

} // namespace spikex::model_parameters
