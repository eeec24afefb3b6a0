// iaf_psc_exp_multisynapse and iaf_psc_alpha_multisynapse through the model layer (the
// registry's groups, spikes delivered with deliver_port): a spike's weight, of either sign,
// goes to its own port's current only; a port's current decays with its own tau_syn (exp) or
// is an alpha function peaking at the weight tau_syn after the spike; one exp port's PSP is
// the closed form; with two ports as the excitatory and inhibitory synapses the models are
// iaf_psc_exp / iaf_psc_alpha (to rounding: NEST orders their sums differently); ports with
// equal tau_syn add up; refractoriness, V_min, current inputs; NEST's list and parameter
// rules refused by name. NEST comparison: tests/python/nest_validation/test_nest_psc_multisynapse.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/models/cell_group.hpp"
#include "spikex/models/model_registry.hpp"
#include "spikex/network/network_spec.hpp"

using namespace spikex;

namespace {

constexpr double h = 0.1;
const char* const exp_multi = "iaf_psc_exp_multisynapse";
const char* const alpha_multi = "iaf_psc_alpha_multisynapse";

struct recorder: spike_output {
    std::vector<std::pair<local_index, step_type>> spikes;
    void emit(local_index cell, step_type n) override { spikes.push_back({cell, n}); }
};

using taus_per_cell = std::vector<std::vector<double>>; // one list: every cell; empty: tau_syn not given

population_spec population(const std::string& model, std::uint32_t size, const std::map<std::string, double>& params,
                           const taus_per_cell& taus) {
    population_spec pop{model, 0, size, constant_parameter_map(params), {}};
    if (taus.empty()) return pop;
    auto& l = pop.lists["tau_syn"];
    l.offsets.push_back(0);
    for (std::uint32_t i = 0; i < size; ++i) {
        const auto& v = taus[taus.size() == 1 ? 0 : i];
        l.values.insert(l.values.end(), v.begin(), v.end());
        l.offsets.push_back(l.values.size());
    }
    return pop;
}

std::unique_ptr<cell_group> group(const std::string& model, const std::map<std::string, double>& params,
                                  const taus_per_cell& taus = {}, std::uint32_t size = 1) {
    network_spec spec;
    spec.dt_ms = h;
    spec.seed = 1;
    spec.populations.push_back(population(model, size, params, taus));
    std::vector<gid_type> gids(size);
    for (gid_type g = 0; g < size; ++g) gids[g] = g;
    return find_model(model).make(spec, gids, 0);
}

std::string refusal(const std::string& model, const std::map<std::string, double>& params, const taus_per_cell& taus,
                    std::uint32_t size = 1) {
    try {
        group(model, params, taus, size);
    } catch (const user_error& e) {
        return e.what();
    }
    return "(accepted)";
}

void send(cell_group& g, std::uint32_t port, step_type n, double weight, recorder& out, local_index cell = 0) {
    const local_index targets[] = {cell};
    const double weights[] = {weight};
    g.deliver_port(port, n, targets, weights, 0, 1, out);
}

// V (mV above rest) t ms after an input of w pA through an exp port at rest (C = 250 pF,
// tau_m = 10 ms): w tau_s tau_m / (C (tau_m - tau_s)) (e^{-t/tau_m} - e^{-t/tau_s}).
double psp(double w, double t, double tau_s, double tau_m = 10.0, double C = 250.0) {
    return w * tau_s * tau_m / (C * (tau_m - tau_s)) * (std::exp(-t / tau_m) - std::exp(-t / tau_s));
}

// Irregular inputs of both signs (a fixed pattern, no RNG needed): weight of step n, 0 if none.
double input_of(step_type n, int which) {
    const step_type period = which == 0 ? 7 : 11;
    if (n % period != 0) return 0.0;
    const double size = which == 0 ? 260.0 + 40.0 * double(n % 5) : 90.0 + 15.0 * double(n % 3);
    return which == 0 ? size : -size;
}

} // namespace

TEST(iaf_psc_multisynapse, ports_come_from_the_tau_syn_list_and_name_the_recordables) {
    for (const char* model: {exp_multi, alpha_multi}) {
        const model_entry& e = find_model(model);
        ASSERT_TRUE(e.receptor_ports) << model;
        EXPECT_EQ(e.receptor_ports(population(model, 2, {}, {})), 1u) << model; // NEST's default [2.0]
        const auto three = population(model, 2, {}, {{0.5, 3.0, 12.0}});
        EXPECT_EQ(e.receptor_ports(three), 3u) << model;
        EXPECT_EQ(e.state_names(three), (std::vector<std::string>{"V_m", "I_syn", "I_syn_1", "I_syn_2", "I_syn_3"}));
        EXPECT_TRUE(e.accepts_current) << model;
        EXPECT_NE(e.parameter("tau_minus"), nullptr) << model; // STDP onto it
    }
}

