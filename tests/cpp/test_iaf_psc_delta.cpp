// iaf_psc_delta against closed forms written out here independently of the model code:
// the propagators, jumps by the weight at the arrival step, DC-driven firing at the
// analytically known step, refractoriness with and without refractory_input, V_min,
// current timing, per-cell parameters whatever the split into groups, state() and bad
// parameters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/models/cell_group.hpp"
#include "spikex/models/iaf_psc_delta.hpp"
#include "spikex/network/network_spec.hpp"

using namespace spikex;
namespace delta = spikex::iaf_psc_delta;

namespace {

using param_map = std::map<std::string, double>;

struct recorder: spike_output {
    std::vector<std::pair<local_index, step_type>> spikes;
    void emit(local_index cell, step_type step) override { spikes.push_back({cell, step}); }
    std::vector<step_type> steps_of(local_index cell) const {
        std::vector<step_type> s;
        for (auto [c, n]: spikes)
            if (c == cell) s.push_back(n);
        return s;
    }
};

network_spec population(const parameter_map& params, std::uint32_t size = 1, double dt = 0.1, std::uint32_t seed = 1) {
    network_spec spec;
    spec.dt_ms = dt;
    spec.seed = seed;
    spec.populations.push_back({"iaf_psc_delta", 0, size, params, {}});
    return spec;
}
network_spec population(const param_map& params, std::uint32_t size = 1, double dt = 0.1) {
    return population(constant_parameter_map(params), size, dt);
}

std::vector<gid_type> range(gid_type begin, gid_type end) {
    std::vector<gid_type> g;
    for (gid_type i = begin; i < end; ++i) g.push_back(i);
    return g;
}

struct input {
    step_type step;
    local_index cell; // rank-local
    double weight;    // mV
};

void step(delta::group& g, step_type n, const std::vector<input>& inputs, recorder& out) {
    std::vector<local_index> targets;
    std::vector<double> weights;
    for (const auto& in: inputs) {
        if (in.step == n) {
            targets.push_back(in.cell);
            weights.push_back(in.weight);
        }
    }
    g.begin_step(n, out);
    if (!targets.empty()) g.deliver(n, targets.data(), weights.data(), 0, std::uint32_t(targets.size()), out);
    g.end_step(n, out);
}

std::vector<double> trace(delta::group& g, step_type stop, const std::vector<input>& inputs, recorder& out,
                          local_index cell = 0) {
    std::vector<double> v;
    for (step_type n = 0; n < stop; ++n) {
        step(g, n, inputs, out);
        v.push_back(g.V_m(cell));
    }
    return v;
}

} // namespace

TEST(iaf_psc_delta, propagators_are_the_exact_solution) {
    for (double tau_m: {2.0, 10.0, 33.0}) {
        for (double C: {1.0, 250.0}) {
            delta::parameters p = delta::parse_parameters({});
            p.tau_m = tau_m, p.C_m = C;
            const auto q = delta::compute_propagators(p, 0.1);
            EXPECT_DOUBLE_EQ(q.P33, std::exp(-0.1 / tau_m));
            // V after h under a constant current I from rest: I tau_m/C (1 - e^{-h/tau_m}).
            EXPECT_NEAR(q.P30, tau_m / C * -std::expm1(-0.1 / tau_m), 1e-13 * q.P30);
            EXPECT_EQ(q.refractory_steps, 20);
        }
    }
}

TEST(iaf_psc_delta, an_input_moves_v_by_its_weight_at_its_arrival_step_then_decays) {
    auto g = delta::make_group(population({{"E_L", -65.0}, {"V_m", -65.0}, {"V_th", -50.0}, {"V_reset", -65.0}}), {0});
    recorder out;
    const auto v = trace(*g, 100, {{10, 0, 0.75}, {10, 0, 0.5}, {30, 0, -2.0}}, out);
    for (step_type n = 0; n < 100; ++n) {
        double expected = 0.0;
        if (n >= 10) expected += 1.25 * std::exp(-(n - 10) * 0.1 / 10.0);
        if (n >= 30) expected += -2.0 * std::exp(-(n - 30) * 0.1 / 10.0);
        EXPECT_NEAR(v[n], -65.0 + expected, 1e-12) << n;
    }
    EXPECT_TRUE(out.spikes.empty());
}

TEST(iaf_psc_delta, an_input_that_reaches_threshold_fires_at_its_arrival_step) {
    auto g = delta::make_group(population({{"V_m", -56.0}}), {0});
    recorder out;
    trace(*g, 10, {{4, 0, 0.5}, {6, 0, 1.5}}, out);
    EXPECT_EQ(out.steps_of(0), std::vector<step_type>{6});
    EXPECT_EQ(g->V_m(0), -70.0); // V_reset, clamped
}

