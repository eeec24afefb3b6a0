#pragma once
// A per-cell parameter or initial value: one number for every cell, one number per cell
// (an array over the population), or a draw per cell from a distribution keyed by
// (seed, gid, parameter name) — so a cell's value never depends on P, T or the layout.
//
// Stream of a drawn parameter: random_stream(seed, gid, purpose::parameters,
// parameter_substream(name)); the cell's value is the first draw of that stream.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "spikex/core/types.hpp"
#include "spikex/network/random_distribution.hpp"

namespace spikex {

struct parameter_value {
    random_distribution distribution; // constant for a plain number
    std::vector<double> values;       // when not empty: one value per cell of the population

    static parameter_value constant(double v) { return {random_distribution::constant(v), {}}; }
    bool is_constant() const { return values.empty() && distribution.is_constant(); }
};

using parameter_map = std::map<std::string, parameter_value>;

// Plain numbers as parameter values.
inline parameter_map constant_parameter_map(const std::map<std::string, double>& numbers) {
    parameter_map out;
    for (const auto& [name, v]: numbers) out[name] = parameter_value::constant(v);
    return out;
}

// Sub-stream of a parameter's draws: FNV-1a (32 bit) of its name.
std::uint32_t parameter_substream(const std::string& name);

} // namespace spikex
