// Checkpoint state of the cell models: a group saved between two steps and loaded into
// groups that split its cells differently goes on bit for bit as if it had never stopped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "spikex/core/random.hpp"
#include "spikex/models/cell_group.hpp"
#include "spikex/models/model_registry.hpp"
#include "spikex/network/network_spec.hpp"

using namespace spikex;

namespace {

constexpr std::uint32_t per_model = 12;
const std::vector<std::string> models = {"interval_fire",
                                         "iaf_psc_alpha",
                                         "iaf_psc_exp",
                                         "iaf_psc_delta",
                                         "spike_source_poisson",
                                         "spike_source_array",
                                         "iaf_cond_exp",
                                         "iaf_cond_alpha",
                                         "izhikevich",
                                         "hh_cond_exp_traub",
                                         "hh_psc_alpha",
                                         "iaf_cond_exp_sfa_rr",
                                         "gif_cond_exp",
                                         "spike_source_gamma",
                                         "spike_source_poisson_refractory",
                                         "spike_source_inh_gamma",
                                         "aeif_cond_exp",
                                         "aeif_cond_alpha",
                                         "aeif_cond_alpha_multisynapse",
                                         "aeif_cond_beta_multisynapse",
                                         "iaf_psc_exp_multisynapse",
                                         "iaf_psc_alpha_multisynapse",
                                         "glif_psc",
                                         "glif_cond"};
// Models whose spikes come through receptor ports.
bool ported(const std::string& model) { return model.ends_with("_multisynapse") || model.starts_with("glif_"); }
// The models that take synaptic and current input in drive(): the first four, the aeif
// ones and those with receptor ports.
bool takes_input(gid_type gid) {
    const std::size_t k = gid / per_model;
    return k < 4 || (k < models.size() && (models[k].rfind("aeif_", 0) == 0 || ported(models[k])));
}

network_spec every_model() {
    network_spec spec;
    spec.dt_ms = 0.1;
    spec.seed = 7;
    const std::map<std::string, std::map<std::string, double>> params = {
        {"interval_fire", {{"tau_ms", 5.0}, {"invl_low_ms", 2.0}, {"invl_high_ms", 6.0}}},
        {"iaf_psc_alpha", {{"poisson_rate_hz", 8000.0}, {"poisson_weight", 30.0}, {"V_m_sd", 5.0}}},
        {"iaf_psc_exp", {{"I_e", 200.0}}},
        {"iaf_psc_delta", {{"refractory_input", 1.0}, {"I_e", 300.0}}},
        {"spike_source_poisson", {{"rate", 300.0}}},
        {"spike_source_array", {}},
        {"iaf_cond_exp", {{"I_e", 500.0}}},
        {"iaf_cond_alpha", {{"I_e", 450.0}}},
        {"izhikevich", {{"I_e", 10.0}}},
        {"hh_cond_exp_traub", {{"I_e", 500.0}}},
        {"hh_psc_alpha", {{"I_e", 1000.0}}},
        {"iaf_cond_exp_sfa_rr", {{"I_e", 900.0}}},
        {"gif_cond_exp", {{"I_e", 300.0}, {"lambda_0", 5.0}}},
        {"spike_source_gamma", {{"rate", 300.0}, {"gamma_shape", 2.0}}}, // one process: its state saved
        {"spike_source_poisson_refractory", {{"rate", 200.0}, {"dead_time", 1.0}, {"n_proc", 3.0}}}, // re-drawn
        {"spike_source_inh_gamma", {{"gamma_shape", 1.5}}},
        {"aeif_cond_exp", {{"I_e", 900.0}, {"t_ref", 0.5}}},
        {"aeif_cond_alpha", {{"I_e", 900.0}, {"b", 30.0}}},
        {"aeif_cond_alpha_multisynapse", {{"I_e", 800.0}, {"t_ref", 0.3}}},
        {"aeif_cond_beta_multisynapse", {{"I_e", 850.0}}},
        {"iaf_psc_exp_multisynapse", {{"I_e", 370.0}, {"t_ref", 1.0}}},
        {"iaf_psc_alpha_multisynapse", {{"I_e", 420.0}, {"V_min", -75.0}}},
        {"glif_psc",
         {{"spike_dependent_threshold", 1.0},
          {"after_spike_currents", 1.0},
          {"adapting_threshold", 1.0},
          {"V_th", -65.0}}},
        {"glif_cond",
         {{"spike_dependent_threshold", 1.0},
          {"after_spike_currents", 1.0},
          {"adapting_threshold", 1.0},
          {"V_th", -65.0}}},
    };
    gid_type first = 0;
    for (const auto& model: models) {
        population_spec pop{model, first, per_model, constant_parameter_map(params.at(model)), {}};
        if (model == "spike_source_inh_gamma") {
            for (auto [name, list]: {std::pair{"rate_times", std::vector<double>{0.0, 10.0, 20.0}},
                                     std::pair{"rate_values", std::vector<double>{400.0, 100.0, 300.0}}}) {
                auto& l = pop.lists[name];
                l.offsets.push_back(0);
                for (std::uint32_t i = 0; i < per_model; ++i) {
                    l.values.insert(l.values.end(), list.begin(), list.end());
                    l.offsets.push_back(l.values.size());
                }
            }
        }
        if (model == "spike_source_array") {
            auto& times = pop.lists["spike_times"];
            times.offsets.push_back(0);
            for (std::uint32_t i = 0; i < per_model; ++i) {
                for (double t: {0.5 + i, 13.3 + i, 27.1 + 2 * i}) times.values.push_back(t);
                times.offsets.push_back(times.values.size());
            }
        }
        if (model == "gif_cond_exp") { // kernels of one, two or three terms per cell
            for (const char* name: {"tau_stc", "q_stc", "tau_sfa", "q_sfa"}) {
                auto& list = pop.lists[name];
                list.offsets.push_back(0);
                for (std::uint32_t i = 0; i < per_model; ++i) {
                    for (std::uint32_t k = 0; k <= i % 3; ++k)
                        list.values.push_back(name[0] == 't'                 ? 5.0 + 20.0 * k + i
                                              : std::string(name) == "q_stc" ? 8.0 / (k + 1)
                                                                             : 2.0 / (k + 1));
                    list.offsets.push_back(list.values.size());
                }
            }
        }
        if (ported(model)) { // 3 ports (aeif alpha), 2 (the others), E_rev per cell
            using lists = std::vector<std::pair<const char*, std::vector<double>>>;
            const lists ports =
                model.starts_with("aeif_cond_alpha")
                    ? lists{{"E_rev", {0.0, -80.0, -10.0}}, {"tau_syn", {0.3, 3.0, 6.0}}}
                : model.starts_with("aeif_cond_beta")
                    ? lists{{"E_rev", {0.0, -75.0}}, {"tau_rise", {0.5, 1.0}}, {"tau_decay", {2.0, 8.0}}}
                : model == "glif_cond" ? lists{{"E_rev", {0.0, -80.0}}, {"tau_syn", {0.5, 4.0}}}
                                       : lists{{"tau_syn", {0.5, 4.0}}};
            for (const auto& [name, values]: ports) {
                auto& l = pop.lists[name];
                l.offsets.push_back(0);
                for (std::uint32_t i = 0; i < per_model; ++i) {
                    for (double x: values) l.values.push_back(name[0] == 'E' ? x - 0.5 * i : x);
                    l.offsets.push_back(l.values.size());
                }
            }
        }
        spec.populations.push_back(pop);
        first += per_model;
    }
    return spec;
}

struct recorder: spike_output {
    std::vector<std::pair<local_index, step_type>> spikes;
    void emit(local_index cell, step_type step) override { spikes.push_back({cell, step}); }
};

// A weight for an input to gid at step n that suits its model (pA, mV or m).
double weight_for(gid_type gid, step_type n) {
    const auto w = random_block(99, gid, purpose::weights, static_cast<std::uint32_t>(n));
    const double u = uniform_from_words(w[0], w[1]) - 0.3;
    switch (gid / per_model) {
    case 0:
        return 0.4 * u; // interval_fire
    case 3:
        return 4.0 * u; // iaf_psc_delta, mV
    case 7:
    case 8:
        return 20.0 * u; // aeif_cond_*, nS
    default:
        return 400 * u; // iaf_psc_*, pA
    }
}

// Steps [from, to) of the cells of `groups` (each: gids [first, first + count) with local
// indices from first): every third step inputs to every fourth neuron, a current to the
// iaf and aeif cells now and then, as the engine calls them.
void drive(std::vector<cell_group*> groups, std::vector<gid_type> firsts, step_type from, step_type to, recorder& out) {
    for (step_type n = from; n < to; ++n) {
        for (std::size_t k = 0; k < groups.size(); ++k) {
            auto& group = *groups[k];
            group.begin_step(n, out);
            std::vector<local_index> targets;
            std::vector<double> weights;
            const gid_type end = k + 1 < firsts.size() ? firsts[k + 1] : per_model * gid_type(models.size());
            for (gid_type g = firsts[k]; g < end; ++g) {
                if (takes_input(g) && (g + n) % 4 == 0 && n % 3 == 0) {
                    targets.push_back(g);
                    weights.push_back(weight_for(g, n));
                }
            }
            // The models with receptor ports take weights >= 0 through them.
            std::vector<local_index> plain_targets;
            std::vector<double> plain_weights;
            for (std::size_t c = 0; c < targets.size(); ++c) {
                const std::string& model = models[targets[c] / per_model];
                if (!ported(model)) {
                    plain_targets.push_back(targets[c]);
                    plain_weights.push_back(weights[c]);
                    continue;
                }
                const double w = (model == "glif_psc" ? 2.0 : 0.05) * std::abs(weights[c]); // pA, else nS
                const auto port =
                    static_cast<std::uint32_t>(1 + (targets[c] + n) % (model.starts_with("aeif_cond_alpha") ? 3 : 2));
                group.deliver_port(port, n, &targets[c], &w, 0, 1, out);
            }
            if (!plain_targets.empty())
                group.deliver(n, plain_targets.data(), plain_weights.data(), 0, plain_targets.size(), out);
            for (gid_type g = firsts[k]; g < end; ++g) {
                if (takes_input(g) && g >= per_model && n % 17 == 5 && g % 2 == 0) group.deliver_current(n, g, 150.0);
            }
            group.end_step(n, out);
        }
    }
}

std::vector<double> saved(const cell_group& group, const network_spec& spec, gid_type first, gid_type end) {
    std::vector<double> out;
    for (gid_type g = first; g < end; ++g) {
        const auto& names = find_model(spec.population_of(g).model).checkpoint_state;
        std::vector<double> values(names.size());
        group.save_cell(g, values.data());
        out.insert(out.end(), values.begin(), values.end());
    }
    return out;
}

std::vector<gid_type> range(gid_type first, gid_type end) {
    std::vector<gid_type> out;
    for (gid_type g = first; g < end; ++g) out.push_back(g);
    return out;
}

} // namespace

