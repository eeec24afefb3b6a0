// gif_cond_exp: without noise (lambda_0 = 0) the membrane is a deterministic leaky
// integrator; forced spikes (an escape rate so high that the probability is 1) jump the
// kernels, which then decay by exp(-h/tau) per step, and hold V at V_reset for t_ref; the
// escape noise has NEST's probability per step, comes from each cell's own stream (the
// same spikes however the cells are grouped) and follows the seed; NEST's checks, with the
// lists named by cell. NEST comparisons: tests/python/nest_validation/test_nest_gif_cond_exp.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/models/cell_group.hpp"
#include "spikex/models/gif_cond_exp.hpp"
#include "spikex/network/network_spec.hpp"

using namespace spikex;

namespace {

constexpr double h = 0.1;

struct recorder: spike_output {
    std::vector<std::pair<local_index, step_type>> spikes;
    void emit(local_index cell, step_type n) override { spikes.push_back({cell, n}); }
};

using lists = std::map<std::string, std::vector<double>>;

network_spec population(const std::map<std::string, double>& params, std::uint32_t size, const lists& kernels = {},
                        std::uint32_t seed = 1) {
    network_spec spec;
    spec.dt_ms = h;
    spec.seed = seed;
    population_spec pop{"gif_cond_exp", 0, size, constant_parameter_map(params), {}};
    for (const auto& [name, values]: kernels) {
        auto& l = pop.lists[name];
        l.offsets.push_back(0);
        for (std::uint32_t i = 0; i < size; ++i) {
            l.values.insert(l.values.end(), values.begin(), values.end());
            l.offsets.push_back(l.values.size());
        }
    }
    spec.populations.push_back(pop);
    return spec;
}

std::vector<gid_type> gids(gid_type first, gid_type end) {
    std::vector<gid_type> out;
    for (gid_type g = first; g < end; ++g) out.push_back(g);
    return out;
}

std::unique_ptr<cell_group> group(const std::map<std::string, double>& params, std::uint32_t size = 1,
                                  const lists& kernels = {}) {
    return gif_cond_exp::make_group(population(params, size, kernels), gids(0, size));
}

std::string refusal(const std::map<std::string, double>& params, const lists& kernels = {}) {
    try {
        group(params, 2, kernels);
    } catch (const user_error& e) {
        return e.what();
    }
    return "no error";
}

// Forced spikes: V far above V_T and an escape rate so high that 1 - exp(-lambda h) = 1.
const std::map<std::string, double> forced = {{"V_T_star", -90.0}, {"lambda_0", 1e9}, {"t_ref", 2.0}};

} // namespace

TEST(gif_cond_exp, without_noise_the_membrane_charges_as_a_leaky_integrator) {
    // C_m dV/dt = -g_L (V - E_L) + I_e: V(t) = E_L + I_e / g_L (1 - exp(-t g_L / C_m)).
    auto g = group({{"lambda_0", 0.0}, {"I_e", 100.0}});
    EXPECT_EQ(g->state(0, "V_m"), -70.0);
    recorder out;
    for (step_type n = 0; n < 1000; ++n) {
        g->end_step(n, out);
        const double t = double(n + 1) * h;
        ASSERT_NEAR(g->state(0, "V_m"), -70.0 + 25.0 * (1.0 - std::exp(-t * 4.0 / 80.0)), 1e-6) << n;
    }
    EXPECT_TRUE(out.spikes.empty()); // V = -45 mV > V_T_star, but no escape rate
    EXPECT_EQ(g->state(0, "E_sfa"), -35.0);
    EXPECT_EQ(g->state(0, "I_stc"), 0.0);
}

TEST(gif_cond_exp, forced_spikes_jump_the_kernels_which_decay_per_step) {
    const lists kernels = {{"tau_stc", {10.0, 50.0}}, {"q_stc", {30.0, -5.0}}, {"tau_sfa", {20.0}}, {"q_sfa", {4.0}}};
    auto g = group(forced, 1, kernels);
    recorder out;
    g->end_step(0, out);
    ASSERT_EQ(out.spikes.size(), 1u);     // the first step already
    EXPECT_EQ(g->state(0, "V_m"), -70.0); // not reset in the spike's step (NEST)
    EXPECT_EQ(g->state(0, "I_stc"), 0.0); // the kernels act from the next step
    // Refractory for t_ref = 20 steps: V = V_reset; the kernels as of the step's start.
    double eta1 = 30.0, eta2 = -5.0, gamma = 4.0;
    for (step_type n = 1; n <= 20; ++n) {
        g->end_step(n, out);
        EXPECT_EQ(g->state(0, "V_m"), -55.0) << n;
        EXPECT_EQ(g->state(0, "I_stc"), eta1 + eta2) << n;
        EXPECT_EQ(g->state(0, "E_sfa"), -90.0 + gamma) << n;
        eta1 *= std::exp(-h / 10.0);
        eta2 *= std::exp(-h / 50.0);
        gamma *= std::exp(-h / 20.0);
    }
    EXPECT_EQ(out.spikes.size(), 1u);
    g->end_step(21, out); // the first step out of refractoriness: the next forced spike
    ASSERT_EQ(out.spikes.size(), 2u);
    EXPECT_EQ(out.spikes[1].second, 21);
    EXPECT_EQ(g->state(0, "I_stc"), eta1 + eta2);
    g->end_step(22, out);
    EXPECT_EQ(g->state(0, "I_stc"), eta1 * std::exp(-h / 10.0) + 30.0 + (eta2 * std::exp(-h / 50.0) - 5.0));
}

