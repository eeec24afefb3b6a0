// iaf_psc_exp against closed forms written out here independently of the model code: the
// propagators (regular and tau_m == tau_syn), the PSP, DC-driven firing at the
// analytically known step, refractoriness, input and current timing, per-cell parameters
// (arrays, distributions) whatever the split into groups, state() and bad parameters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/models/cell_group.hpp"
#include "spikex/models/iaf_psc_exp.hpp"
#include "spikex/network/network_spec.hpp"

using namespace spikex;
namespace exp_model = spikex::iaf_psc_exp;

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
    spec.populations.push_back({"iaf_psc_exp", 0, size, params, {}});
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
    double weight;
};

// One step as the engine drives it: synaptic input, then the update.
void step(exp_model::group& g, step_type n, const std::vector<input>& inputs, recorder& out) {
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

std::vector<double> trace(exp_model::group& g, step_type stop, const std::vector<input>& inputs, recorder& out,
                          local_index cell = 0) {
    std::vector<double> v;
    for (step_type n = 0; n < stop; ++n) {
        step(g, n, inputs, out);
        v.push_back(g.V_m(cell));
    }
    return v;
}

// V (mV above rest) at time t after an input of w pA to a neuron at rest: I = w e^{-t/tau_s},
// V' = -V/tau_m + I/C, so V = w tau_s tau_m / (C (tau_m - tau_s)) (e^{-t/tau_m} - e^{-t/tau_s}),
// and w t/C e^{-t/tau} when tau_s == tau_m.
double psp(double w, double t, double tau_s, double tau_m = 10.0, double C = 250.0) {
    if (tau_s == tau_m) return w * t / C * std::exp(-t / tau_m);
    return w * tau_s * tau_m / (C * (tau_m - tau_s)) * (std::exp(-t / tau_m) - std::exp(-t / tau_s));
}

} // namespace

TEST(iaf_psc_exp, propagators_are_the_exact_solution) {
    const double C = 250.0, h = 0.1;
    for (double tau_m: {5.0, 10.0, 20.0}) {
        for (double tau_s: {0.5, 2.0, 8.0, 30.0}) {
            exp_model::parameters p = exp_model::parse_parameters({});
            p.tau_m = tau_m, p.tau_syn_ex = tau_s, p.tau_syn_in = tau_s, p.C_m = C;
            const auto q = exp_model::compute_propagators(p, h);
            EXPECT_NEAR(q.P21_ex, psp(1.0, h, tau_s, tau_m, C), 1e-12 * q.P21_ex) << tau_m << " " << tau_s;
            EXPECT_DOUBLE_EQ(q.P11_ex, std::exp(-h / tau_s));
            EXPECT_DOUBLE_EQ(q.P22, std::exp(-h / tau_m));
            EXPECT_DOUBLE_EQ(q.P20, tau_m / C * (1 - std::exp(-h / tau_m)));
        }
    }
}

TEST(iaf_psc_exp, propagator_at_tau_syn_equal_tau_m_is_the_limit) {
    const double C = 250.0, h = 0.1, tau = 10.0;
    // Exactly equal: 0 * inf in the general formula; NEST's limit h/C e^{-h/tau}.
    const double singular = iaf_integration::exp_current_propagator(tau, tau, C, h);
    EXPECT_EQ(singular, h / C * std::exp(-h / tau));
    // Nearly equal: the formula loses precision, the result must stay near the limit and
    // move continuously to the regular values.
    for (double rel: {1e-15, 1e-12, 1e-9, 1e-6}) {
        const double near = iaf_integration::exp_current_propagator(tau * (1 + rel), tau, C, h);
        EXPECT_NEAR(near, singular, 1e-5 * singular) << rel;
        EXPECT_GT(near, 0.0) << rel;
    }
    const double regular = iaf_integration::exp_current_propagator(tau * 1.01, tau, C, h);
    EXPECT_NEAR(regular, psp(1.0, h, tau * 1.01, tau, C), 1e-9 * regular);
}

