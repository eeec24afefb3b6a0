// glif_psc through the model layer (the registry's group, spikes through deliver_port):
// GLIF1 is iaf_psc_alpha_multisynapse with tau_m = C_m/g (the same propagators, bit for
// bit); a port's current is an alpha function peaking at the weight tau_syn later; the
// reset rules of GLIF2 (U from the potential before the spike, the threshold's spike
// component), the after-spike currents of GLIF3 (their jump and their exact mean over a
// step), GLIF5's voltage component against a fine integration of its equation; the
// refractory period holds U; NEST's parameter rules and the settable state refused by
// name; a diverging input ends the run. NEST comparison: tests/python/nest_validation/test_nest_glif.py.
#include <gtest/gtest.h>

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
const char* const glif = "glif_psc";

struct recorder: spike_output {
    std::vector<std::pair<local_index, step_type>> spikes;
    void emit(local_index cell, step_type n) override { spikes.push_back({cell, n}); }
};

using lists = std::map<std::string, std::vector<double>>; // one list for every cell

population_spec population(const std::string& model, std::uint32_t size, const std::map<std::string, double>& params,
                           const lists& l) {
    population_spec pop{model, 0, size, constant_parameter_map(params), {}};
    for (const auto& [name, values]: l) {
        auto& cells = pop.lists[name];
        cells.offsets.push_back(0);
        for (std::uint32_t i = 0; i < size; ++i) {
            cells.values.insert(cells.values.end(), values.begin(), values.end());
            cells.offsets.push_back(cells.values.size());
        }
    }
    return pop;
}

std::unique_ptr<cell_group> group(const std::string& model, const std::map<std::string, double>& params,
                                  const lists& l = {}) {
    network_spec spec;
    spec.dt_ms = h;
    spec.seed = 1;
    spec.populations.push_back(population(model, 1, params, l));
    return find_model(model).make(spec, {0}, 0);
}

std::string refusal(const std::map<std::string, double>& params, const lists& l = {}) {
    try {
        group(glif, params, l);
    } catch (const user_error& e) {
        return e.what();
    }
    return "(accepted)";
}

void send(cell_group& g, std::uint32_t port, step_type n, double weight, recorder& out) {
    const local_index targets[] = {0};
    const double weights[] = {weight};
    g.deliver_port(port, n, targets, weights, 0, 1, out);
}

const std::map<std::string, double> glif2 = {{"spike_dependent_threshold", 1.0}};
const std::map<std::string, double> glif3 = {{"after_spike_currents", 1.0}};
const std::map<std::string, double> glif5 = {
    {"spike_dependent_threshold", 1.0}, {"after_spike_currents", 1.0}, {"adapting_threshold", 1.0}};

std::map<std::string, double> with(std::map<std::string, double> a, const std::map<std::string, double>& b) {
    for (const auto& [k, v]: b) a[k] = v;
    return a;
}

} // namespace

TEST(glif_psc, ports_come_from_tau_syn_and_the_recordables_are_nests) {
    const model_entry& e = find_model(glif);
    ASSERT_TRUE(e.receptor_ports);
    EXPECT_EQ(e.receptor_ports(population(glif, 2, {}, {})), 1u); // NEST's default [2.0]
    const auto four = population(glif, 2, {}, {{"tau_syn", {5.5, 8.5, 2.8, 5.8}}});
    EXPECT_EQ(e.receptor_ports(four), 4u);
    EXPECT_EQ(e.state_names(four), (std::vector<std::string>{"V_m", "threshold", "threshold_spike", "threshold_voltage",
                                                             "ASCurrents_sum", "I", "I_syn"}));
    EXPECT_TRUE(e.accepts_current);
    EXPECT_NE(e.parameter("tau_minus"), nullptr);
    auto g = group(glif, {});
    EXPECT_EQ(g->state(0, "V_m"), -78.85);
    EXPECT_EQ(g->state(0, "threshold"), -51.68);
}

