// Models by name: the same names in C++, TOML, CLI and Python.
#include <set>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/models/cell_group.hpp"
#include "spikex/models/iaf_psc_delta.hpp"
#include "spikex/models/iaf_psc_exp.hpp"

namespace spikex {

std::unique_ptr<cell_group> make_interval_fire_group(const network_spec&, const std::vector<gid_type>&,
                                                     local_index first_local);
const std::vector<std::string>& interval_fire_parameter_names();
std::unique_ptr<cell_group> make_iaf_psc_alpha_group(const network_spec&, const std::vector<gid_type>&,
                                                     local_index first_local);
const std::vector<std::string>& iaf_psc_alpha_parameter_names();

std::unique_ptr<cell_group> make_cell_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                            local_index first_local) {
    std::set<std::string> models;
    for (const auto& pop: spec.populations) models.insert(pop.model);
    if (models.size() > 1) {
        throw user_error("populations of different models in one network are not supported yet");
    }
    std::string model = models.empty() ? "interval_fire" : *models.begin();
    if (model == "interval_fire") return make_interval_fire_group(spec, local_gids, first_local);
    if (model == "iaf_psc_alpha") return make_iaf_psc_alpha_group(spec, local_gids, first_local);
    // Temporary (until the registry's list lands): the models branch's models.
    if (model == "iaf_psc_exp") return iaf_psc_exp_model().make(spec, local_gids, first_local);
    if (model == "iaf_psc_delta") return iaf_psc_delta_model().make(spec, local_gids, first_local);
    throw user_error(spikex::format(
        "model \"{}\" is unknown: allowed are \"interval_fire\", \"iaf_psc_alpha\", \"iaf_psc_exp\", \"iaf_psc_delta\"",
        model));
}

std::vector<std::string> model_parameter_names(const std::string& model) {
    if (model == "interval_fire") return interval_fire_parameter_names();
    if (model == "iaf_psc_alpha") return iaf_psc_alpha_parameter_names();
    if (model == "iaf_psc_exp") return iaf_psc_exp::parameter_names();
    if (model == "iaf_psc_delta") return iaf_psc_delta::parameter_names();
    return {};
}

// Temporary (the lead's registry defines it): models without recordable state.
double cell_group::state(local_index, const std::string& variable) const {
    throw user_error(spikex::format("state variable \"{}\": this model records none", variable));
}

} // namespace spikex
