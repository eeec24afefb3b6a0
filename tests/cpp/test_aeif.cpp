// aeif_cond_exp and aeif_cond_alpha through the model layer: the rest state is the
// equilibrium of the equations, V_m starts at NEST's default whatever E_L is, a constant
// current makes the cell fire with the reset inside the step and w += b at each spike,
// refractoriness clamps V for t_ref, Delta_T = 0 fires at V_th when the leaky integrator's
// solution says, the synaptic conductances have their shapes, NEST's instability checks end
// the run naming the cell and the time, bad parameters are refused by name and a checkpoint
// resumes bit for bit. NEST comparisons: tests/python/nest_validation/test_nest_aeif.py.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/models/aeif_cond.hpp"
#include "spikex/models/cell_group.hpp"
#include "spikex/models/model_registry.hpp"
#include "spikex/network/network_spec.hpp"

using namespace spikex;
using aeif_cond::synapse_shape;

namespace {

struct recorder: spike_output {
    std::vector<step_type> steps;
    std::vector<local_index> cells;
    void emit(local_index cell, step_type n) override {
        steps.push_back(n);
        cells.push_back(cell);
    }
};

const char* name_of(synapse_shape shape) { return shape == synapse_shape::exp ? "aeif_cond_exp" : "aeif_cond_alpha"; }

std::unique_ptr<cell_group> group(synapse_shape shape, const std::map<std::string, double>& params,
                                  std::uint32_t size = 1, double dt = 0.1) {
    network_spec spec;
    spec.dt_ms = dt;
    spec.seed = 1;
    spec.populations.push_back({name_of(shape), 0, size, constant_parameter_map(params), {}});
    std::vector<gid_type> gids(size);
    for (std::uint32_t i = 0; i < size; ++i) gids[i] = i;
    return aeif_cond::make_group(shape, spec, gids);
}

class aeif: public ::testing::TestWithParam<synapse_shape> {
protected:
    std::unique_ptr<cell_group> make(const std::map<std::string, double>& params, std::uint32_t size = 1) {
        return group(GetParam(), params, size);
    }
    std::string name() const { return name_of(GetParam()); }
};

// The user_error message of building a group with `params`.
std::string refusal(synapse_shape shape, const std::map<std::string, double>& params) {
    try {
        group(shape, params);
    } catch (const user_error& e) {
        return e.what();
    }
    return "(accepted)";
}

// The simulation_error message of running `g` for `steps` steps ("" when none).
std::string failure(cell_group& g, step_type steps) {
    recorder out;
    try {
        for (step_type n = 0; n < steps; ++n) g.end_step(n, out);
    } catch (const simulation_error& e) {
        return e.what();
    }
    return "";
}

} // namespace

INSTANTIATE_TEST_SUITE_P(shapes, aeif, ::testing::Values(synapse_shape::exp, synapse_shape::alpha),
                         [](const auto& info) { return std::string(name_of(info.param)); });

TEST_P(aeif, v_m_starts_at_nests_default_and_settles_at_the_equilibrium) {
    EXPECT_EQ(make({{"E_L", -65.0}})->state(0, "V_m"), -70.6); // NEST's rule: V_m does not follow E_L
    EXPECT_EQ(make({{"w", 12.5}})->state(0, "w"), 12.5);
    // Without input V settles where g_L (V - E_L) + a (V - E_L) = g_L Delta_T exp((V - V_th)/Delta_T)
    // (NEST's defaults: 7e-5 mV above E_L), w at a (V - E_L).
    const double g_L = 30.0, a = 4.0, E_L = -70.6, V_th = -50.4, Delta_T = 2.0;
    double V = E_L;
    for (int k = 0; k < 50; ++k) { // Newton
        const double e = g_L * Delta_T * std::exp((V - V_th) / Delta_T);
        V -= ((g_L + a) * (V - E_L) - e) / ((g_L + a) - e / Delta_T);
    }
    auto g = make({});
    recorder out;
    for (step_type n = 0; n < 30000; ++n) g->end_step(n, out); // 3 s, 20 tau_w
    EXPECT_TRUE(out.steps.empty());
    EXPECT_GT(V - E_L, 5e-5);
    EXPECT_NEAR(g->state(0, "V_m"), V, 1e-7);
    EXPECT_NEAR(g->state(0, "w"), a * (V - E_L), 1e-6);
    EXPECT_EQ(g->state(0, "g_ex"), 0.0);
    EXPECT_EQ(g->state(0, "g_in"), 0.0);
}