// GLIF1 with one port is iaf_psc_alpha_multisynapse (I_e = 0, tau_m = C_m/g): the same
// propagators and terms, so the same V_m to the bit and the same spikes.
TEST(glif_psc, glif1_is_the_alpha_multisynapse_membrane) {
    const double C_m = 58.72, g_m = 9.43;
    auto a = group(glif, {{"t_ref", 2.0}}, {{"tau_syn", {0.8, 4.0}}});
    auto b = group("iaf_psc_alpha_multisynapse",
                   {{"C_m", C_m},
                    {"tau_m", C_m / g_m},
                    {"E_L", -78.85},
                    {"V_m", -78.85},
                    {"V_th", -51.68},
                    {"V_reset", -78.85},
                    {"t_ref", 2.0}},
                   {{"tau_syn", {0.8, 4.0}}});
    recorder out_a, out_b;
    for (step_type n = 0; n < 8000; ++n) {
        if (n % 7 == 0)
            send(*a, 1, n, 150.0 + 10.0 * double(n % 5), out_a), send(*b, 1, n, 150.0 + 10.0 * double(n % 5), out_b);
        if (n % 11 == 0) send(*a, 2, n, -20.0, out_a), send(*b, 2, n, -20.0, out_b);
        if (n >= 2000 && n < 5000) a->deliver_current(n, 0, 120.0), b->deliver_current(n, 0, 120.0);
        a->end_step(n, out_a);
        b->end_step(n, out_b);
        ASSERT_EQ(a->state(0, "V_m"), b->state(0, "V_m")) << "step " << n;
    }
    EXPECT_GT(out_a.spikes.size(), 20u);
    EXPECT_EQ(out_a.spikes, out_b.spikes);
}

TEST(glif_psc, a_ports_current_peaks_at_the_weight_tau_syn_after_the_spike) {
    for (double w: {150.0, -60.0}) {
        auto g = group(glif, {}, {{"tau_syn", {1.0, 4.0}}});
        recorder out;
        send(*g, 2, 0, w, out);
        double peak = 0.0;
        step_type peak_step = -1;
        for (step_type n = 0; n < 400; ++n) {
            g->end_step(n, out);
            // I_syn is what the membrane update of step n + 1 reads: I(t) = w t/tau e^{1 - t/tau}
            // with t = (n - 1) h, the update having read it before the step's decay
            const double I = g->state(0, "I_syn");
            if (std::abs(I) > std::abs(peak)) peak = I, peak_step = n;
        }
        EXPECT_EQ(peak_step, 41);
        EXPECT_NEAR(peak, w, 1e-12 * std::abs(w));
    }
}

// GLIF1's first spike under a constant current is where U = I/g (1 - e^{-t g/C}) first
// exceeds th_inf; the reset puts U at V_reset and holds it for t_ref.
TEST(glif_psc, a_constant_current_fires_where_the_closed_form_crosses_and_the_reset_holds) {
    const double I = 400.0, g_m = 9.43, C = 58.72, th = -51.68 + 78.85;
    auto g = group(glif, {{"V_reset", -75.0}});
    recorder out;
    g->deliver_current(0, 0, I);
    g->end_step(0, out);
    step_type expected = -1;
    for (step_type n = 1; expected < 0; ++n) {
        if (I / g_m * (1 - std::exp(-double(n) * h * g_m / C)) > th) expected = n;
    }
    for (step_type n = 1; n < 200; ++n) {
        g->deliver_current(n, 0, I);
        g->end_step(n, out);
        if (n < expected) {
            EXPECT_NEAR(g->state(0, "V_m"), -78.85 + I / g_m * (1 - std::exp(-double(n) * h * g_m / C)), 1e-9);
        }
        if (n >= expected && n <= expected + 38) EXPECT_EQ(g->state(0, "V_m"), -75.0) << n; // t_ref 3.75: 38 steps
    }
    ASSERT_FALSE(out.spikes.empty());
    EXPECT_EQ(out.spikes[0].second, expected);
}