TEST(iaf_psc_multisynapse, a_spike_reaches_its_own_port_only_and_decays_with_its_tau_syn) {
    const std::vector<double> taus = {0.5, 3.0, 12.0};
    auto g = group(exp_multi, {}, {taus});
    recorder out;
    send(*g, 2, 0, -30.0, out); // inhibitory, through port 2
    send(*g, 2, 0, 5.0, out);   // same step, same port: added
    g->end_step(0, out);
    EXPECT_EQ(g->state(0, "I_syn_1"), 0.0);
    EXPECT_EQ(g->state(0, "I_syn_2"), -25.0);
    EXPECT_EQ(g->state(0, "I_syn_3"), 0.0);
    EXPECT_EQ(g->state(0, "V_m"), -70.0); // the current acts on V from the next step
    send(*g, 3, 1, 40.0, out);
    g->end_step(1, out);
    EXPECT_EQ(g->state(0, "I_syn_2"), -25.0 * std::exp(-h / 3.0));
    EXPECT_EQ(g->state(0, "I_syn_3"), 40.0);
    EXPECT_EQ(g->state(0, "I_syn"), g->state(0, "I_syn_1") + g->state(0, "I_syn_2") + g->state(0, "I_syn_3"));
    EXPECT_LT(g->state(0, "V_m"), -70.0);
    for (step_type n = 2; n < 50; ++n) g->end_step(n, out);
    EXPECT_NEAR(g->state(0, "I_syn_2"), -25.0 * std::exp(-49 * h / 3.0), 1e-12);
    EXPECT_NEAR(g->state(0, "I_syn_3"), 40.0 * std::exp(-48 * h / 12.0), 1e-12);
    EXPECT_TRUE(out.spikes.empty());
}

TEST(iaf_psc_multisynapse, an_exp_ports_psp_is_the_closed_form) {
    for (double tau_s: {0.5, 2.0, 30.0}) {
        auto g = group(exp_multi, {{"E_L", -65.0}, {"V_m", -65.0}}, {{7.0, tau_s}});
        recorder out;
        const double w = 100.0;
        for (step_type n = 0; n < 300; ++n) {
            if (n == 5) send(*g, 2, n, w, out);
            g->end_step(n, out);
            const double expected = -65.0 + (n <= 5 ? 0.0 : psp(w, double(n - 5) * h, tau_s));
            EXPECT_NEAR(g->state(0, "V_m"), expected, 1e-12 * 65) << "tau_syn " << tau_s << " step " << n;
        }
    }
}

TEST(iaf_psc_multisynapse, an_alpha_ports_current_peaks_at_the_weight_tau_syn_after_the_spike) {
    for (double w: {150.0, -60.0}) {
        auto g = group(alpha_multi, {}, {{1.0, 4.0}});
        recorder out;
        send(*g, 2, 0, w, out);
        double peak = 0.0;
        step_type peak_step = -1;
        for (step_type n = 0; n < 400; ++n) {
            g->end_step(n, out);
            EXPECT_EQ(g->state(0, "I_syn_1"), 0.0);
            const double I = g->state(0, "I_syn_2");
            // I(t) = w t/tau e^{1 - t/tau}, t = n h (the spike's jump enters dI at step 0)
            const double t = double(n) * h;
            EXPECT_NEAR(I, w * t / 4.0 * std::exp(1.0 - t / 4.0), 1e-12 * std::abs(w)) << n;
            if (std::abs(I) > std::abs(peak)) peak = I, peak_step = n;
        }
        EXPECT_EQ(peak_step, 40); // tau_syn = 4 ms
        EXPECT_NEAR(peak, w, 1e-12 * std::abs(w));
    }
}