// NEST 3.10's wheel is built without HAVE_EXPM1: its numerics::expm1 is a Taylor series
// (exp(x) - 1 beyond ln 2). Ours follows it term by term so that the propagators are bitwise
// NEST's (the NEST validation tests compare V_m bit for bit); here: it is expm1 to a few ulps.
TEST(iaf_propagators, nest_expm1_is_expm1_to_a_few_ulps) {
    EXPECT_EQ(iaf_integration::nest_expm1(0.0), 0.0);
    EXPECT_EQ(std::numbers::ln2, std::log(2.0));       // NEST's bound between the two branches
    for (double x: {1.0, -1.0, 0.7, -0.7, 3.5, -20.0}) // |x| > ln 2: exp(x) - 1
        EXPECT_EQ(iaf_integration::nest_expm1(x), std::exp(x) - 1) << x;
    int differ = 0;
    for (double x = -0.69; x <= 0.69; x += 0.0013) {
        for (double scale: {1.0, 1e-3, 1e-8}) {
            const double y = x * scale, ours = iaf_integration::nest_expm1(y), libm = std::expm1(y);
            EXPECT_LE(std::abs(ours - libm), 4 * std::abs(libm) * std::numeric_limits<double>::epsilon()) << y;
            differ += ours != libm;
        }
    }
    EXPECT_GT(differ, 0); // the series is not libm's: in the last bit they differ at some x
}

TEST(iaf_psc_exp, psp_matches_the_closed_form_at_every_step) {
    for (double tau_s: {2.0, 10.0}) { // 10 = tau_m: the singular case
        auto g = exp_model::make_group(population({{"tau_syn_ex", tau_s}, {"E_L", -65.0}, {"V_m", -65.0}}), {0});
        recorder out;
        const double w = 100.0;
        const auto v = trace(*g, 200, {{5, 0, w}}, out);
        for (step_type n = 0; n < 200; ++n) {
            // The input of step 5 acts on V from step 6: V after step n is V((n - 5) h).
            const double expected = -65.0 + (n <= 5 ? 0.0 : psp(w, (n - 5) * 0.1, tau_s));
            EXPECT_NEAR(v[n], expected, 1e-12 * 65) << "tau_syn " << tau_s << " step " << n;
        }
        EXPECT_TRUE(out.spikes.empty());
    }
}

TEST(iaf_psc_exp, excitatory_and_inhibitory_channels_use_their_own_time_constants) {
    auto g = exp_model::make_group(population({{"tau_syn_ex", 1.0}, {"tau_syn_in", 5.0}}), {0});
    recorder out;
    const auto v = trace(*g, 100, {{0, 0, 80.0}, {0, 0, -30.0}, {0, 0, 0.0}}, out);
    for (step_type n = 1; n < 100; ++n) {
        const double t = n * 0.1;
        EXPECT_NEAR(v[n], -70.0 + psp(80.0, t, 1.0) + psp(-30.0, t, 5.0), 1e-11) << n;
    }
    EXPECT_NEAR(g->I_syn_ex(0), 80.0 * std::exp(-99 * 0.1 / 1.0), 1e-9);
    EXPECT_NEAR(g->I_syn_in(0), -30.0 * std::exp(-99 * 0.1 / 5.0), 1e-9);
}

TEST(iaf_psc_exp, constant_current_reaches_threshold_at_the_analytic_step) {
    // V(t) = I R (1 - e^{-t/tau_m}), R = tau_m/C; threshold 15 mV above rest at
    // t* = -tau_m ln(1 - theta/(I R)). V after step n is V((n + 1) h), so the first spike is
    // at step ceil(t*/h) - 1; then t_ref = 2 ms clamps 20 steps and the next cycle starts
    // from V_reset = E_L one step later: period ceil(t*/h) + 20.
    for (double I: {400.0, 501.0, 1000.0, 3000.0}) {
        const double tau_m = 10.0, C = 250.0, theta = 15.0, h = 0.1;
        const double t_star = -tau_m * std::log(1 - theta / (I * tau_m / C));
        ASSERT_GT(std::abs(t_star / h - std::round(t_star / h)), 1e-6) << "t* on the grid: ambiguous";
        const auto first = static_cast<step_type>(std::ceil(t_star / h)) - 1;
        auto g = exp_model::make_group(population({{"I_e", I}}), {0});
        recorder out;
        trace(*g, 2000, {}, out);
        const auto spikes = out.steps_of(0);
        ASSERT_GE(spikes.size(), 3u) << I;
        EXPECT_EQ(spikes[0], first) << I;
        for (std::size_t k = 1; k < spikes.size(); ++k) EXPECT_EQ(spikes[k] - spikes[k - 1], first + 1 + 20) << I;
    }
    // Below the rheobase C theta / tau_m = 375 pA: never.
    auto g = exp_model::make_group(population({{"I_e", 374.0}}), {0});
    recorder out;
    trace(*g, 5000, {}, out);
    EXPECT_TRUE(out.spikes.empty());
}