TEST(CheckpointState, EveryModelGoesOnBitForBitAfterLoadingIntoAnotherSplit) {
    const network_spec spec = every_model();
    const gid_type cells = spec.cells();
    const step_type stop_at = 137, end = 400;

    auto whole = make_cell_group(spec, range(0, cells), 0);
    recorder first;
    drive({whole.get()}, {0}, 0, stop_at, first);

    // Two groups splitting the cells elsewhere than the model boundaries.
    const gid_type cut = per_model * 2 + 5;
    auto left = make_cell_group(spec, range(0, cut), 0);
    auto right = make_cell_group(spec, range(cut, cells), cut);
    for (gid_type g = 0; g < cells; ++g) {
        const auto& names = find_model(spec.population_of(g).model).checkpoint_state;
        if (names.empty()) continue;
        std::vector<double> values(names.size());
        whole->save_cell(g, values.data());
        (g < cut ? left : right)->load_cell(g, values.data());
    }
    left->after_load();
    right->after_load();

    recorder uninterrupted, resumed;
    drive({whole.get()}, {0}, stop_at, end, uninterrupted);
    drive({left.get(), right.get()}, {0, cut}, stop_at, end, resumed);

    auto sorted = [](std::vector<std::pair<local_index, step_type>> s) {
        std::sort(s.begin(), s.end(),
                  [](auto a, auto b) { return a.second != b.second ? a.second < b.second : a.first < b.first; });
        return s;
    };
    EXPECT_GT(uninterrupted.spikes.size(), 40u);
    EXPECT_EQ(sorted(uninterrupted.spikes), sorted(resumed.spikes));
    // Every model fired after the checkpoint (the test reaches them all).
    for (std::size_t m = 0; m < models.size(); ++m) {
        bool fired = false;
        for (auto [cell, step]: uninterrupted.spikes) fired = fired || cell / per_model == m;
        EXPECT_TRUE(fired) << models[m];
    }
    const auto a = saved(*whole, spec, 0, cells);
    auto b = saved(*left, spec, 0, cut);
    const auto b2 = saved(*right, spec, cut, cells);
    b.insert(b.end(), b2.begin(), b2.end());
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(double))) << "states differ in their bits";
}

TEST(CheckpointState, RandomStreamSeeksToAnyWord) {
    for (std::uint64_t words = 0; words < 10; ++words) {
        random_stream a(5, 17, purpose::source_train);
        for (std::uint64_t k = 0; k < words; ++k) a.next_word();
        EXPECT_EQ(a.position(), words);
        random_stream b(5, 17, purpose::source_train);
        b.seek(words);
        EXPECT_EQ(b.position(), words);
        for (int k = 0; k < 9; ++k) EXPECT_EQ(a.next_word(), b.next_word()) << "after seeking " << words;
    }
}