// Two ports as iaf_psc_exp's / iaf_psc_alpha's excitatory and inhibitory synapses: positive
// weights through port 1, negative through port 2, the same I_e and current inputs. NEST's
// single models sum V's terms in another order, so V agrees to rounding; the spikes are equal.
TEST(iaf_psc_multisynapse, with_two_ports_it_is_the_single_model) {
    for (bool alpha: {false, true}) {
        const std::map<std::string, double> common = {{"I_e", 300.0}, {"t_ref", 1.5}, {"tau_m", 12.0}, {"C_m", 220.0}};
        auto single_params = common;
        single_params["tau_syn_ex"] = 0.8;
        single_params["tau_syn_in"] = 4.0;
        auto single = group(alpha ? "iaf_psc_alpha" : "iaf_psc_exp", single_params);
        auto multi = group(alpha ? alpha_multi : exp_multi, common, {{0.8, 4.0}});
        recorder out_single, out_multi;
        const local_index cell[] = {0};
        for (step_type n = 0; n < 6000; ++n) {
            for (int which: {0, 1}) {
                const double w = input_of(n, which);
                if (w == 0.0) continue;
                const double weights[] = {w};
                single->deliver(n, cell, weights, 0, 1, out_single);
                multi->deliver_port(which == 0 ? 1 : 2, n, cell, weights, 0, 1, out_multi);
            }
            if (n >= 2000 && n < 3000) { // a current input, as a dc_generator's
                single->deliver_current(n, 0, 150.0);
                multi->deliver_current(n, 0, 150.0);
            }
            single->end_step(n, out_single);
            multi->end_step(n, out_multi);
            const double a = single->state(0, "V_m"), b = multi->state(0, "V_m");
            ASSERT_NEAR(a, b, 1e-11) << (alpha ? "alpha" : "exp") << " step " << n;
        }
        EXPECT_GT(out_multi.spikes.size(), 20u) << alpha;
        EXPECT_EQ(out_single.spikes, out_multi.spikes) << alpha;
    }
}

TEST(iaf_psc_multisynapse, ports_with_equal_tau_syn_add_up) {
    for (const char* model: {exp_multi, alpha_multi}) {
        auto two = group(model, {{"I_e", 360.0}}, {{3.0, 3.0}});
        auto one = group(model, {{"I_e", 360.0}}, {{3.0}});
        recorder out_two, out_one;
        for (step_type n = 0; n < 3000; ++n) {
            const double a = input_of(n, 0), b = input_of(n, 1);
            if (a != 0.0) send(*two, 1, n, a, out_two);
            if (b != 0.0) send(*two, 2, n, b, out_two);
            if (a + b != 0.0) send(*one, 1, n, a + b, out_one);
            two->end_step(n, out_two);
            one->end_step(n, out_one);
            ASSERT_NEAR(two->state(0, "V_m"), one->state(0, "V_m"), 1e-11) << model << " step " << n;
            ASSERT_NEAR(two->state(0, "I_syn"), one->state(0, "I_syn_1"), 1e-11) << model << " step " << n;
        }
        EXPECT_GT(out_one.spikes.size(), 5u) << model;
        EXPECT_EQ(out_two.spikes, out_one.spikes) << model;
    }
}

TEST(iaf_psc_multisynapse, refractory_v_stays_at_reset_while_the_currents_go_on) {
    for (const char* model: {exp_multi, alpha_multi}) {
        auto g = group(model, {{"t_ref", 2.0}, {"V_reset", -72.0}}, {{0.5, 5.0}});
        recorder out;
        send(*g, 1, 0, 30000.0, out); // one strong input: a spike within a few steps
        step_type fired = -1;
        for (step_type n = 0; n < 100 && fired < 0; ++n) {
            g->end_step(n, out);
            if (!out.spikes.empty()) fired = out.spikes[0].second;
        }
        ASSERT_GE(fired, 0) << model;
        EXPECT_EQ(g->state(0, "V_m"), -72.0);
        send(*g, 2, fired + 1, 500.0, out); // input during the refractory period
        for (step_type n = fired + 1; n <= fired + 20; ++n) {
            const double I_before = g->state(0, "I_syn_2");
            g->end_step(n, out);
            EXPECT_EQ(g->state(0, "V_m"), -72.0) << model << " step " << n; // 20 steps of t_ref
            if (n > fired + 2) EXPECT_NE(g->state(0, "I_syn_2"), I_before) << model;
        }
        g->end_step(fired + 21, out);
        EXPECT_NE(g->state(0, "V_m"), -72.0) << model;
        EXPECT_EQ(out.spikes.size(), 1u) << model;
    }
}

TEST(iaf_psc_multisynapse, current_inputs_and_i_e_drive_v_as_p20) {
    for (const char* model: {exp_multi, alpha_multi}) {
        auto g = group(model, {{"I_e", 100.0}}, {{2.0, 5.0}});
        recorder out;
        g->deliver_current(0, 0, 50.0); // acts from step 1
        g->end_step(0, out);
        const double P22 = std::exp(-h / 10.0), P20 = 10.0 / 250.0 * (1 - P22);
        EXPECT_NEAR(g->state(0, "V_m"), -70.0 + 100.0 * P20, 1e-12) << model;
        g->end_step(1, out);
        EXPECT_NEAR(g->state(0, "V_m"), -70.0 + 100.0 * P20 * P22 + 150.0 * P20, 1e-12) << model;
    }
}