TEST_P(aeif, a_constant_current_fires_with_reset_within_the_step_and_w_plus_b) {
    const double b = 80.5, V_reset = -60.0;
    auto g = make({{"I_e", 1000.0}});
    recorder out;
    std::vector<double> V, w;
    for (step_type n = 0; n < 5000; ++n) {
        g->end_step(n, out);
        V.push_back(g->state(0, "V_m"));
        w.push_back(g->state(0, "w"));
    }
    ASSERT_GE(out.steps.size(), 10u);
    std::set<step_type> spikes(out.steps.begin(), out.steps.end());
    for (step_type n = 1; n < 5000; ++n) {
        const double dw = w[n] - w[n - 1];
        if (spikes.count(n)) {
            // Reset at the sub-step that reached V_peak, then integrated for the rest of the
            // step (t_ref = 0): just above V_reset, not at it.
            EXPECT_GT(V[n], V_reset) << n;
            EXPECT_LT(V[n], V_reset + 3.0) << n;
            EXPECT_NEAR(dw, b, 1.0) << n;
        } else {
            EXPECT_LT(V[n], 0.0) << n; // never recorded at or above V_peak
            EXPECT_LT(std::abs(dw), 1.0) << n;
        }
    }
    // Adaptation: the intervals grow.
    const auto isi = [&](std::size_t k) { return out.steps[k + 1] - out.steps[k]; };
    EXPECT_LT(isi(0), isi(out.steps.size() - 2));
}

TEST_P(aeif, refractoriness_clamps_v_at_v_reset_for_t_ref) {
    auto g = make({{"I_e", 1000.0}, {"t_ref", 2.0}});
    recorder out;
    step_type first = -1;
    double w_at_spike = 0;
    for (step_type n = 0; n < 1000 && first < 0; ++n) {
        g->end_step(n, out);
        if (!out.steps.empty()) {
            first = out.steps[0];
            w_at_spike = g->state(0, "w");
        }
    }
    ASSERT_GE(first, 0);
    EXPECT_EQ(g->state(0, "V_m"), -60.0); // the rest of the spike's step is refractory
    for (step_type n = first + 1; n <= first + 20; ++n) {
        g->end_step(n, out);
        EXPECT_EQ(g->state(0, "V_m"), -60.0) << "step " << n; // V_reset, 20 steps of 0.1 ms
    }
    EXPECT_NE(g->state(0, "w"), w_at_spike); // w goes on, with V = V_reset in its equation
    g->end_step(first + 21, out);
    EXPECT_GT(g->state(0, "V_m"), -60.0);
    EXPECT_EQ(out.steps.size(), 1u);
}

TEST_P(aeif, delta_t_zero_fires_at_v_th_as_the_leaky_integrator_says) {
    // Delta_T = 0, a = 0: dV/dt = (-g_L (V - E_L) + I_e) / C_m from E_L reaches V_th at
    // t* = -tau ln(1 - (V_th - E_L) g_L / I_e); the spike is in the step holding t*.
    const double g_L = 30.0, C_m = 281.0, E_L = -70.6, V_th = -50.4, I_e = 700.0;
    auto g = make({{"Delta_T", 0.0}, {"a", 0.0}, {"b", 0.0}, {"I_e", I_e}, {"V_m", E_L}});
    const double t_star = -(C_m / g_L) * std::log(1.0 - (V_th - E_L) * g_L / I_e);
    recorder out;
    for (step_type n = 0; n < 400 && out.steps.empty(); ++n) {
        g->end_step(n, out);
        if (out.steps.empty()) EXPECT_LT(g->state(0, "V_m"), V_th);
    }
    ASSERT_EQ(out.steps.size(), 1u);
    ASSERT_GT(std::abs(t_star / 0.1 - std::round(t_star / 0.1)), 1e-3); // not on a step boundary
    EXPECT_EQ(out.steps[0], static_cast<step_type>(std::ceil(t_star / 0.1)) - 1);
    EXPECT_GE(g->state(0, "V_m"), -60.0); // reset at the sub-step that crossed
}

