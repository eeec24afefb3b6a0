#include "spikex/models/parameter_spec.hpp"

#include <sstream>

namespace spikex {
namespace {

std::string shown(double x) {
    if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
    std::ostringstream s;
    s.precision(17);
    s << x;
    return s.str();
}

} // namespace

bool value_range::contains(double x) const {
    if (std::isnan(x) || (finite_only && !std::isfinite(x))) return false;
    if (integer && x != std::floor(x)) return false;
    if (!choices.empty()) {
        for (double c: choices)
            if (x == c) return true;
        return false;
    }
    const bool above = low_open ? x > low : x >= low;
    const bool below = high_open ? x < high : x <= high;
    return above && below;
}

std::string value_range::text(const std::string& unit) const {
    const std::string u = unit.empty() || unit == "1" ? "" : " " + unit;
    if (!choices.empty()) {
        std::string s = "must be ";
        for (std::size_t i = 0; i < choices.size(); ++i)
            s += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + shown(choices[i]);
        if (choices == std::vector<double>{0.0, 1.0}) s += " (false or true)";
        return s;
    }
    const bool has_low = std::isfinite(low), has_high = std::isfinite(high);
    if (integer && has_low && !has_high) return "must be an integer >= " + shown(low);
    if (has_low && has_high) {
        return std::string(integer ? "must be an integer in " : "must be in ") + std::string(low_open ? "(" : "[") +
               shown(low) + ", " + shown(high) + (high_open ? ")" : "]") + u;
    }
    if (has_low) return std::string("must be ") + (low_open ? "> " : ">= ") + shown(low) + u;
    if (has_high) return std::string("must be ") + (high_open ? "< " : "<= ") + shown(high) + u;
    if (integer) return "must be an integer";
    return "";
}

} // namespace spikex
