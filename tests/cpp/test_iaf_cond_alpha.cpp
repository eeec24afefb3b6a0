// iaf_cond_alpha: an input is an alpha-shaped conductance peaking at |w| after tau_syn,
// inhibition goes to g_in, and it shares iaf_cond_exp's membrane update (NEST's defaults,
// refractoriness). NEST comparisons: tests/python/nest_validation/test_nest_iaf_cond_exp.py.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/models/cell_group.hpp"
#include "spikex/models/iaf_cond_alpha.hpp"
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
    spec.populations.push_back({"iaf_cond_alpha", 0, 1, constant_parameter_map(params), {}});
    return iaf_cond_alpha::make_group(spec, {0});
}

} // namespace

TEST(iaf_cond_alpha, an_input_peaks_at_its_weight_after_tau_syn) {
    for (const double w: {3.0, -2.0}) {
        auto g = group({{"tau_syn_ex", 1.5}, {"tau_syn_in", 4.0}});
        recorder out;
        const local_index target = 0;
        g->deliver(0, &target, &w, 0, 1, out);
        g->end_step(0, out);
        const char* channel = w > 0 ? "g_ex" : "g_in";
        const double tau = w > 0 ? 1.5 : 4.0;
        EXPECT_EQ(g->state(0, channel), 0.0); // the input enters dg: g starts at 0
        double peak = 0.0;
        step_type peak_step = 0;
        for (step_type n = 1; n < 200; ++n) {
            g->end_step(n, out);
            if (g->state(0, channel) > peak) {
                peak = g->state(0, channel);
                peak_step = n;
            }
        }
        EXPECT_NEAR(peak, std::abs(w), 1e-3 * std::abs(w)) << channel;
        EXPECT_NEAR(peak_step * 0.1, tau, 0.05) << channel;
        EXPECT_EQ(g->state(0, w > 0 ? "g_in" : "g_ex"), 0.0);
    }
}

TEST(iaf_cond_alpha, fires_and_is_refractory_with_nests_defaults) {
    auto g = group({{"I_e", 1000.0}});
    EXPECT_EQ(g->state(0, "V_m"), -70.0);
    recorder out;
    for (step_type n = 0; n < 1000; ++n) {
        g->end_step(n, out);
        if (!out.steps.empty() && n > out.steps.back() && n - out.steps.back() <= 20) {
            EXPECT_EQ(g->state(0, "V_m"), -60.0) << "clamped at V_reset for t_ref = 2 ms";
        }
    }
    ASSERT_GE(out.steps.size(), 2u);
    EXPECT_GE(out.steps[1] - out.steps[0], 21); // t_ref 20 steps, then at least one to rise
}

TEST(iaf_cond_alpha, bad_parameters_are_refused_by_name) {
    EXPECT_THROW(group({{"tau_syn_ex", 0.0}}), user_error);
    EXPECT_THROW(group({{"V_reset", -50.0}}), user_error);
    try {
        group({{"g_ex0", 1.0}});
        FAIL();
    } catch (const user_error& e) {
        EXPECT_NE(std::string(e.what()).find("iaf_cond_alpha parameter \"g_ex0\" is unknown"), std::string::npos)
            << e.what();
    }
}
