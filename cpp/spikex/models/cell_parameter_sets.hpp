#pragma once
// The parameters of one model's cells, resolved per cell and shared by parameter sets.
//
// A population's parameters are numbers, arrays or distributions (parameter_value). A
// uniform population is parsed once; otherwise each cell's values come from
// cell_parameters(pop, gid, seed), which depends on the gid only, so a cell gets the same
// values whatever the rank, thread or group it lands in. Cells whose dynamics are equal
// (the model's key) share one parameter set, and the cells of a group form runs of
// consecutive cells with one set: a uniform population costs one set and one run, and the
// vectorised updates loop over runs.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/network/network_spec.hpp"

namespace spikex {

struct cell_run {
    local_index begin, end; // group-local indices [begin, end)
    std::uint32_t set;
};

// The set of group-local cell i among `runs` (internal_error naming `model` when no run
// holds it).
inline std::uint32_t set_index_of(const std::vector<cell_run>& runs, local_index i, const char* model) {
    auto run =
        std::upper_bound(runs.begin(), runs.end(), i, [](local_index x, const cell_run& r) { return x < r.end; });
    if (run == runs.end() || i < run->begin) {
        throw internal_error(spikex::format("{}: cell {} is not in this group", model, i));
    }
    return run->set;
}

template <class Parameters>
struct cell_parameter_sets {
    std::vector<Parameters> sets; // the parameters of the first cell seen with each dynamics
    std::vector<cell_run> runs;   // covering the group's cells in order
};

// Resolves the parameters of the cells `gids` (cells of populations of `model` only) of
// `spec`. parse(pop, values) turns a name -> number map into Parameters (user_error for a
// bad value); key(p) gives the dynamics as a comparable value (std::array of doubles);
// on_cell(i, p, set) is called for every cell i (group-local, in order) with its own
// parameters (initial values may differ within a set) and its set index. A per-cell value
// that parse refuses is reported with the cell's gid.
template <class Parameters, class Parse, class Key, class OnCell>
cell_parameter_sets<Parameters> resolve_cell_parameters(const network_spec& spec, const std::string& model,
                                                        const std::vector<gid_type>& gids, Parse parse, Key key,
                                                        OnCell on_cell) {
    cell_parameter_sets<Parameters> out;
    using key_type = decltype(key(std::declval<const Parameters&>()));
    std::map<key_type, std::uint32_t> set_of_key;
    auto set_of = [&](const Parameters& p) {
        const auto [it, added] = set_of_key.try_emplace(key(p), std::uint32_t(out.sets.size()));
        if (added) out.sets.push_back(p);
        return it->second;
    };
    // Uniform populations: parsed once, all of them (so that every rank finds a bad value,
    // whether or not it holds cells of that population); their set when first used.
    constexpr std::uint32_t no_set = ~std::uint32_t(0);
    std::map<std::size_t, std::pair<Parameters, std::uint32_t>> uniform;
    for (std::size_t k = 0; k < spec.populations.size(); ++k) {
        const population_spec& pop = spec.populations[k];
        if (pop.model == model && uniform_parameters(pop))
            uniform.emplace(k, std::pair{parse(pop, constant_parameters(pop)), no_set});
    }
    std::size_t pop_index = 0;
    for (local_index i = 0; i < gids.size(); ++i) {
        const gid_type gid = gids[i];
        if (pop_index >= spec.populations.size() || !spec.populations[pop_index].contains(gid)) {
            pop_index = std::size_t(&spec.population_of(gid) - spec.populations.data());
        }
        const population_spec& pop = spec.populations[pop_index];
        if (pop.model != model) {
            throw internal_error(spikex::format("{}: cell {} belongs to a {} population", model, gid, pop.model));
        }
        std::uint32_t set;
        if (uniform_parameters(pop)) {
            auto& [p, uniform_set] = uniform.at(pop_index);
            if (uniform_set == no_set) uniform_set = set_of(p);
            set = uniform_set;
            on_cell(i, p, set);
        } else {
            Parameters p;
            try {
                p = parse(pop, cell_parameters(pop, gid, spec.seed));
            } catch (const user_error& e) {
                throw user_error(spikex::format("{} (cell {})", e.what(), gid));
            }
            set = set_of(p);
            on_cell(i, p, set);
        }
        if (out.runs.empty() || out.runs.back().set != set) out.runs.push_back({i, i, set});
        out.runs.back().end = i + 1;
    }
    return out;
}

} // namespace spikex