// GLIF2: U = voltage_reset_fraction * U_before + voltage_reset_add, and the spike
// component decays over t_ref and jumps by th_spike_add; between spikes it decays.
TEST(glif_psc, glif2s_reset_rules) {
    auto g = group(glif, with(glif2, {{"th_spike_add", 2.0}, {"th_spike_decay", 0.05}}));
    recorder out;
    double before = 0.0, spike_component = 0.0;
    for (step_type n = 0; n < 3000 && out.spikes.size() < 3; ++n) {
        before = g->state(0, "V_m");
        spike_component = g->state(0, "threshold_spike");
        g->deliver_current(n, 0, 500.0);
        g->end_step(n, out);
        if (!out.spikes.empty() && out.spikes.back().second == n) {
            EXPECT_NEAR(g->state(0, "V_m") + 78.85, 0.2 * (before + 78.85) + 18.51, 1e-12);
            EXPECT_NEAR(g->state(0, "threshold_spike"),
                        spike_component * std::exp(-0.05 * h) * std::exp(-0.05 * 3.75) + 2.0, 1e-12);
        }
    }
    ASSERT_EQ(out.spikes.size(), 3u);
}

// GLIF3: at a spike each current becomes asc_amps + asc_r e^{-k t_ref} I; the step after
// the refractory period its sum is the exact mean over the step of the decaying currents.
TEST(glif_psc, glif3s_after_spike_currents) {
    const std::vector<double> k = {0.02, 0.3}, amps = {-20.0, -100.0};
    auto g = group(glif, with(glif3, {{"t_ref", 1.0}}), {{"asc_decay", k}, {"asc_amps", amps}, {"asc_r", {0.5, 1.0}}});
    recorder out;
    step_type n = 0;
    for (; out.spikes.empty(); ++n) {
        g->deliver_current(n, 0, 500.0);
        g->end_step(n, out);
        ASSERT_EQ(g->state(0, "ASCurrents_sum"), 0.0);
    }
    for (int r = 0; r < 10; ++r, ++n) g->end_step(n, out); // t_ref = 1 ms
    g->end_step(n, out);
    double mean = 0.0;
    for (std::size_t j = 0; j < 2; ++j) mean += amps[j] * (1 - std::exp(-k[j] * h)) / (k[j] * h);
    EXPECT_NEAR(g->state(0, "ASCurrents_sum"), mean, 1e-12);
}

// GLIF5: threshold_voltage solves d th_v/dt = a_v U - b_v th_v exactly for U linear over a
// step; against a fine Euler integration along U's closed form (no spike yet).
TEST(glif_psc, glif5s_voltage_component_solves_its_equation) {
    const double I = 200.0, g_m = 9.43, C = 58.72, a_v = 0.005, b_v = 0.09;
    auto g = group(glif, glif5);
    recorder out;
    double th_v = 0.0, t = 0.0;
    const double fine = 1e-5;
    g->deliver_current(0, 0, I);
    g->end_step(0, out);
    for (step_type n = 1; n < 300; ++n) {
        g->deliver_current(n, 0, I);
        g->end_step(n, out);
        // end_step(n) takes the cell from n h to (n + 1) h; the current acts from h on
        for (; t < double(n + 1) * h - fine / 2; t += fine) {
            const double s = t + fine / 2 - h;
            const double U = s > 0 ? I / g_m * (1 - std::exp(-s * g_m / C)) : 0.0;
            th_v += fine * (a_v * U - b_v * th_v);
        }
        EXPECT_NEAR(g->state(0, "threshold_voltage"), th_v, 1e-5) << n;
    }
    EXPECT_TRUE(out.spikes.empty()); // 200 pA is below rheobase
    EXPECT_GT(g->state(0, "threshold_voltage"), 0.5);
    EXPECT_NEAR(g->state(0, "threshold"), -51.68 + g->state(0, "threshold_voltage"), 1e-12);
}

