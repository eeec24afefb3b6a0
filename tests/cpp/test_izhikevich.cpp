// izhikevich: NEST's forward-Euler update and its published variant, reset and recovery
// jump, V_min, inputs in mV acting in the step they arrive, the divergence error. The
// expected traces are the recurrences of docs/models/izhikevich.md, written out here.
// NEST comparison: tests/python/nest_validation/test_nest_exact_models.py.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/models/cell_group.hpp"
#include "spikex/models/izhikevich.hpp"
#include "spikex/network/network_spec.hpp"

using namespace spikex;

namespace {

struct recorder: spike_output {
    std::vector<step_type> steps;
    void emit(local_index, step_type n) override { steps.push_back(n); }
};

std::unique_ptr<cell_group> group(const std::map<std::string, double>& params, double dt = 0.1) {
    network_spec spec;
    spec.dt_ms = dt;
    spec.populations.push_back({"izhikevich", 0, 1, constant_parameter_map(params), {}});
    return izhikevich::make_group(spec, {0});
}

} // namespace

TEST(izhikevich, euler_trace_reset_and_recovery_jump) {
    const double a = 0.02, b = 0.2, c = -65.0, d = 8.0, I = 10.0, h = 0.1;
    auto g = group({{"I_e", I}});
    EXPECT_EQ(g->state(0, "V_m"), -65.0);
    EXPECT_EQ(g->state(0, "U_m"), -13.0);
    double v = -65.0, u = -13.0;
    std::vector<step_type> expected;
    recorder out;
    for (step_type n = 0; n < 3000; ++n) {
        const double v0 = v, u0 = u;
        v += h * (0.04 * v0 * v0 + 5.0 * v0 + 140.0 - u0 + 0.0 + I);
        u += h * a * (b * v0 - u0);
        if (v >= 30.0) {
            v = c;
            u += d;
            expected.push_back(n);
        }
        g->end_step(n, out);
        ASSERT_EQ(g->state(0, "V_m"), v) << n;
        ASSERT_EQ(g->state(0, "U_m"), u) << n;
    }
    EXPECT_GE(expected.size(), 5u);
    EXPECT_EQ(out.steps, expected);
}

TEST(izhikevich, published_scheme_uses_two_half_steps) {
    const double h = 1.0;
    auto g = group({{"I_e", 5.0}, {"consistent_integration", 0.0}}, h);
    double v = -65.0, u = -13.0;
    recorder out;
    for (step_type n = 0; n < 50; ++n) {
        v += h * 0.5 * (0.04 * v * v + 5.0 * v + 140.0 - u + 0.0 + 5.0 + 0.0);
        v += h * 0.5 * (0.04 * v * v + 5.0 * v + 140.0 - u + 0.0 + 5.0 + 0.0);
        u += h * 0.02 * (0.2 * v - u);
        if (v >= 30.0) {
            v = -65.0;
            u += 8.0;
        }
        g->end_step(n, out);
        ASSERT_EQ(g->state(0, "V_m"), v) << n;
    }
}

TEST(izhikevich, an_input_moves_v_in_its_step_and_v_min_bounds_it) {
    auto g = group({{"V_min", -80.0}});
    recorder out;
    const local_index target = 0;
    const double w = -40.0;
    g->deliver(0, &target, &w, 0, 1, out);
    g->end_step(0, out);
    EXPECT_EQ(g->state(0, "V_m"), -80.0);
    const double up = 200.0;
    g->deliver(1, &target, &up, 0, 1, out);
    g->end_step(1, out);
    EXPECT_EQ(out.steps, std::vector<step_type>{1});
    EXPECT_EQ(g->state(0, "V_m"), -65.0);
}

TEST(izhikevich, a_diverging_cell_ends_the_run_naming_it) {
    auto g = group({{"V_th", 1e300}, {"I_e", 1e6}});
    recorder out;
    try {
        for (step_type n = 0; n < 100; ++n) g->end_step(n, out);
        FAIL() << "no error";
    } catch (const simulation_error& e) {
        EXPECT_NE(std::string(e.what()).find("izhikevich cell 0 at t = "), std::string::npos) << e.what();
    }
}
