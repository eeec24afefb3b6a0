// iaf_cond_exp through the model layer: rest is exact, refractoriness holds V at V_reset
// for t_ref, a conductance input decays with tau_syn to the integrator's tolerance, the
// sub-step is kept per cell, and a system the integrator cannot follow is an error naming
// the cell. NEST comparisons: tests/python/nest_validation/test_nest_iaf_cond_exp.py.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/models/cell_group.hpp"
#include "spikex/models/iaf_cond_exp.hpp"
#include "spikex/network/network_spec.hpp"

using namespace spikex;

namespace {

struct recorder: spike_output {
    std::vector<step_type> steps;
    void emit(local_index, step_type n) override { steps.push_back(n); }
};

network_spec population(const std::map<std::string, double>& params, std::uint32_t size = 1) {
    network_spec spec;
    spec.dt_ms = 0.1;
    spec.seed = 1;
    spec.populations.push_back({"iaf_cond_exp", 0, size, constant_parameter_map(params), {}});
    return spec;
}

std::unique_ptr<cell_group> group(const std::map<std::string, double>& params, std::uint32_t size = 1) {
    std::vector<gid_type> gids(size);
    for (std::uint32_t i = 0; i < size; ++i) gids[i] = i;
    return iaf_cond_exp::make_group(population(params, size), gids);
}

} // namespace

TEST(iaf_cond_exp, rest_is_exact_and_v_m_starts_at_nests_default) {
    auto g = group({{"E_L", -65.0}});
    EXPECT_EQ(g->state(0, "V_m"), -70.0); // NEST's rule: V_m does not follow E_L
    auto rest = group({});
    recorder out;
    for (step_type n = 0; n < 500; ++n) rest->end_step(n, out);
    EXPECT_EQ(rest->state(0, "V_m"), -70.0);
    EXPECT_TRUE(out.steps.empty());
}

TEST(iaf_cond_exp, refractoriness_holds_v_at_v_reset_for_t_ref) {
    auto g = group({{"I_e", 1000.0}, {"t_ref", 2.0}});
    recorder out;
    step_type first = -1;
    for (step_type n = 0; n < 400 && first < 0; ++n) {
        g->end_step(n, out);
        if (!out.steps.empty()) first = out.steps[0];
    }
    ASSERT_GE(first, 0);
    for (step_type n = first + 1; n <= first + 20; ++n) {
        g->end_step(n, out);
        EXPECT_EQ(g->state(0, "V_m"), -60.0) << "step " << n; // V_reset, 20 steps of 0.1 ms
    }
    g->end_step(first + 21, out);
    EXPECT_GT(g->state(0, "V_m"), -60.0);
}

TEST(iaf_cond_exp, a_conductance_input_decays_with_tau_syn) {
    auto g = group({{"tau_syn_ex", 2.0}, {"tau_syn_in", 5.0}}, 2);
    recorder out;
    const local_index targets[] = {0, 1};
    const double weights[] = {10.0, -4.0}; // nS: excitatory to cell 0, inhibitory (4 nS) to cell 1
    g->deliver(0, targets, weights, 0, 2, out);
    g->end_step(0, out);
    EXPECT_EQ(g->state(0, "g_ex"), 10.0);
    EXPECT_EQ(g->state(1, "g_in"), 4.0);
    for (step_type n = 1; n <= 30; ++n) g->end_step(n, out);
    EXPECT_NEAR(g->state(0, "g_ex"), 10.0 * std::exp(-3.0 / 2.0), 1e-3);
    EXPECT_NEAR(g->state(1, "g_in"), 4.0 * std::exp(-3.0 / 5.0), 1e-3);
    EXPECT_GT(g->state(0, "V_m"), -70.0); // depolarised towards E_ex
    EXPECT_LT(g->state(1, "V_m"), -70.0); // hyperpolarised towards E_in
}

TEST(iaf_cond_exp, the_sub_step_is_kept_per_cell_in_checkpoints) {
    auto g = group({{"I_e", 400.0}}, 2);
    recorder out;
    const local_index targets[] = {0};
    const double weights[] = {500.0};
    g->deliver(0, targets, weights, 0, 1, out); // a stiff kick to cell 0 only
    for (step_type n = 0; n < 3; ++n) g->end_step(n, out);
    std::vector<double> a(7), b(7);
    g->save_cell(0, a.data());
    g->save_cell(1, b.data());
    EXPECT_NE(a[6], b[6]); // the sub-step sizes differ: each cell keeps its own
    EXPECT_GT(a[6], 0.0);
    EXPECT_LE(b[6], 5 * 0.1);
}

TEST(iaf_cond_exp, an_integration_that_fails_names_the_cell_and_the_time) {
    auto g = group({{"C_m", 1e-9}, {"g_L", 1e6}, {"I_e", 1e9}});
    recorder out;
    try {
        for (step_type n = 0; n < 10; ++n) g->end_step(n, out);
        FAIL() << "no error";
    } catch (const simulation_error& e) {
        EXPECT_NE(std::string(e.what()).find("iaf_cond_exp cell 0 at t = 0.1 ms"), std::string::npos) << e.what();
    }
}

TEST(iaf_cond_exp, bad_parameters_are_refused_by_name) {
    try {
        group({{"V_reset", -50.0}});
        FAIL() << "no error";
    } catch (const user_error& e) {
        EXPECT_EQ(std::string(e.what()), "iaf_cond_exp parameter V_reset = -50: must be < V_th = -55 mV");
    }
}