TEST(iaf_psc_delta, constant_current_reaches_threshold_at_the_analytic_step) {
    // As for iaf_psc_exp: V(t) = I R (1 - e^{-t/tau_m}); first spike at ceil(t*/h) - 1,
    // then every ceil(t*/h) + t_ref/h steps.
    for (double I: {400.0, 501.0, 1000.0, 3000.0}) {
        const double tau_m = 10.0, C = 250.0, theta = 15.0, h = 0.1;
        const double t_star = -tau_m * std::log(1 - theta / (I * tau_m / C));
        ASSERT_GT(std::abs(t_star / h - std::round(t_star / h)), 1e-6);
        const auto first = static_cast<step_type>(std::ceil(t_star / h)) - 1;
        auto g = delta::make_group(population({{"I_e", I}, {"t_ref", 0.5}}), {0});
        recorder out;
        trace(*g, 2000, {}, out);
        const auto spikes = out.steps_of(0);
        ASSERT_GE(spikes.size(), 3u) << I;
        EXPECT_EQ(spikes[0], first) << I;
        for (std::size_t k = 1; k < spikes.size(); ++k) EXPECT_EQ(spikes[k] - spikes[k - 1], first + 1 + 5) << I;
    }
}

TEST(iaf_psc_delta, input_while_refractory_is_lost_by_default) {
    auto g = delta::make_group(population({{"V_m", -55.5}, {"t_ref", 1.0}}), {0});
    recorder out;
    // Fires at step 0; refractory through step 10; inputs at 3 and 10 are lost, at 11 counts.
    const auto v = trace(*g, 13, {{0, 0, 1.0}, {3, 0, 5.0}, {10, 0, 5.0}, {11, 0, 0.25}}, out);
    EXPECT_EQ(out.steps_of(0), std::vector<step_type>{0});
    for (step_type n = 0; n <= 10; ++n) EXPECT_EQ(v[n], -70.0) << n;
    EXPECT_EQ(v[11], -70.0 + 0.25);
    EXPECT_EQ(g->refractory_count(0), 0);
}

TEST(iaf_psc_delta, refractory_input_holds_input_discounted_to_the_end_of_refractoriness) {
    auto g = delta::make_group(population({{"V_m", -55.5}, {"t_ref", 1.0}, {"refractory_input", 1.0}}), {0});
    recorder out;
    // Spike at step 0, r = 10. An input at step s in 1..10 sees r = 11 - s and is discounted
    // by e^{-r h/tau_m}: it is what the input would have decayed to by the end of step 10.
    const auto v = trace(*g, 13, {{0, 0, 1.0}, {3, 0, 2.0}, {10, 0, 3.0}, {11, 0, 0.25}}, out);
    for (step_type n = 0; n <= 10; ++n) EXPECT_EQ(v[n], -70.0) << n;
    const double held = 2.0 * std::exp(-8 * 0.1 / 10.0) + 3.0 * std::exp(-1 * 0.1 / 10.0);
    EXPECT_NEAR(v[11], -70.0 + 0.25 + held, 1e-12);
    EXPECT_NEAR(v[12], -70.0 + (0.25 + held) * std::exp(-0.1 / 10.0), 1e-12);
    EXPECT_EQ(out.steps_of(0), std::vector<step_type>{0});
}

TEST(iaf_psc_delta, v_min_bounds_v_from_below) {
    auto g = delta::make_group(population({{"V_min", -72.0}}), {0});
    recorder out;
    const auto v = trace(*g, 5, {{1, 0, -5.0}, {3, 0, 1.0}}, out);
    EXPECT_EQ(v[0], -70.0);
    EXPECT_EQ(v[1], -72.0);
    EXPECT_NEAR(v[3], -72.0 + 2.0 * (1 - std::exp(-0.2 / 10.0)) + 1.0, 1e-12);
    // Default: no bound.
    auto free = delta::make_group(population(param_map{}), {0});
    EXPECT_EQ(trace(*free, 2, {{1, 0, -500.0}}, out)[1], -570.0);
}

TEST(iaf_psc_delta, current_input_acts_from_the_next_step_like_i_e) {
    auto with_I_e = delta::make_group(population({{"I_e", 700.0}}), {0});
    auto with_current = delta::make_group(population(param_map{}, 3), {2}, 2);
    recorder a, b;
    std::vector<double> va, vb;
    for (step_type n = 0; n < 300; ++n) {
        step(*with_I_e, n, {}, a);
        va.push_back(with_I_e->V_m(0));
        with_current->begin_step(n, b);
        with_current->deliver_current(n, 2, 700.0);
        with_current->end_step(n, b);
        vb.push_back(with_current->V_m(2));
    }
    EXPECT_EQ(vb[0], -70.0);
    for (step_type n = 1; n < 300; ++n) EXPECT_EQ(vb[n], va[n - 1]) << n;
    ASSERT_FALSE(a.spikes.empty());
    EXPECT_EQ(b.spikes.front().second, a.spikes.front().second + 1);
}

