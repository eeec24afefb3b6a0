// iaf_cond_exp_sfa_rr: a spike opens g_sfa by q_sfa and g_rr by q_rr, which decay with
// tau_sfa and tau_rr; the adaptation lengthens the intervals under a constant current,
// which stay regular without it; NEST's defaults, refractoriness and checks.
// NEST comparisons: tests/python/nest_validation/test_nest_iaf_cond_exp.py.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/models/cell_group.hpp"
#include "spikex/models/iaf_cond_exp_sfa_rr.hpp"
#include "spikex/models/model_registry.hpp"
#include "spikex/network/network_spec.hpp"

using namespace spikex;

namespace {

struct recorder: spike_output {
    std::vector<step_type> steps;
    void emit(local_index, step_type n) override { steps.push_back(n); }
};

std::unique_ptr<cell_group> group(const std::map<std::string, double>& params) {
    network_spec spec;
    spec.dt_ms = 0.1;
    spec.populations.push_back({"iaf_cond_exp_sfa_rr", 0, 1, constant_parameter_map(params), {}});
    return iaf_cond_exp_sfa_rr::make_group(spec, {0});
}

// The spike steps of one cell under `params` over `steps` steps.
std::vector<step_type> spikes(const std::map<std::string, double>& params, step_type steps) {
    auto g = group(params);
    recorder out;
    for (step_type n = 0; n < steps; ++n) g->end_step(n, out);
    return out.steps;
}

std::string refusal(const std::map<std::string, double>& params) {
    try {
        group(params);
    } catch (const user_error& e) {
        return e.what();
    }
    return "no error";
}

} // namespace

TEST(iaf_cond_exp_sfa_rr, nests_defaults_and_rest) {
    const model_entry& e = find_model("iaf_cond_exp_sfa_rr");
    std::map<std::string, double> defaults;
    for (const auto& p: e.parameters) defaults[p.name] = p.default_value;
    EXPECT_EQ(defaults.at("V_th"), -57.0);
    EXPECT_EQ(defaults.at("t_ref"), 0.5);
    EXPECT_EQ(defaults.at("q_rr"), 3214.0);
    EXPECT_EQ(defaults.at("tau_sfa"), 110.0);
    auto g = group({});
    recorder out;
    for (step_type n = 0; n < 500; ++n) g->end_step(n, out);
    EXPECT_EQ(g->state(0, "V_m"), -70.0);
    EXPECT_EQ(g->state(0, "g_sfa"), 0.0);
    EXPECT_TRUE(out.steps.empty());
}

TEST(iaf_cond_exp_sfa_rr, a_spike_opens_g_sfa_and_g_rr_which_decay) {
    auto g = group({{"I_e", 600.0}, {"q_sfa", 10.0}, {"q_rr", 50.0}, {"tau_sfa", 20.0}, {"tau_rr", 2.0}});
    recorder out;
    step_type n = 0;
    for (; n < 2000 && out.steps.empty(); ++n) {
        g->end_step(n, out);
        if (out.steps.empty()) EXPECT_EQ(g->state(0, "g_sfa"), 0.0);
    }
    ASSERT_EQ(out.steps.size(), 1u);
    EXPECT_EQ(g->state(0, "g_sfa"), 10.0); // opened in the spike's step
    EXPECT_EQ(g->state(0, "g_rr"), 50.0);
    EXPECT_EQ(g->state(0, "V_m"), -70.0); // V_reset
    for (int k = 0; k < 10; ++k) g->end_step(n++, out);
    ASSERT_EQ(out.steps.size(), 1u);
    EXPECT_NEAR(g->state(0, "g_sfa"), 10.0 * std::exp(-1.0 / 20.0), 1e-3);
    EXPECT_NEAR(g->state(0, "g_rr"), 50.0 * std::exp(-1.0 / 2.0), 1e-3);
}

TEST(iaf_cond_exp_sfa_rr, adaptation_lengthens_the_intervals) {
    const auto adapting = spikes({{"I_e", 800.0}}, 5000);
    const auto regular = spikes({{"I_e", 800.0}, {"q_sfa", 0.0}, {"q_rr", 0.0}}, 5000);
    ASSERT_GE(adapting.size(), 5u);
    ASSERT_GE(regular.size(), 5u);
    EXPECT_GT(regular.size(), adapting.size());
    const auto isi = [](const std::vector<step_type>& s, std::size_t k) { return s[k + 1] - s[k]; };
    EXPECT_GT(isi(adapting, adapting.size() - 2), isi(adapting, 0) + 5);
    EXPECT_LE(std::abs(isi(regular, regular.size() - 2) - isi(regular, 0)), 1);
}

TEST(iaf_cond_exp_sfa_rr, refractoriness_holds_v_at_v_reset_for_t_ref) {
    auto g = group({{"I_e", 2000.0}, {"t_ref", 1.0}, {"q_rr", 0.0}, {"q_sfa", 0.0}});
    recorder out;
    step_type n = 0;
    for (; n < 2000 && out.steps.empty(); ++n) g->end_step(n, out);
    ASSERT_EQ(out.steps.size(), 1u);
    for (int k = 0; k < 10; ++k) {
        g->end_step(n++, out);
        EXPECT_EQ(g->state(0, "V_m"), -70.0) << k;
    }
    g->end_step(n++, out);
    EXPECT_GT(g->state(0, "V_m"), -70.0);
}

TEST(iaf_cond_exp_sfa_rr, bad_parameters_are_refused_by_name) {
    EXPECT_EQ(refusal({{"tau_sfa", 0.0}}), "iaf_cond_exp_sfa_rr parameter tau_sfa = 0: must be > 0 ms");
    EXPECT_EQ(refusal({{"tau_rr", -1.0}}), "iaf_cond_exp_sfa_rr parameter tau_rr = -1: must be > 0 ms");
    EXPECT_EQ(refusal({{"V_reset", -57.0}}), "iaf_cond_exp_sfa_rr parameter V_reset = -57: must be < V_th = -57 mV");
    EXPECT_EQ(refusal({{"C_m", 0.0}}), "iaf_cond_exp_sfa_rr parameter C_m = 0: must be > 0 pF");
}

TEST(iaf_cond_exp_sfa_rr, an_integration_that_fails_names_the_cell_and_the_time) {
    auto g = group({{"C_m", 1e-9}, {"g_L", 1e6}, {"I_e", 1e9}});
    recorder out;
    try {
        for (step_type n = 0; n < 10; ++n) g->end_step(n, out);
        FAIL() << "no error";
    } catch (const simulation_error& e) {
        EXPECT_NE(std::string(e.what()).find("iaf_cond_exp_sfa_rr cell 0 at t = 0.1 ms"), std::string::npos)
            << e.what();
    }
}