TEST(iaf_psc_multisynapse, alpha_v_min_bounds_the_membrane) {
    auto g = group(alpha_multi, {{"V_min", -75.0}}, {{1.0}});
    recorder out;
    send(*g, 1, 0, -100000.0, out);
    double lowest = 0.0;
    for (step_type n = 0; n < 200; ++n) {
        g->end_step(n, out);
        lowest = std::min(lowest, g->state(0, "V_m"));
    }
    EXPECT_EQ(lowest, -75.0);
}

TEST(iaf_psc_multisynapse, recordables_and_settable_state) {
    for (const char* model: {exp_multi, alpha_multi}) {
        auto g = group(model, {}, {{1.0, 2.0}});
        g->set_state(0, "V_m", -60.0);
        EXPECT_EQ(g->state(0, "V_m"), -60.0);
        EXPECT_THROW(g->set_state(0, "I_syn_1", 1.0), user_error) << model; // as NEST's SetStatus
        EXPECT_THROW(g->set_state(0, "I_syn", 1.0), user_error) << model;
        EXPECT_THROW(g->state(0, "I_syn_3"), user_error) << model; // two ports
        EXPECT_THROW(g->state(0, "I_syn_0"), user_error) << model;
        EXPECT_THROW(g->state(0, "g_1"), user_error) << model;
    }
}

TEST(iaf_psc_multisynapse, plain_deliver_is_an_internal_error) {
    auto g = group(exp_multi, {}, {});
    recorder out;
    const local_index cell[] = {0};
    const double weights[] = {1.0};
    EXPECT_THROW(g->deliver(0, cell, weights, 0, 1, out), internal_error);
}

TEST(iaf_psc_multisynapse, bad_lists_and_parameters_are_refused_naming_model_key_and_value) {
    for (const char* model: {exp_multi, alpha_multi}) {
        const std::string name = model;
        auto refused = [&](const std::map<std::string, double>& params, const taus_per_cell& taus,
                           const std::string& words, std::uint32_t size = 1) {
            const std::string message = refusal(model, params, taus, size);
            EXPECT_EQ(message.rfind(name + " parameter ", 0), 0u) << message;
            EXPECT_NE(message.find(words), std::string::npos) << message;
        };
        refused({}, {{}}, "tau_syn (cell 0): 0 values: must have 1 to 16");
        refused({}, {std::vector<double>(17, 1.0)}, "tau_syn (cell 0): 17 values: must have 1 to 16");
        refused({}, {{1.0, 0.0}}, "tau_syn = 0: must be > 0 ms (cell 0)");
        refused({}, {{-2.0}}, "tau_syn = -2: must be > 0 ms (cell 0)");
        refused({}, {{1.0}, {1.0, 2.0}}, "tau_syn (cell 1): 2 values where the population's first cell has 1", 2);
        refused({{"V_reset", -50.0}}, {}, "V_reset = -50: must be < V_th = -55 mV");
        refused({{"C_m", 0.0}}, {}, "C_m = 0: must be > 0 pF");
        refused({{"tau_m", -1.0}}, {}, "tau_m = -1: must be > 0 ms");
        refused({{"t_ref", -0.1}}, {}, "t_ref = -0.1: must be >= 0 ms");
        EXPECT_EQ(refusal(model, {}, {std::vector<double>(16, 1.0)}), "(accepted)");
        EXPECT_EQ(refusal(model, {}, {{1.0, 2.0}, {3.0, 4.0}}, 2), "(accepted)"); // lists differ, lengths equal
        // NEST refuses a given tau_syn equal to tau_m in the exp model only; its default
        // [2.0] with tau_m = 2 it accepts (the propagator's limit).
        EXPECT_EQ(refusal(model, {{"tau_m", 2.0}}, {}), "(accepted)");
        if (name == exp_multi)
            refused({{"tau_m", 5.0}}, {{1.0, 5.0}}, "tau_syn = 5: must differ from tau_m = 5 ms (cell 0");
        else
            EXPECT_EQ(refusal(model, {{"tau_m", 5.0}}, {{1.0, 5.0}}), "(accepted)");
    }
}

// At tau_syn == tau_m (the exp model's default list with tau_m = 2, as NEST allows) the
// PSP is the limit w t/C e^{-t/tau}.
TEST(iaf_psc_multisynapse, exp_port_at_tau_m_is_the_limit) {
    auto g = group(exp_multi, {{"tau_m", 2.0}}, {});
    recorder out;
    send(*g, 1, 0, 100.0, out);
    for (step_type n = 0; n < 200; ++n) {
        g->end_step(n, out);
        const double t = double(n) * h;
        EXPECT_NEAR(g->state(0, "V_m"), -70.0 + 100.0 * t / 250.0 * std::exp(-t / 2.0), 1e-12 * 70) << n;
    }
}