TEST_P(aeif, several_crossings_in_one_step_adapt_each_time_and_spike_once) {
    // t_ref = 0 and a huge current: V runs from V_reset to V_peak several times a step.
    // NEST resets and adds b at each (and sends as many events); spikex cells spike once a step.
    auto g = make({{"I_e", 1e6}, {"b", 10.0}, {"a", 0.0}});
    recorder out;
    double w = 0;
    int multiple = 0;
    for (step_type n = 0; n < 20; ++n) {
        g->end_step(n, out);
        const double crossings = (g->state(0, "w") - w) / 10.0;
        w = g->state(0, "w");
        if (crossings > 1.5) ++multiple;
    }
    EXPECT_GT(multiple, 5);
    EXPECT_EQ(out.steps.size(), std::set<step_type>(out.steps.begin(), out.steps.end()).size());
    EXPECT_GE(out.steps.size(), 19u);
}

TEST_P(aeif, a_conductance_input_has_its_shape) {
    auto g = make({{"tau_syn_ex", 2.0}, {"tau_syn_in", 5.0}}, 2);
    recorder out;
    const local_index targets[] = {0, 1};
    const double weights[] = {10.0, -4.0}; // nS: excitatory to cell 0, inhibitory (4 nS) to cell 1
    g->deliver(0, targets, weights, 0, 2, out);
    g->end_step(0, out);
    for (step_type n = 1; n <= 30; ++n) g->end_step(n, out);
    const double t = 3.0; // ms after the input
    if (GetParam() == synapse_shape::exp) {
        EXPECT_NEAR(g->state(0, "g_ex"), 10.0 * std::exp(-t / 2.0), 1e-5);
        EXPECT_NEAR(g->state(1, "g_in"), 4.0 * std::exp(-t / 5.0), 1e-5);
    } else { // NEST's alpha: weight w peaks at w, tau_syn after the input
        auto alpha = [](double w, double tau, double s) { return w * s / tau * std::exp(1.0 - s / tau); };
        EXPECT_NEAR(g->state(0, "g_ex"), alpha(10.0, 2.0, t), 1e-5);
        EXPECT_NEAR(g->state(1, "g_in"), alpha(4.0, 5.0, t), 1e-5);
    }
    EXPECT_GT(g->state(0, "V_m"), -70.6); // depolarised towards E_ex
    EXPECT_LT(g->state(1, "V_m"), -70.6); // hyperpolarised towards E_in
    EXPECT_EQ(g->state(0, "g_in"), 0.0);
}

TEST_P(aeif, a_current_input_acts_from_the_next_step) {
    auto g = make({}, 2);
    recorder out;
    g->deliver_current(0, 0, 500.0);
    g->end_step(0, out);
    EXPECT_EQ(g->state(0, "V_m"), g->state(1, "V_m")); // read at step 0, acts from step 1
    g->end_step(1, out);
    EXPECT_GT(g->state(0, "V_m"), g->state(1, "V_m") + 0.1);
}

TEST_P(aeif, a_membrane_potential_below_minus_1000_mv_ends_the_run_naming_cell_and_time) {
    // E_in = -5000 mV and an inhibitory input to cell 1 at step 0, effective from step 1:
    // over step 1 the conductance's integral G (exp: 1000 nS decaying with 2 ms, 97.5 nS ms;
    // alpha: 3000 nS peaking at 0.01 ms, 81.5 nS ms) takes V below
    // E_in + (V_0 - E_in) exp(-G / C_m) < -1000 mV (C_m ln(4929/4000) = 58.7 nS ms are enough).
    const bool alpha = GetParam() == synapse_shape::alpha;
    auto g = make({{"E_in", -5000.0}, {"tau_syn_in", alpha ? 0.01 : 2.0}}, 2);
    recorder out;
    const local_index targets[] = {1};
    const double weights[] = {alpha ? -3000.0 : -1000.0};
    g->deliver(0, targets, weights, 0, 1, out);
    const std::string message = failure(*g, 5);
    EXPECT_EQ(message.rfind(name() + " cell 1 at t = 0.2 ms: the numerical integration failed (V_m = -", 0), 0u)
        << message;
}

TEST_P(aeif, an_adaptation_current_beyond_1e6_pa_ends_the_run_naming_cell_and_time) {
    // b = 2e6 pA: w passes NEST's bound at the first spike; the check after the next sub-step
    // stops the run (in the spike's step or the next).
    recorder out;
    auto twin = make({{"I_e", 1000.0}});
    for (step_type n = 0; n < 1000 && out.steps.empty(); ++n) twin->end_step(n, out);
    ASSERT_EQ(out.steps.size(), 1u);
    auto g = make({{"I_e", 1000.0}, {"b", 2e6}});
    const std::string message = failure(*g, 1000);
    const auto at = [&](step_type n) { return spikex::format("{} cell 0 at t = {:g} ms: ", name(), (n + 1) * 0.1); };
    const bool named = message.find(at(out.steps[0])) == 0 || message.find(at(out.steps[0] + 1)) == 0;
    EXPECT_TRUE(named) << message << " (first spike at step " << out.steps[0] << ")";
    EXPECT_NE(message.find("the adaptation current diverged (w = 200"), std::string::npos) << message;
}