TEST(iaf_psc_exp, refractory_cells_keep_v_but_integrate_their_currents) {
    auto g = exp_model::make_group(population({{"I_e", 1000.0}, {"t_ref", 1.0}, {"V_reset", -75.0}}), {0});
    recorder out;
    step_type spike = -1;
    for (step_type n = 0; spike < 0; ++n) {
        step(*g, n, {}, out);
        if (!out.spikes.empty()) spike = n;
    }
    EXPECT_EQ(g->V_m(0), -75.0);
    EXPECT_EQ(g->refractory_count(0), 10);
    for (step_type n = spike + 1; n <= spike + 10; ++n) {
        step(*g, n, {{spike + 3, 0, 50.0}}, out);
        EXPECT_EQ(g->V_m(0), -75.0) << n; // clamped for t_ref = 10 steps
    }
    EXPECT_NEAR(g->I_syn_ex(0), 50.0 * std::exp(-0.7 / 2.0), 1e-12); // built up meanwhile
    step(*g, spike + 11, {}, out);
    EXPECT_GT(g->V_m(0), -75.0);
    EXPECT_EQ(out.spikes.size(), 1u);
}

TEST(iaf_psc_exp, threshold_is_inclusive) {
    auto g = exp_model::make_group(population({{"V_m", -55.0}, {"I_e", 0.0}, {"E_L", -55.0 - 1e-9}}), {0});
    recorder out;
    // V relative to E_L decays below the threshold: no spike; with V exactly at V_th and
    // E_L = V_th (no decay) the cell fires at once.
    trace(*g, 3, {}, out);
    EXPECT_TRUE(out.spikes.empty());
    auto at =
        exp_model::make_group(population({{"E_L", -55.0}, {"V_m", -55.0}, {"V_th", -55.0}, {"V_reset", -60.0}}), {0});
    trace(*at, 1, {}, out);
    EXPECT_EQ(out.steps_of(0), std::vector<step_type>{0});
}

TEST(iaf_psc_exp, current_input_acts_from_the_next_step_like_i_e) {
    // A current delivered for every step n is NEST's I_stim read at n, acting on V from
    // n + 1: the trace is I_e's shifted by one step, bit for bit.
    auto with_I_e = exp_model::make_group(population({{"I_e", 700.0}}), {0});
    auto with_current = exp_model::make_group(population(param_map{}, 4), {3}, 3);
    recorder a, b;
    std::vector<double> va, vb;
    for (step_type n = 0; n < 400; ++n) {
        step(*with_I_e, n, {}, a);
        va.push_back(with_I_e->V_m(0));
        with_current->begin_step(n, b);
        with_current->deliver_current(n, 3, 300.0);
        with_current->deliver_current(n, 3, 400.0); // the currents of a step add up
        with_current->end_step(n, b);
        vb.push_back(with_current->V_m(3));
    }
    EXPECT_EQ(vb[0], -70.0);
    for (step_type n = 1; n < 400; ++n) EXPECT_EQ(vb[n], va[n - 1]) << n;
    ASSERT_FALSE(a.spikes.empty());
    EXPECT_EQ(b.spikes.front().first, 3u);
    EXPECT_EQ(b.spikes.front().second, a.spikes.front().second + 1);
}

TEST(iaf_psc_exp, deliver_uses_the_given_range_and_rank_local_targets) {
    auto g = exp_model::make_group(population(param_map{}, 4), range(0, 4), 10);
    recorder out;
    const std::vector<local_index> targets = {99, 11, 13, 99};
    const std::vector<double> weights = {1e6, 100.0, -50.0, 1e6};
    g->deliver(0, targets.data(), weights.data(), 1, 3, out);
    g->end_step(0, out);
    EXPECT_EQ(g->I_syn_ex(11), 100.0);
    EXPECT_EQ(g->I_syn_in(13), -50.0);
    EXPECT_EQ(g->I_syn_ex(10), 0.0);
    EXPECT_EQ(g->I_syn_ex(12), 0.0);
}