TEST(gif_cond_exp, the_escape_noise_has_nests_probability_per_step) {
    // V stays at E_L = V_T_star (no input, t_ref = 0: nothing moves V): lambda = lambda_0,
    // a spike in each step with probability p = 1 - exp(-lambda_0 h).
    const std::uint32_t cells = 20;
    const step_type steps = 20000;
    auto g = group({{"V_T_star", -70.0}, {"Delta_V", 1.0}, {"lambda_0", 200.0}, {"t_ref", 0.0}}, cells);
    recorder out;
    for (step_type n = 0; n < steps; ++n) g->end_step(n, out);
    const double p = -std::expm1(-0.2 * h), expected = p * cells * steps;
    EXPECT_NEAR(double(out.spikes.size()), expected, 5.0 * std::sqrt(expected * (1 - p)));
    std::vector<int> per_cell(cells, 0);
    for (auto [cell, n]: out.spikes) ++per_cell[cell];
    for (int c: per_cell) EXPECT_GT(c, 0);
    EXPECT_NE(per_cell[0], per_cell[1]); // independent streams (equal with probability ~2%)
}

TEST(gif_cond_exp, the_noise_is_each_cells_own_and_follows_the_seed) {
    const std::map<std::string, double> params = {{"I_e", 160.0}, {"lambda_0", 50.0}};
    const lists kernels = {{"tau_stc", {20.0}}, {"q_stc", {10.0}}};
    // Groups of the cells [first, end) with local indices from `local` (not the gids, as
    // on a rank); the spikes as (gid, step).
    struct part {
        gid_type first, end;
        local_index local;
    };
    auto run = [&](std::vector<part> parts, std::uint32_t seed) {
        const network_spec spec = population(params, 6, kernels, seed);
        std::vector<std::pair<gid_type, step_type>> spikes;
        for (const part& p: parts) {
            auto g = gif_cond_exp::make_group(spec, gids(p.first, p.end), p.local);
            recorder out;
            for (step_type n = 0; n < 3000; ++n) g->end_step(n, out);
            for (auto [cell, n]: out.spikes) spikes.push_back({cell - p.local + p.first, n});
        }
        std::sort(spikes.begin(), spikes.end());
        return spikes;
    };
    const auto whole = run({{0, 6, 0}}, 1);
    EXPECT_GT(whole.size(), 30u);
    EXPECT_EQ(whole, run({{0, 1, 5}, {1, 4, 0}, {4, 6, 3}}, 1));
    EXPECT_NE(whole, run({{0, 6, 0}}, 2));
}

TEST(gif_cond_exp, bad_parameters_are_refused_by_name) {
    EXPECT_EQ(refusal({{"Delta_V", 0.0}}), "gif_cond_exp parameter Delta_V = 0: must be > 0 mV");
    EXPECT_EQ(refusal({{"g_L", -1.0}}), "gif_cond_exp parameter g_L = -1: must be > 0 nS");
    EXPECT_EQ(refusal({{"lambda_0", -1.0}}), "gif_cond_exp parameter lambda_0 = -1: must be >= 0 1/s");
    EXPECT_EQ(refusal({{"t_ref", -0.5}}), "gif_cond_exp parameter t_ref = -0.5: must be >= 0 ms");
    EXPECT_EQ(refusal({}, {{"tau_stc", {5.0, -1.0}}, {"q_stc", {1.0, 2.0}}}),
              "gif_cond_exp parameter tau_stc = -1: must be > 0 ms (cell 0)");
    EXPECT_EQ(refusal({}, {{"tau_sfa", {5.0, 7.0}}, {"q_sfa", {1.0}}}),
              "gif_cond_exp parameters tau_sfa and q_sfa (cell 0): 2 and 1 values: must be lists of the same length");
    EXPECT_EQ(refusal({}, {{"tau_stc", std::vector<double>(9, 5.0)}, {"q_stc", std::vector<double>(9, 1.0)}}),
              "gif_cond_exp parameter tau_stc (cell 0): 9 values: must be at most 8");
    EXPECT_EQ(refusal({}, {{"q_stc", {1.0, NAN}}, {"tau_stc", {1.0, 2.0}}}),
              "gif_cond_exp parameter q_stc = nan: must be a finite number (cell 0)");
}

TEST(gif_cond_exp, an_integration_that_fails_names_the_cell_and_the_time) {
    auto g = group({{"C_m", 1e-9}, {"g_L", 1e6}, {"I_e", 1e9}, {"lambda_0", 0.0}});
    recorder out;
    try {
        for (step_type n = 0; n < 10; ++n) g->end_step(n, out);
        FAIL() << "no error";
    } catch (const simulation_error& e) {
        EXPECT_NE(std::string(e.what()).find("gif_cond_exp cell 0 at t = 0.1 ms"), std::string::npos) << e.what();
    }
}
