// Changes between runs: parameters, state variables and device settings of cells of a
// built network (engine.hpp, change_values). The same changes at the same steps give the
// same spikes on every layout: a change touches only the changed cells' own state and
// parameters, and a rebuilt group goes on from exactly the state its cells had.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/engine/engine.hpp"
#include "spikex/models/model_parameters.hpp"
#include "spikex/models/model_registry.hpp"

namespace spikex {
namespace {

population_spec& population_at(network_spec& spec, gid_type first, std::uint32_t count, const std::string& name) {
    for (auto& pop: spec.populations) {
        if (pop.contains(first)) {
            if (count == 0 || !pop.contains(first + count - 1)) {
                throw user_error(
                    spikex::format("set {}: cells {}..{} must lie in one population", name, first, first + count - 1));
            }
            return pop;
        }
    }
    throw user_error(spikex::format("set {}: no cell {} in the network", name, first));
}

bool is_state(const model_entry& entry, const std::string& name, const population_spec& pop) {
    return entry.state_of(name, pop) != nullptr;
}

// A population whose port lists changed must still have every port its connections use.
void check_ports_in_use(const network_spec& spec, const population_spec& pop) {
    const model_entry& entry = find_model(pop.model);
    if (!entry.receptor_ports) return;
    const std::uint32_t ports = entry.receptor_ports(pop);
    for (const auto& set: spec.connection_sets) {
        if (set.receptor <= ports) continue;
        bool reaches = false;
        if (set.is_rule) {
            reaches = set.rule.target_first < pop.first + pop.size &&
                      pop.first < set.rule.target_first + set.rule.target_size;
        } else {
            const auto& reached = set.arrays.target_populations;
            reaches = std::find(reached.begin(), reached.end(), pop.first) != reached.end();
        }
        if (reaches) {
            throw user_error(spikex::format("set: {} would have {} receptor ports, but connections use port {}",
                                            pop.model, ports, set.receptor));
        }
    }
}

} // namespace

void engine::change_values(gid_type first, std::uint32_t count, const std::string& name,
                           const std::vector<double>& values, step_type from_step) {
    std::string error;
    try {
        population_spec& pop = population_at(spec_, first, count, name);
        const model_entry& entry = find_model(pop.model);
        if (values.size() != count) throw internal_error("change_values: one value per cell");
        if (built_ && is_state(entry, name, pop)) {
            for (double v: values) {
                if (!std::isfinite(v))
                    throw user_error(spikex::format("{} state {} = {}: must be finite", pop.model, name, v));
            }
            for (auto& part: parts_) {
                for (local_index i = part.first; i < part.end; ++i) {
                    const gid_type g = local_gids_[i];
                    if (g >= first && g - first < count) part.cells->set_state(i, name, values[g - first]);
                }
            }
        } else {
            const parameter_spec* spec = entry.parameter(name);
            if (!spec || spec->shape != parameter_shape::per_cell) {
                std::string allowed;
                for (const auto& p: entry.parameters)
                    if (p.shape == parameter_shape::per_cell) allowed += (allowed.empty() ? "" : ", ") + p.name;
                if (built_)
                    for (const auto& s: entry.state_names(pop)) allowed += (allowed.empty() ? "" : ", ") + s;
                throw user_error(spikex::format("set: {} has no parameter \"{}\": allowed are {}", pop.model, name,
                                                allowed.empty() ? "none" : allowed));
            }
            for (double v: values) model_parameters::check(pop.model, *spec, v);
            if (built_ && name == "tau_minus") {
                throw user_error(spikex::format("set: {} parameter tau_minus cannot change after the network is "
                                                "built (the STDP synapses onto the cells read it)",
                                                pop.model));
            }
            // The population's values per cell, the changed ones replaced.
            std::vector<double> all(pop.size);
            for (std::uint32_t k = 0; k < pop.size; ++k) {
                const gid_type g = pop.first + k;
                if (g >= first && g - first < count) {
                    all[k] = values[g - first];
                } else {
                    const auto resolved = cell_parameters(pop, g, spec_.seed);
                    const auto it = resolved.find(name);
                    all[k] = it != resolved.end() ? it->second : spec->default_value;
                }
            }
            const parameter_value before =
                pop.params.count(name) ? pop.params[name] : parameter_value::constant(spec->default_value);
            const bool uniform = std::all_of(all.begin(), all.end(), [&](double v) { return v == all[0]; });
            pop.params[name] = uniform ? parameter_value::constant(all[0]) : parameter_value{{}, all};
            if (built_) {
                try {
                    rebuild_population(pop, from_step);
                } catch (...) {
                    pop.params[name] = before;
                    throw;
                }
            }
        }
    } catch (const user_error& e) {
        error = e.what();
    }
    agree_on_error(error);
}

void engine::change_lists(gid_type first, std::uint32_t count, const std::vector<std::string>& names,
                          const std::vector<std::vector<double>>& values,
                          const std::vector<std::vector<std::uint64_t>>& offsets, step_type from_step) {
    std::string error;
    try {
        if (names.empty()) throw internal_error("change_lists: no list");
        population_spec& pop = population_at(spec_, first, count, names[0]);
        std::map<std::string, population_spec::cell_lists> before;
        for (std::size_t n = 0; n < names.size(); ++n) {
            const std::string& name = names[n];
            const parameter_spec* spec = find_model(pop.model).parameter(name);
            if (!spec || spec->shape != parameter_shape::per_cell_list || offsets[n].size() != count + 1 ||
                offsets[n].back() != values[n].size()) {
                throw internal_error("change_lists: not a list parameter of the model, or bad offsets");
            }
            population_spec::cell_lists lists;
            lists.offsets.push_back(0);
            for (std::uint32_t k = 0; k < pop.size; ++k) {
                const gid_type g = pop.first + k;
                if (g >= first && g - first < count) {
                    const std::size_t j = g - first;
                    lists.values.insert(lists.values.end(), values[n].begin() + std::ptrdiff_t(offsets[n][j]),
                                        values[n].begin() + std::ptrdiff_t(offsets[n][j + 1]));
                } else {
                    const auto mine = pop.list_of(name, g);
                    lists.values.insert(lists.values.end(), mine.begin(), mine.end());
                }
                lists.offsets.push_back(lists.values.size());
            }
            before.emplace(name, pop.lists[name]);
            pop.lists[name] = std::move(lists);
        }
        try {
            check_ports_in_use(spec_, pop);
            if (built_) rebuild_population(pop, from_step);
        } catch (...) {
            for (auto& [name, lists]: before) pop.lists[name] = std::move(lists);
            throw;
        }
    } catch (const user_error& e) {
        error = e.what();
    }
    agree_on_error(error);
}

std::vector<double> engine::read_state(const std::string& variable, const std::vector<gid_type>& gids) const {
    std::vector<double> out(gids.size(), std::numeric_limits<double>::quiet_NaN());
    for (std::size_t k = 0; k < gids.size(); ++k) {
        if (gids[k] >= spec_.cells()) throw user_error(spikex::format("get {}: no cell {}", variable, gids[k]));
        if (cells_->rank_of(gids[k]) != comm_.rank()) continue;
        const local_index i = cells_->local_of(gids[k]);
        unsigned t = 0;
        while (i >= parts_[t].end) ++t;
        out[k] = parts_[t].cells->state(i, variable);
    }
    return out;
}

void engine::rebuild_population(const population_spec& pop, step_type from_step) {
    const model_entry& entry = find_model(pop.model);
    if (entry.kind == model_kind::input_device) {
        for (std::uint32_t k = 0; k < pop.size; ++k) device_inputs_.respecify(pop.first + k, spec_, from_step);
        return;
    }
    const bool keep_v_m = is_state(entry, "V_m", pop);
    // Every group first (a bad value throws before anything is replaced), then the swap.
    std::vector<std::pair<std::size_t, std::unique_ptr<cell_group>>> fresh;
    for (std::size_t t = 0; t < parts_.size(); ++t) {
        auto& part = parts_[t];
        const bool holds = std::any_of(local_gids_.begin() + part.first, local_gids_.begin() + part.end,
                                       [&](gid_type g) { return pop.contains(g); });
        if (!holds) continue;
        std::vector<gid_type> gids(local_gids_.begin() + part.first, local_gids_.begin() + part.end);
        auto group = make_cell_group(spec_, gids, part.first);
        std::vector<double> values;
        for (local_index i = part.first; i < part.end; ++i) {
            const auto& names = find_model(spec_.population_of(local_gids_[i]).model).checkpoint_state;
            values.assign(names.size(), 0.0);
            part.cells->save_cell(i, values.data());
            group->load_cell(i, values.data());
        }
        group->after_load();
        if (keep_v_m) { // the absolute V_m stays (NEST: a new E_L does not move V_m)
            for (local_index i = part.first; i < part.end; ++i)
                if (pop.contains(local_gids_[i])) group->set_state(i, "V_m", part.cells->state(i, "V_m"));
        }
        fresh.emplace_back(t, std::move(group));
    }
    for (auto& [t, group]: fresh) parts_[t].cells = std::move(group);
}

} // namespace spikex