TEST(iaf_psc_exp, per_cell_parameters_do_not_depend_on_the_split_into_groups) {
    parameter_map params = constant_parameter_map({{"tau_syn_in", 3.0}});
    random_distribution I_e;
    I_e.kind = distribution_kind::normal, I_e.mean = 420.0, I_e.std = 60.0;
    params["I_e"] = {I_e, {}};
    random_distribution V_m;
    V_m.kind = distribution_kind::uniform, V_m.low = -70.0, V_m.high = -56.0;
    params["V_m"] = {V_m, {}};
    std::vector<double> tau_syn_ex(40);
    for (std::size_t i = 0; i < 40; ++i) tau_syn_ex[i] = i % 3 == 0 ? 10.0 : 2.0; // some at tau_m
    params["tau_syn_ex"] = {random_distribution::constant(0.0), tau_syn_ex};
    network_spec spec = population(params, 40, 0.1, 7);

    std::vector<input> inputs;
    for (step_type n = 0; n < 300; n += 7)
        for (local_index c = 0; c < 40; c += 5) inputs.push_back({n, c, c % 2 ? 30.0 : -20.0});

    auto whole = exp_model::make_group(spec, range(0, 40));
    auto first = exp_model::make_group(spec, range(0, 17));
    auto second = exp_model::make_group(spec, range(17, 40), 17);
    recorder a, b;
    for (step_type n = 0; n < 300; ++n) {
        step(*whole, n, inputs, a);
        std::vector<input> first_inputs, second_inputs;
        for (const auto& in: inputs) (in.cell < 17 ? first_inputs : second_inputs).push_back(in);
        step(*first, n, first_inputs, b);
        step(*second, n, second_inputs, b);
        for (local_index c = 0; c < 40; ++c) {
            const double split = c < 17 ? first->V_m(c) : second->V_m(c);
            ASSERT_EQ(whole->V_m(c), split) << "cell " << c << " step " << n;
        }
    }
    ASSERT_GT(a.spikes.size(), 10u);
    std::sort(a.spikes.begin(), a.spikes.end());
    std::sort(b.spikes.begin(), b.spikes.end());
    EXPECT_EQ(a.spikes, b.spikes);
    // Every cell its own I_e: one parameter set per cell; the initial V_m differ too.
    EXPECT_EQ(whole->parameter_sets(), 40u);
    auto fresh = exp_model::make_group(spec, range(0, 40));
    EXPECT_NE(fresh->V_m(0), fresh->V_m(1));
    EXPECT_GE(fresh->V_m(0), -70.0);
    EXPECT_LT(fresh->V_m(0), -56.0);
}

TEST(iaf_psc_exp, cells_with_equal_dynamics_share_a_parameter_set) {
    parameter_map params = constant_parameter_map({{"I_e", 100.0}});
    std::vector<double> tau(1000);
    for (std::size_t i = 0; i < tau.size(); ++i) tau[i] = i % 2 ? 2.0 : 10.0;
    params["tau_syn_ex"] = {random_distribution::constant(0.0), tau};
    random_distribution V_m; // initial values do not make sets
    V_m.kind = distribution_kind::normal, V_m.mean = -65.0, V_m.std = 2.0;
    params["V_m"] = {V_m, {}};
    EXPECT_EQ(exp_model::make_group(population(params, 1000), range(0, 1000))->parameter_sets(), 2u);
    EXPECT_EQ(exp_model::make_group(population({{"I_e", 1.0}}, 1000), range(0, 1000))->parameter_sets(), 1u);
    // Two populations with equal dynamics: one set.
    network_spec two = population({{"I_e", 5.0}}, 10);
    two.populations.push_back({"iaf_psc_exp", 10, 10, constant_parameter_map({{"I_e", 5.0}, {"V_m", -60.0}}), {}});
    auto g = exp_model::make_group(two, range(0, 20));
    EXPECT_EQ(g->parameter_sets(), 1u);
    EXPECT_EQ(g->V_m(3), -70.0);
    EXPECT_EQ(g->V_m(13), -60.0);
}