TEST(glif_psc, nests_rules_are_refused_by_name) {
    EXPECT_NE(refusal({{"adapting_threshold", 1.0}}).find("adapting_threshold = 1: must be 0 unless"),
              std::string::npos);
    EXPECT_NE(refusal(with(glif2, {{"adapting_threshold", 1.0}})).find("adapting_threshold"), std::string::npos);
    EXPECT_EQ(refusal(glif5), "(accepted)");
    EXPECT_NE(refusal({{"V_reset", -50.0}}).find("V_reset = -50: must be < V_th = -51.68 mV"), std::string::npos);
    EXPECT_NE(refusal({{"g", 0.0}}).find("g = 0: must be > 0 nS"), std::string::npos);
    EXPECT_NE(refusal({{"t_ref", 0.0}}).find("t_ref = 0"), std::string::npos);
    EXPECT_NE(refusal(with(glif2, {{"voltage_reset_fraction", 1.5}})).find("voltage_reset_fraction = 1.5"),
              std::string::npos);
    EXPECT_EQ(refusal({{"voltage_reset_fraction", 1.5}}), "(accepted)"); // unused without the flag, as NEST
    EXPECT_NE(refusal(with(glif2, {{"th_spike_decay", 0.0}})).find("th_spike_decay"), std::string::npos);
    EXPECT_NE(refusal(glif3, {{"asc_amps", {1.0, 2.0, 3.0}}}).find("asc_amps = [1, 2, 3] (cell 0): must have as many"),
              std::string::npos);
    EXPECT_EQ(refusal({}, {{"asc_amps", {1.0, 2.0, 3.0}}}), "(accepted)");
    EXPECT_NE(refusal(glif3, {{"asc_r", {0.5, 1.5}}}).find("asc_r"), std::string::npos);
    EXPECT_NE(refusal(glif3, {{"asc_decay", {0.0, 1.0}}}).find("asc_decay"), std::string::npos);
    EXPECT_NE(refusal({}, {{"tau_syn", {}}}).find("tau_syn = [] (cell 0): must have 1 to 16 values"),
              std::string::npos);
    EXPECT_NE(refusal({}, {{"tau_syn", {1.0, -2.0}}}).find("tau_syn"), std::string::npos);
}

// V_th, V_reset and V_m not given keep NEST's absolute defaults when E_L moves.
TEST(glif_psc, defaults_not_given_stay_where_nest_keeps_them) {
    auto g = group(glif, {{"E_L", -70.0}});
    EXPECT_EQ(g->state(0, "V_m"), -78.85);
    EXPECT_NEAR(g->state(0, "threshold"), -51.68, 1e-12);
    recorder out;
    for (step_type n = 0; n < 2000; ++n) g->end_step(n, out);
    EXPECT_NEAR(g->state(0, "V_m"), -70.0, 1e-9); // relaxes to E_L
}

TEST(glif_psc, state_nest_sets_is_settable_and_the_rest_refused) {
    auto g1 = group(glif, {});
    g1->set_state(0, "V_m", -60.0);
    EXPECT_EQ(g1->state(0, "V_m"), -60.0);
    EXPECT_THROW(g1->set_state(0, "threshold_spike", 1.0), user_error); // GLIF1: NEST refuses it
    EXPECT_THROW(g1->set_state(0, "threshold", 1.0), user_error);
    auto g5 = group(glif, glif5);
    g5->set_state(0, "threshold_spike", 1.5);
    g5->set_state(0, "threshold_voltage", 0.5);
    recorder out;
    g5->end_step(0, out);
    EXPECT_NEAR(g5->state(0, "threshold"), -51.68 + 1.5 * std::exp(-0.009 * h) + g5->state(0, "threshold_voltage"),
                1e-12);
}

TEST(glif_psc, a_diverging_input_ends_the_run_naming_the_cell) {
    auto g = group(glif, {});
    recorder out;
    send(*g, 1, 0, 1e308, out);
    send(*g, 1, 0, 1e308, out); // inf
    try {
        for (step_type n = 0; n < 10; ++n) g->end_step(n, out);
        FAIL() << "no error";
    } catch (const simulation_error& e) {
        EXPECT_NE(std::string(e.what()).find("glif_psc cell 0 at t = "), std::string::npos) << e.what();
    }
}