TEST(aeif_parameters, bad_values_are_refused_by_name) {
    for (auto shape: {synapse_shape::exp, synapse_shape::alpha}) {
        const std::string model = name_of(shape);
        EXPECT_EQ(refusal(shape, {{"V_peak", -55.0}}), model + " parameter V_peak = -55: must be >= V_th = -50.4 mV");
        EXPECT_EQ(refusal(shape, {{"V_reset", 0.0}}), model + " parameter V_reset = 0: must be < V_peak = 0 mV");
        EXPECT_EQ(refusal(shape, {{"Delta_T", -1.0}}), model + " parameter Delta_T = -1: must be >= 0 mV");
        EXPECT_EQ(refusal(shape, {{"C_m", 0.0}}), model + " parameter C_m = 0: must be > 0 pF");
        EXPECT_EQ(refusal(shape, {{"tau_w", 0.0}}), model + " parameter tau_w = 0: must be > 0 ms");
        EXPECT_EQ(refusal(shape, {{"tau_syn_in", -1.0}}), model + " parameter tau_syn_in = -1: must be > 0 ms");
        EXPECT_EQ(refusal(shape, {{"t_ref", -0.5}}), model + " parameter t_ref = -0.5: must be >= 0 ms");
        EXPECT_EQ(refusal(shape, {{"gsl_error_tol", 0.0}}), model + " parameter gsl_error_tol = 0: must be > 0");
        // NEST's overflow check: (V_peak - V_th) / Delta_T below ln(largest double / 1e20).
        const std::string overflow = refusal(shape, {{"Delta_T", 0.05}});
        EXPECT_EQ(overflow.rfind(model + " parameter Delta_T = 0.05: must be 0 or > 0.0759", 0), 0u) << overflow;
        EXPECT_EQ(refusal(shape, {{"Delta_T", 0.1}}), "(accepted)");
        EXPECT_EQ(refusal(shape, {{"Delta_T", 0.0}, {"V_peak", -50.4}, {"V_reset", -70.0}}), "(accepted)");
        EXPECT_EQ(refusal(shape, {{"tau_minus", 0.0}}), model + " parameter tau_minus = 0: must be > 0 ms");
    }
}

TEST_P(aeif, a_checkpoint_resumes_bit_for_bit) {
    // Cells mid-spike, refractory, with current and conductance inputs pending.
    const std::map<std::string, double> params = {{"I_e", 1500.0}, {"t_ref", 1.0}};
    auto whole = make(params, 3);
    recorder before, after, resumed;
    auto inputs = [](cell_group& g, step_type n, recorder& out) {
        const local_index targets[] = {0, 1, 2};
        const double weights[] = {5.0 + n % 7, -3.0, n % 3 ? 2.0 : -8.0};
        if (n % 4 == 0) g.deliver(n, targets, weights, 0, 3, out);
        if (n % 9 == 1) g.deliver_current(n, 1, 300.0);
        g.end_step(n, out);
    };
    const step_type stop = 1234, end = 6000;
    for (step_type n = 0; n < stop; ++n) inputs(*whole, n, before);
    const auto& names = find_model(name()).checkpoint_state;
    auto restored = make(params, 3);
    for (local_index i = 0; i < 3; ++i) {
        std::vector<double> v(names.size());
        whole->save_cell(i, v.data());
        restored->load_cell(i, v.data());
    }
    restored->after_load();
    for (step_type n = stop; n < end; ++n) {
        inputs(*whole, n, after);
        inputs(*restored, n, resumed);
        for (local_index i = 0; i < 3; ++i) {
            for (const char* v: {"V_m", "w", "g_ex", "g_in"}) ASSERT_EQ(whole->state(i, v), restored->state(i, v));
        }
    }
    EXPECT_GT(after.steps.size(), 30u);
    EXPECT_EQ(after.steps, resumed.steps);
    EXPECT_EQ(after.cells, resumed.cells);
    std::vector<double> a(names.size()), b(names.size());
    for (local_index i = 0; i < 3; ++i) {
        whole->save_cell(i, a.data());
        restored->save_cell(i, b.data());
        EXPECT_EQ(a, b);
    }
}