TEST(iaf_psc_exp, state_variables_and_unknown_names) {
    auto g = exp_model::make_group(population({{"E_L", -60.0}, {"V_m", -62.5}}), {0});
    recorder out;
    step(*g, 0, {{0, 0, 40.0}, {0, 0, -10.0}}, out);
    EXPECT_EQ(g->state(0, "V_m"), g->V_m(0));
    EXPECT_EQ(g->state(0, "I_syn_ex"), 40.0);
    EXPECT_EQ(g->state(0, "I_syn_in"), -10.0);
    try {
        g->state(0, "g_ex");
        FAIL() << "no error";
    } catch (const user_error& e) {
        const std::string what = e.what();
        for (const char* s: {"g_ex", "iaf_psc_exp", "V_m", "I_syn_ex", "I_syn_in"})
            EXPECT_NE(what.find(s), std::string::npos) << what;
    }
}

TEST(iaf_psc_exp, every_invalid_parameter_is_a_user_error_naming_it_and_its_value) {
    const std::vector<std::pair<param_map, std::string>> bad = {
        {{{"C_m", 0.0}}, "C_m = 0"},
        {{{"tau_m", -1.0}}, "tau_m = -1"},
        {{{"tau_syn_ex", 0.0}}, "tau_syn_ex = 0"},
        {{{"tau_syn_in", -2.0}}, "tau_syn_in = -2"},
        {{{"t_ref", -0.1}}, "t_ref = -0.1"},
        {{{"V_reset", -55.0}}, "V_reset = -55"},
        {{{"V_th", -80.0}}, "V_reset = -70"},
        {{{"tau_minus", 0.0}}, "tau_minus = 0"},
        {{{"E_L", std::numeric_limits<double>::quiet_NaN()}}, "E_L = nan"},
        {{{"I_e", std::numeric_limits<double>::infinity()}}, "I_e = inf"},
        {{{"t_ref", 1e300}}, "t_ref = 1"},
        {{{"tau_syn", 2.0}}, "\"tau_syn\" is unknown: allowed are E_L, C_m"},
    };
    for (const auto& [params, text]: bad) {
        try {
            exp_model::make_group(population(params), {0});
            ADD_FAILURE() << "no error for " << text;
        } catch (const user_error& e) {
            EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("iaf_psc_exp"), std::string::npos) << e.what();
            EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
        }
    }
    // A bad value of one cell of an array names the cell.
    parameter_map params;
    params["C_m"] = {random_distribution::constant(0.0), {250.0, -1.0, 250.0}};
    try {
        exp_model::make_group(population(params, 3), range(0, 3));
        ADD_FAILURE() << "no error for a negative C_m of cell 1";
    } catch (const user_error& e) {
        EXPECT_NE(std::string(e.what()).find("C_m = -1: must be > 0 pF (cell 1)"), std::string::npos) << e.what();
    }
    // A bad uniform value is found even by a group that holds none of the population's cells.
    network_spec two = population(param_map{}, 2);
    two.populations.push_back({"iaf_psc_exp", 2, 2, constant_parameter_map({{"C_m", -5.0}}), {}});
    EXPECT_THROW(exp_model::make_group(two, {0}), user_error);
    EXPECT_NO_THROW(exp_model::make_group(population({{"t_ref", 0.0}, {"tau_syn_ex", 10.0}, {"I_e", -50.0}}), {0}));
}

TEST(iaf_psc_exp, registry_entry) {
    const model_entry e = iaf_psc_exp_model();
    EXPECT_EQ(e.name, "iaf_psc_exp");
    EXPECT_EQ(e.kind, model_kind::neuron);
    EXPECT_TRUE(e.accepts_current);
    EXPECT_EQ(e.docs_page, "docs/models/iaf_psc_exp.md");
    EXPECT_EQ(e.state_names(), (std::vector<std::string>{"V_m", "I_syn_ex", "I_syn_in"}));
    EXPECT_EQ(e.parameters.size(), 11u);
    auto g = e.make(population({{"I_e", 1000.0}}, 2), range(0, 2), 0);
    recorder out;
    for (step_type n = 0; n < 100; ++n) {
        g->begin_step(n, out);
        g->end_step(n, out);
    }
    EXPECT_EQ(out.spikes.size(), 2u); // 1000 pA: first spikes at step 47, the next at 115
    EXPECT_GE(g->bytes(), 2 * (7 * sizeof(double)));
}
