#pragma once
// Reading a model's parameters from name -> number maps, with the one wording of the
// errors: "<model> parameter <name> = <value>: <what is allowed>" and
// "<model> parameter "<name>" is unknown: allowed are <names>".
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"

namespace spikex::model_parameters {

// A value as users wrote it (17 significant digits, no trailing zeros).
inline std::string number(double x) {
    std::ostringstream s;
    s.precision(17);
    s << x;
    return s.str();
}

template <class P>
struct field {
    const char* name;
    double P::*member;
};

inline std::string joined(const std::vector<std::string>& names) {
    std::string s;
    for (const auto& n: names) s += (s.empty() ? "" : ", ") + n;
    return s;
}

// Stores every value in its field: user_error for an unknown name (listing `allowed`, the
// model's names) or a value that is not finite. Returns the names given.
template <class P>
std::set<std::string> assign(const std::string& model, P& p, const std::vector<field<P>>& fields,
                             const std::vector<std::string>& allowed, const std::map<std::string, double>& values) {
    std::set<std::string> given;
    for (const auto& [name, value]: values) {
        const field<P>* f = nullptr;
        for (const auto& candidate: fields)
            if (name == candidate.name) f = &candidate;
        if (!f) {
            throw user_error(
                spikex::format("{} parameter \"{}\" is unknown: allowed are {}", model, name, joined(allowed)));
        }
        if (!std::isfinite(value)) {
            throw user_error(
                spikex::format("{} parameter {} = {}: must be a finite number", model, name, number(value)));
        }
        p.*(f->member) = value;
        given.insert(name);
    }
    return given;
}

// user_error "<model> parameter <name> = <value>: <allowed>" unless ok.
inline void require(bool ok, const std::string& model, const std::string& name, double value,
                    const std::string& allowed) {
    if (!ok) throw user_error(spikex::format("{} parameter {} = {}: {}", model, name, number(value), allowed));
}

} // namespace spikex::model_parameters
