// hh_cond_exp_traub and hh_psc_alpha through the model layer: NEST's start, rest, firing
// under a constant current, NEST's spike rule (threshold and falling, then t_ref without a
// test while the dynamics go on), input of each receptor, bad parameters refused by name,
// a diverging cell ending the run, and a checkpoint taken mid-spike. NEST comparisons:
// tests/python/nest_validation/test_nest_hh.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/models/cell_group.hpp"
#include "spikex/models/model_registry.hpp"
#include "spikex/network/network_spec.hpp"

using namespace spikex;

namespace {

constexpr double dt = 0.1;

struct recorder: spike_output {
    std::vector<step_type> steps;
    void emit(local_index, step_type n) override { steps.push_back(n); }
};

std::unique_ptr<cell_group> group(const std::string& model, const std::map<std::string, double>& params,
                                  std::uint32_t size = 1) {
    network_spec spec;
    spec.dt_ms = dt;
    spec.seed = 1;
    spec.populations.push_back({model, 0, size, constant_parameter_map(params), {}});
    std::vector<gid_type> gids(size);
    for (std::uint32_t i = 0; i < size; ++i) gids[i] = i;
    return find_model(model).make(spec, gids, 0);
}

// Runs steps [from, to) of cell 0 of g, recording V_m after each step.
std::vector<double> run(cell_group& g, step_type from, step_type to, recorder& out) {
    std::vector<double> V;
    for (step_type n = from; n < to; ++n) {
        g.end_step(n, out);
        V.push_back(g.state(0, "V_m"));
    }
    return V;
}

// The spike threshold of each model (NEST's: V_T + 30 mV with V_T = -63 mV, and 0 mV).
double threshold(const std::string& model) { return model == "hh_cond_exp_traub" ? -33.0 : 0.0; }

std::string error_of(const std::string& model, const std::map<std::string, double>& params) {
    try {
        auto g = group(model, params);
        recorder out;
        run(*g, 0, 100, out);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

const std::vector<std::string> models = {"hh_cond_exp_traub", "hh_psc_alpha"};

} // namespace

TEST(hh, the_start_is_nests) {
    // NEST 3.10's GetDefaults: V_m and the gating variables, whatever E_L or V_m are given.
    auto traub = group("hh_cond_exp_traub", {{"E_L", -70.0}, {"V_m", -75.0}});
    EXPECT_EQ(traub->state(0, "V_m"), -75.0);
    EXPECT_DOUBLE_EQ(traub->state(0, "Act_m"), 9.895563096746586e-09);
    EXPECT_DOUBLE_EQ(traub->state(0, "Inact_h"), 0.999999999106396);
    EXPECT_DOUBLE_EQ(traub->state(0, "Act_n"), 2.551577051602551e-07);
    EXPECT_EQ(group("hh_cond_exp_traub", {})->state(0, "V_m"), -60.0);
    auto alpha = group("hh_psc_alpha", {{"E_L", -60.0}});
    EXPECT_EQ(alpha->state(0, "V_m"), -65.0);
    EXPECT_DOUBLE_EQ(alpha->state(0, "Act_m"), 0.05293248525724958);
    EXPECT_DOUBLE_EQ(alpha->state(0, "Inact_h"), 0.5961207535084603);
    EXPECT_DOUBLE_EQ(alpha->state(0, "Act_n"), 0.3176769140606974);
    auto given = group("hh_psc_alpha", {{"Act_m", 0.0}, {"Inact_h", 1.0}, {"Act_n", 0.5}});
    EXPECT_EQ(given->state(0, "Act_m"), 0.0);
    EXPECT_EQ(given->state(0, "Inact_h"), 1.0);
    EXPECT_EQ(given->state(0, "Act_n"), 0.5);
}

TEST(hh, rest_is_stable) {
    // hh_psc_alpha starts at its rest (E_L = -54.402 mV balances the currents at -65 mV).
    auto alpha = group("hh_psc_alpha", {});
    recorder out;
    auto V = run(*alpha, 0, 10000, out);
    EXPECT_TRUE(out.steps.empty());
    for (double v: V) ASSERT_NEAR(v, -65.0, 1e-3);
    // hh_cond_exp_traub's start is not its rest (NEST evaluates the rates at V_m, not at
    // V_m - V_T): with a leak below threshold it settles within 500 ms and stays.
    auto traub = group("hh_cond_exp_traub", {{"E_L", -70.0}});
    V = run(*traub, 0, 20000, out);
    EXPECT_TRUE(out.steps.empty());
    EXPECT_GT(std::abs(V[10] - V.back()), 1.0); // not at rest at the start
    for (std::size_t k = 5000; k < V.size(); ++k) ASSERT_NEAR(V[k], V.back(), 1e-6) << "step " << k;
    EXPECT_NEAR(V.back(), -70.0, 1.0);
}

TEST(hh, a_constant_current_drives_regular_firing_faster_with_more_current) {
    for (const auto& model: models) {
        std::vector<double> rates;
        for (double I_e: {1000.0, 1500.0, 2000.0}) {
            auto g = group(model, {{"I_e", I_e}, {"E_L", model == "hh_cond_exp_traub" ? -70.0 : -54.402}});
            recorder out;
            run(*g, 0, 10000, out); // 1 s
            ASSERT_GE(out.steps.size(), 20u) << model << " " << I_e;
            std::vector<double> isi;
            for (std::size_t k = 5; k < out.steps.size(); ++k) isi.push_back(double(out.steps[k] - out.steps[k - 1]));
            const auto [low, high] = std::minmax_element(isi.begin(), isi.end());
            EXPECT_LE(*high - *low, 1.0) << model << " " << I_e; // regular: to one step
            rates.push_back(double(out.steps.size()));
        }
        EXPECT_LT(rates[0], rates[1]) << model;
        EXPECT_LT(rates[1], rates[2]) << model;
    }
}

TEST(hh, a_spike_is_the_first_falling_step_above_threshold_outside_t_ref) {
    // NEST's rule replayed on the recorded V: outside the refractory steps, a step ending
    // at or above threshold below the step's start is a spike, and only those are.
    for (const auto& model: models) {
        for (double t_ref: {0.0, 0.35, 2.0, 6.0}) {
            auto g = group(model, {{"I_e", 1500.0}, {"t_ref", t_ref}});
            recorder out;
            std::vector<double> V = {g->state(0, "V_m")};
            for (double v: run(*g, 0, 3000, out)) V.push_back(v);
            const int refractory_steps = int(std::ceil(t_ref / dt - 1e-9));
            std::vector<step_type> expected;
            int r = 0;
            for (step_type n = 0; n < 3000; ++n) {
                if (r > 0) {
                    --r;
                } else if (V[n + 1] >= threshold(model) && V[n + 1] < V[n]) {
                    expected.push_back(n);
                    r = refractory_steps;
                }
            }
            EXPECT_EQ(out.steps, expected) << model << " t_ref " << t_ref;
            ASSERT_GE(out.steps.size(), 10u) << model << " t_ref " << t_ref;
            // Without t_ref, each action potential gives a spike on every falling step above
            // threshold; with t_ref = 2 ms, one per action potential, at least 21 steps apart.
            bool consecutive = false;
            for (std::size_t k = 1; k < out.steps.size(); ++k) {
                consecutive = consecutive || out.steps[k] == out.steps[k - 1] + 1;
                if (t_ref > 0) EXPECT_GT(out.steps[k] - out.steps[k - 1], refractory_steps);
            }
            EXPECT_EQ(consecutive, t_ref == 0.0) << model;
            // The dynamics go on during t_ref: V keeps moving (no clamp, no reset).
            const step_type first = out.steps[0];
            EXPECT_NE(V[first + 2], V[first + 1]);
            EXPECT_GE(V[first + 1], threshold(model)); // no reset at the spike
        }
    }
}

TEST(hh, inputs_act_from_the_next_step_with_nests_signs_and_units) {
    // hh_cond_exp_traub: w > 0 adds w nS to g_ex, w < 0 adds -w to g_in, after the step's
    // integration; hh_psc_alpha: an alpha current of peak w pA, peaking tau_syn later.
    auto traub = group("hh_cond_exp_traub", {{"E_L", -70.0}}, 2);
    auto alpha = group("hh_psc_alpha", {{"tau_syn_ex", 1.0}, {"tau_syn_in", 2.0}}, 2);
    recorder out;
    const local_index targets[] = {0, 1};
    const double conductances[] = {3.0, -4.0};
    const double currents[] = {50.0, -80.0};
    traub->deliver(0, targets, conductances, 0, 2, out);
    alpha->deliver(0, targets, currents, 0, 2, out);
    traub->end_step(0, out);
    alpha->end_step(0, out);
    EXPECT_EQ(traub->state(0, "g_ex"), 3.0);
    EXPECT_EQ(traub->state(1, "g_in"), 4.0);
    EXPECT_EQ(traub->state(1, "g_ex"), 0.0);
    EXPECT_EQ(alpha->state(0, "I_syn_ex"), 0.0); // dI jumps, I follows from the next step
    double peak_ex = 0, peak_in = 0;
    step_type peak_step = 0;
    for (step_type n = 1; n <= 100; ++n) {
        traub->end_step(n, out);
        alpha->end_step(n, out);
        if (alpha->state(0, "I_syn_ex") > peak_ex) {
            peak_ex = alpha->state(0, "I_syn_ex");
            peak_step = n;
        }
        peak_in = std::min(peak_in, alpha->state(1, "I_syn_in"));
        if (n == 10) EXPECT_GT(alpha->state(0, "V_m"), alpha->state(1, "V_m")); // excitation above inhibition
    }
    EXPECT_NEAR(peak_ex, 50.0, 1e-2);
    EXPECT_EQ(peak_step, 10); // tau_syn_ex = 1 ms after the jump at the end of step 0
    EXPECT_NEAR(peak_in, -80.0, 1e-2);
    EXPECT_NEAR(traub->state(0, "g_ex"), 3.0 * std::exp(-10.0 / 5.0), 1e-3);
    EXPECT_NEAR(traub->state(1, "g_in"), 4.0 * std::exp(-10.0 / 10.0), 1e-3);
    // A current delivered for step n acts from step n + 1 (NEST's I_stim), to cell 0 only.
    auto c = group("hh_psc_alpha", {}, 2);
    c->deliver_current(0, 0, 500.0);
    c->end_step(0, out);
    EXPECT_EQ(c->state(0, "V_m"), c->state(1, "V_m"));
    c->end_step(1, out);
    EXPECT_NEAR(c->state(0, "V_m") - c->state(1, "V_m"), 0.5, 0.05); // 500 pA / 100 pF * 0.1 ms
}

TEST(hh, bad_parameters_are_refused_by_name) {
    EXPECT_EQ(error_of("hh_cond_exp_traub", {{"C_m", 0.0}}), "hh_cond_exp_traub parameter C_m = 0: must be > 0 pF");
    EXPECT_EQ(error_of("hh_cond_exp_traub", {{"t_ref", -1.0}}),
              "hh_cond_exp_traub parameter t_ref = -1: must be >= 0 ms");
    EXPECT_EQ(error_of("hh_cond_exp_traub", {{"tau_syn_in", 0.0}}),
              "hh_cond_exp_traub parameter tau_syn_in = 0: must be > 0 ms");
    EXPECT_EQ(error_of("hh_cond_exp_traub", {{"Act_n", -0.5}}),
              "hh_cond_exp_traub parameter Act_n = -0.5: must be >= 0");
    EXPECT_EQ(error_of("hh_psc_alpha", {{"g_K", -1.0}}), "hh_psc_alpha parameter g_K = -1: must be >= 0 nS");
    EXPECT_EQ(error_of("hh_psc_alpha", {{"tau_syn_ex", -2.0}}),
              "hh_psc_alpha parameter tau_syn_ex = -2: must be > 0 ms");
    EXPECT_EQ(error_of("hh_psc_alpha", {{"V_th", -50.0}}).rfind("hh_psc_alpha parameter \"V_th\" is unknown", 0), 0u);
    // NEST checks no more for hh_cond_exp_traub: negative conductances run (and diverge
    // or not) as there.
    EXPECT_EQ(error_of("hh_cond_exp_traub", {{"g_L", -1.0}, {"E_L", -70.0}}), "");
}

TEST(hh, a_diverging_cell_ends_the_run_naming_model_cell_and_time) {
    for (const auto& model: models) {
        const std::string message = error_of(model, {{"I_e", -1e9}});
        EXPECT_NE(message.find(model + " cell 0 at t = 0.1 ms: the numerical integration failed"), std::string::npos)
            << message;
    }
    // A sub-step that collapses (the cell cannot be integrated at any size) as well.
    const std::string stiff = error_of("hh_psc_alpha", {{"C_m", 1e-12}, {"I_e", 1e3}});
    EXPECT_NE(stiff.find("hh_psc_alpha cell 0 at t = "), std::string::npos) << stiff;
}

TEST(hh, the_rates_removable_singularities_are_their_limits) {
    // V_m exactly where NEST's rate expressions are 0/0 (hh_psc_alpha: alpha_n at -55 mV,
    // alpha_m at -40 mV; hh_cond_exp_traub: alpha_m at V_T + 13 mV): finite, and as from a
    // start next to it.
    for (auto [model, V]: std::vector<std::pair<std::string, double>>{
             {"hh_psc_alpha", -55.0}, {"hh_psc_alpha", -40.0}, {"hh_cond_exp_traub", -50.0}}) {
        auto at = group(model, {{"V_m", V}});
        auto near = group(model, {{"V_m", V + 1e-7}});
        recorder out;
        run(*at, 0, 5, out);
        run(*near, 0, 5, out);
        EXPECT_TRUE(std::isfinite(at->state(0, "Act_n")));
        EXPECT_NEAR(at->state(0, "V_m"), near->state(0, "V_m"), 1e-5) << model << " " << V;
    }
}

TEST(hh, a_checkpoint_mid_spike_goes_on_bit_for_bit) {
    for (const auto& model: models) {
        const std::map<std::string, double> params = {{"I_e", 800.0}, {"t_ref", 3.0}};
        auto whole = group(model, params, 2);
        recorder first;
        const local_index targets[] = {0, 1};
        const double weights[] = {5.0, -5.0};
        step_type stop = -1;
        for (step_type n = 0; n < 2000 && stop < 0; ++n) {
            if (n % 7 == 0) whole->deliver(n, targets, weights, 0, 2, first);
            whole->deliver_current(n, 0, 100.0 * (n % 3));
            whole->end_step(n, first);
            if (!first.steps.empty() && n == first.steps.back() + 5) stop = n + 1; // refractory now
        }
        ASSERT_GT(stop, 0);
        const std::size_t width = find_model(model).checkpoint_state.size();
        auto resumed = group(model, params, 2);
        for (local_index c = 0; c < 2; ++c) {
            std::vector<double> values(width);
            whole->save_cell(c, values.data());
            resumed->load_cell(c, values.data());
        }
        recorder a, b;
        for (step_type n = stop; n < stop + 1500; ++n) {
            for (auto* g: {whole.get(), resumed.get()}) {
                if (n % 7 == 0) g->deliver(n, targets, weights, 0, 2, g == whole.get() ? a : b);
                g->deliver_current(n, 0, 100.0 * (n % 3));
                g->end_step(n, g == whole.get() ? a : b);
            }
        }
        EXPECT_GE(a.steps.size(), 10u) << model;
        EXPECT_EQ(a.steps, b.steps) << model;
        for (local_index c = 0; c < 2; ++c) {
            std::vector<double> x(width), y(width);
            whole->save_cell(c, x.data());
            resumed->save_cell(c, y.data());
            EXPECT_EQ(x, y) << model << " cell " << c;
        }
    }
}
