// Models by name: the same names in C++, TOML, CLI and Python. One line per model here;
// each model's file builds its own entry.
#include "spikex/models/model_registry.hpp"

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include <algorithm>
#include <mutex>

// X(name): the model's file defines `model_entry name_model()`.
#define SPIKEX_MODELS(X)               \
    X(interval_fire)                   \
    X(iaf_psc_alpha)                   \
    X(iaf_psc_exp)                     \
    X(iaf_psc_delta)                   \
    X(iaf_psc_exp_multisynapse)        \
    X(iaf_psc_alpha_multisynapse)      \
    X(iaf_cond_exp)                    \
    X(iaf_cond_alpha)                  \
    X(iaf_cond_exp_sfa_rr)             \
    X(gif_cond_exp)                    \
    X(izhikevich)                      \
    X(hh_cond_exp_traub)               \
    X(hh_psc_alpha)                    \
    X(aeif_cond_exp)                   \
    X(aeif_cond_alpha)                 \
    X(aeif_cond_alpha_multisynapse)    \
    X(aeif_cond_beta_multisynapse)     \
    X(glif_psc)                        \
    X(glif_cond)                       \
    X(spike_source_array)              \
    X(spike_source_poisson)            \
    X(spike_source_gamma)              \
    X(spike_source_poisson_refractory) \
    X(spike_source_inh_gamma)          \
    X(poisson_generator)               \
    X(dc_generator)                    \
    X(step_current_generator)          \
    X(ac_generator)                    \
    X(noise_generator)

namespace spikex {

#define SPIKEX_DECLARE_MODEL(name) model_entry name##_model();
SPIKEX_MODELS(SPIKEX_DECLARE_MODEL)
#undef SPIKEX_DECLARE_MODEL

namespace {
std::deque<model_entry>& entries() {
#define SPIKEX_LIST_MODEL(name) name##_model(),
    static std::deque<model_entry> all{SPIKEX_MODELS(SPIKEX_LIST_MODEL)};
#undef SPIKEX_LIST_MODEL
    return all;
}
std::mutex registration_mutex;
} // namespace

const std::deque<model_entry>& model_registry() { return entries(); }

void register_model(model_entry entry) {
    std::lock_guard lock(registration_mutex);
    auto& all = entries();
    if (entry.name.empty()) throw user_error("register_model: a model needs a name");
    for (const auto& e: all) {
        if (e.name == entry.name) throw user_error(spikex::format("model \"{}\" is already registered", entry.name));
    }
    if (!entry.make && entry.kind == model_kind::neuron) {
        throw user_error(spikex::format("register_model: model \"{}\" has no factory", entry.name));
    }
    all.push_back(std::move(entry));
}

const model_entry& find_model(const std::string& name) {
    std::string allowed;
    for (const auto& entry: model_registry()) {
        if (entry.name == name) return entry;
        allowed += (allowed.empty() ? "\"" : ", \"") + entry.name + "\"";
    }
    throw user_error(spikex::format("model \"{}\" is unknown: allowed are {}", name, allowed));
}

std::vector<std::string> model_entry::parameter_names() const {
    std::vector<std::string> out;
    for (const auto& p: parameters) out.push_back(p.name);
    return out;
}

std::vector<std::string> model_entry::state_names() const {
    std::vector<std::string> out;
    for (const auto& v: state) out.push_back(v.per_port ? v.name + "_<port>" : v.name);
    return out;
}

const state_spec* model_entry::state_of(const std::string& recorded, const population_spec& pop) const {
    for (const auto& v: state) {
        if (!v.per_port) {
            if (v.name == recorded) return &v;
            continue;
        }
        const std::string prefix = v.name + "_";
        if (recorded.size() <= prefix.size() || recorded.compare(0, prefix.size(), prefix) != 0) continue;
        const std::string digits = recorded.substr(prefix.size());
        if (digits.size() > 5 || digits[0] == '0' ||
            !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
            continue;
        }
        const std::uint32_t ports = receptor_ports ? receptor_ports(pop) : 0;
        if (std::stoul(digits) <= ports) return &v;
    }
    return nullptr;
}

std::vector<std::string> model_entry::state_names(const population_spec& pop) const {
    const std::uint32_t ports = receptor_ports ? receptor_ports(pop) : 0;
    std::vector<std::string> out;
    for (const auto& v: state) {
        if (!v.per_port) {
            out.push_back(v.name);
            continue;
        }
        for (std::uint32_t port = 1; port <= ports; ++port) out.push_back(v.name + "_" + std::to_string(port));
    }
    return out;
}

const parameter_spec* model_entry::parameter(const std::string& parameter_name) const {
    for (const auto& p: parameters)
        if (p.name == parameter_name) return &p;
    return nullptr;
}

std::vector<std::string> model_parameter_names(const std::string& model) { return find_model(model).parameter_names(); }

double cell_group::state(local_index, const std::string& variable) const {
    throw user_error(spikex::format("state variable \"{}\" cannot be recorded from this model", variable));
}

void cell_group::deliver_port(std::uint32_t port, step_type, const local_index*, const double*, std::uint32_t,
                              std::uint32_t, spike_output&) {
    throw internal_error(spikex::format("receptor port {} reached a model without receptor ports", port));
}

void cell_group::set_state(local_index, const std::string& variable, double) {
    throw user_error(spikex::format("state variable \"{}\" cannot be set in this model", variable));
}

} // namespace spikex