TEST(iaf_psc_delta, per_cell_parameters_do_not_depend_on_the_split_into_groups) {
    parameter_map params = constant_parameter_map({{"t_ref", 0.5}});
    random_distribution I_e;
    I_e.kind = distribution_kind::uniform, I_e.low = 300.0, I_e.high = 500.0;
    params["I_e"] = {I_e, {}};
    random_distribution tau_m;
    tau_m.kind = distribution_kind::normal_clipped, tau_m.mean = 10.0, tau_m.std = 3.0, tau_m.low = 5.0,
    tau_m.high = 20.0;
    params["tau_m"] = {tau_m, {}};
    std::vector<double> V_m(30);
    for (std::size_t i = 0; i < V_m.size(); ++i) V_m[i] = -70.0 + 0.5 * double(i);
    params["V_m"] = {random_distribution::constant(0.0), V_m};
    network_spec spec = population(params, 30, 0.1, 11);

    std::vector<input> inputs;
    for (step_type n = 0; n < 400; n += 3)
        for (local_index c = 0; c < 30; c += 4) inputs.push_back({n, c, c % 3 ? 0.4 : -0.3});

    auto whole = delta::make_group(spec, range(0, 30));
    std::vector<std::unique_ptr<delta::group>> parts;
    for (gid_type b = 0; b < 30; b += 7) parts.push_back(delta::make_group(spec, range(b, std::min(b + 7, 30u)), b));
    recorder a, b;
    for (step_type n = 0; n < 400; ++n) {
        step(*whole, n, inputs, a);
        for (std::size_t k = 0; k < parts.size(); ++k) {
            std::vector<input> mine;
            for (const auto& in: inputs)
                if (in.cell / 7 == k) mine.push_back(in);
            step(*parts[k], n, mine, b);
        }
        for (local_index c = 0; c < 30; ++c) ASSERT_EQ(whole->V_m(c), parts[c / 7]->V_m(c)) << c << " " << n;
    }
    ASSERT_GT(a.spikes.size(), 20u);
    std::sort(a.spikes.begin(), a.spikes.end());
    std::sort(b.spikes.begin(), b.spikes.end());
    EXPECT_EQ(a.spikes, b.spikes);
    auto fresh = delta::make_group(spec, range(0, 30));
    EXPECT_EQ(fresh->V_m(4), -68.0);
}

TEST(iaf_psc_delta, state_variables_and_unknown_names) {
    auto g = delta::make_group(population({{"V_m", -60.0}}), {0});
    EXPECT_EQ(g->state(0, "V_m"), -60.0);
    try {
        g->state(0, "I_syn_ex");
        FAIL() << "no error";
    } catch (const user_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("iaf_psc_delta has no state variable \"I_syn_ex\": allowed are V_m"), std::string::npos)
            << what;
    }
}

TEST(iaf_psc_delta, every_invalid_parameter_is_a_user_error_naming_it_and_its_value) {
    const std::vector<std::pair<param_map, std::string>> bad = {
        {{{"C_m", -1.0}}, "C_m = -1"},
        {{{"tau_m", 0.0}}, "tau_m = 0"},
        {{{"t_ref", -1.0}}, "t_ref = -1"},
        {{{"V_reset", -50.0}}, "V_reset = -50"},
        {{{"refractory_input", 0.5}}, "refractory_input = 0.5: must be 0 or 1"},
        {{{"V_min", -std::numeric_limits<double>::infinity()}}, "V_min = -inf"},
        {{{"tau_minus", -3.0}}, "tau_minus = -3"},
        {{{"tau_syn_ex", 2.0}}, "\"tau_syn_ex\" is unknown: allowed are E_L, C_m"},
    };
    for (const auto& [params, text]: bad) {
        try {
            delta::make_group(population(params), {0});
            ADD_FAILURE() << "no error for " << text;
        } catch (const user_error& e) {
            EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("iaf_psc_delta"), std::string::npos) << e.what();
        }
    }
    parameter_map params;
    random_distribution tau;
    tau.kind = distribution_kind::normal, tau.mean = 1.0, tau.std = 5.0; // some draws <= 0
    params["tau_m"] = {tau, {}};
    try {
        delta::make_group(population(params, 50), range(0, 50));
        ADD_FAILURE() << "no error for negative tau_m draws";
    } catch (const user_error& e) {
        EXPECT_NE(std::string(e.what()).find("iaf_psc_delta parameter tau_m = -"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("(cell "), std::string::npos) << e.what();
    }
}

TEST(iaf_psc_delta, registry_entry) {
    const model_entry e = iaf_psc_delta_model();
    EXPECT_EQ(e.name, "iaf_psc_delta");
    EXPECT_EQ(e.kind, model_kind::neuron);
    EXPECT_TRUE(e.accepts_current);
    EXPECT_EQ(e.docs_page, "docs/models/iaf_psc_delta.md");
    EXPECT_EQ(e.state_names(), std::vector<std::string>{"V_m"});
    for (const char* name:
         {"E_L", "C_m", "tau_m", "t_ref", "V_th", "V_reset", "V_min", "I_e", "refractory_input", "V_m"})
        EXPECT_NE(e.parameter(name), nullptr) << name;
    auto g = e.make(population(param_map{}, 3), range(0, 3), 5);
    EXPECT_GE(g->bytes(), 3 * (2 * sizeof(double)));
}
