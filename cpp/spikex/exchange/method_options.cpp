#include "spikex/exchange/method_options.hpp"

#include <cmath>
#include <sstream>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"

namespace spikex {
namespace {

std::string number_text(double x) {
    std::ostringstream out;
    out << x;
    return out.str();
}

bool in_range(const option_spec& spec, double x) {
    if (spec.minimum && (x < *spec.minimum || (spec.exclusive_minimum && x == *spec.minimum))) return false;
    return !spec.maximum || x <= *spec.maximum;
}

std::string range_text(const option_spec& spec) {
    std::string out;
    if (spec.minimum) out += (spec.exclusive_minimum ? "> " : ">= ") + number_text(*spec.minimum);
    if (spec.maximum) out += (out.empty() ? "<= " : " and <= ") + number_text(*spec.maximum);
    return out;
}

} // namespace

std::string option_path(const std::string& name) { return "exchange." + name; }

std::string option_text(const option_value& value) {
    if (const auto* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
    if (const auto* i = std::get_if<std::int64_t>(&value)) return std::to_string(*i);
    if (const auto* d = std::get_if<double>(&value)) return number_text(*d);
    return "\"" + std::get<std::string>(value) + "\"";
}

std::string option_allowed(const option_spec& spec) {
    switch (spec.kind) {
    case option_kind::boolean:
        return "must be true or false";
    case option_kind::choice: {
        std::string out = "must be one of ";
        for (std::size_t k = 0; k < spec.choices.size(); ++k) out += (k ? ", " : "") + option_text(spec.choices[k]);
        return out;
    }
    case option_kind::grid:
        return "must be \"auto\", \"hypercube\" or a list of dimension sizes >= 1, e.g. [4, 2]";
    case option_kind::integer:
    case option_kind::real: {
        std::string bounds = range_text(spec);
        return std::string("must be ") + (spec.kind == option_kind::integer ? "an integer" : "a number") +
               (bounds.empty() ? "" : " " + bounds);
    }
    }
    return "";
}

option_value check_option(const option_spec& spec, const option_value& value) {
    auto refuse = [&]() -> option_value {
        throw user_error(
            spikex::format("{} = {}: {}", option_path(spec.name), option_text(value), option_allowed(spec)));
    };
    switch (spec.kind) {
    case option_kind::boolean:
        return std::holds_alternative<bool>(value) ? value : refuse();
    case option_kind::choice:
        for (const auto& choice: spec.choices) {
            if (choice == value) return value;
        }
        return refuse();
    case option_kind::grid:
        // The route library checks the shape against the rank count (route/process_grid).
        return std::holds_alternative<std::string>(value) ? value : refuse();
    case option_kind::integer: {
        const auto* i = std::get_if<std::int64_t>(&value);
        return i && in_range(spec, double(*i)) ? value : refuse();
    }
    case option_kind::real: {
        double x;
        if (const auto* i = std::get_if<std::int64_t>(&value))
            x = double(*i);
        else if (const auto* d = std::get_if<double>(&value))
            x = *d;
        else
            return refuse();
        return std::isfinite(x) && in_range(spec, x) ? option_value(x) : refuse();
    }
    }
    return refuse();
}

option_reader::option_reader(const std::vector<option_spec>& specs, const option_values& given) {
    for (const auto& spec: specs) {
        auto it = given.find(spec.name);
        values_[spec.name] = it == given.end() ? spec.default_value : check_option(spec, it->second);
    }
}

const option_value& option_reader::value(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end())
        throw internal_error(spikex::format("exchange option \"{}\" is not declared by the method", name));
    return it->second;
}

bool option_reader::boolean(const std::string& name) const { return std::get<bool>(value(name)); }
std::int64_t option_reader::integer(const std::string& name) const { return std::get<std::int64_t>(value(name)); }
double option_reader::real(const std::string& name) const { return std::get<double>(value(name)); }

std::string option_reader::text(const std::string& name) const {
    const option_value& v = value(name);
    if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
    return std::get<std::string>(v);
}

option_spec source_lookup_option() {
    return {.name = "source_lookup",
            .kind = option_kind::choice,
            .default_value = std::string("dense"),
            .doc = "Table that finds whether a received source gid has local targets.",
            .choices = {std::string("dense"), std::string("hash"), std::string("sorted")}};
}

option_spec compress_option() {
    return {.name = "compress",
            .kind = option_kind::choice,
            .default_value = std::string("auto"),
            .doc = "Spikes in the spike wire codec (docs/methods/wire_format.md): allgather about 1.5-2.5 bytes "
                   "per spike in busy blocks and at most ceil((1 + w + b) / 8) in any block (w, b: bit widths of "
                   "cells per rank - 1 and steps per interval - 1; up to 4 bytes for sparse firing on more than "
                   "2^23 / steps cells per rank), where false sends 8-byte (gid, step) entries "
                   "(auto: coded); routed buckets coded, packed at a fixed width per item within 3 bytes on a direct "
                   "grid, else as blocks, about 1.5-3 bytes per item, where false sends "
                   "each item as it is (3-5 bytes, no encode or decode at a hop: cheaper where bytes are cheap; "
                   "auto: coded only when the items take more than 3 bytes, i.e. above about 2^24 for ranks x "
                   "cells x 2 x steps per interval).",
            .choices = {std::string("auto"), true, false}};
}

} // namespace spikex
