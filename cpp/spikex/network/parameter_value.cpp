#include "spikex/network/parameter_value.hpp"
#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/network/network_spec.hpp"

namespace spikex {

std::uint32_t parameter_substream(const std::string& name) {
    std::uint32_t h = 2166136261u;
    for (unsigned char c: name) {
        h ^= c;
        h *= 16777619u;
    }
    return h;
}

std::map<std::string, double> cell_parameters(const population_spec& pop, gid_type gid, std::uint32_t seed) {
    std::map<std::string, double> out;
    for (const auto& [name, value]: pop.params) {
        if (!value.values.empty()) {
            out[name] = value.values.at(gid - pop.first);
        } else if (value.distribution.is_constant()) {
            out[name] = value.distribution.value;
        } else {
            random_stream stream(seed, gid, purpose::parameters, parameter_substream(name));
            out[name] = draw(value.distribution, stream);
        }
    }
    return out;
}

std::map<std::string, double> constant_parameters(const population_spec& pop) {
    std::map<std::string, double> out;
    for (const auto& [name, value]: pop.params) {
        if (!value.is_constant()) {
            throw user_error(spikex::format("{} parameter {}: must be one number for the whole population "
                                            "({} takes no per-cell values or distributions)",
                                            pop.model, name, pop.model));
        }
        out[name] = value.distribution.value;
    }
    return out;
}

bool uniform_parameters(const population_spec& pop) {
    for (const auto& [name, value]: pop.params) {
        if (!value.is_constant()) return false;
    }
    return true;
}

const population_spec& network_spec::population_of(gid_type gid) const {
    // Populations are contiguous and in gid order.
    std::size_t lo = 0, hi = populations.size();
    while (lo < hi) {
        std::size_t mid = (lo + hi) / 2;
        if (populations[mid].first + populations[mid].size <= gid)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == populations.size() || !populations[lo].contains(gid)) {
        throw user_error(spikex::format("gid {} is in no population (the network has {} cells)", gid, cells()));
    }
    return populations[lo];
}

} // namespace spikex
