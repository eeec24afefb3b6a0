// aeif_cond_alpha_multisynapse and aeif_cond_beta_multisynapse through the model layer: a
// port's conductance has its alpha or beta shape and peaks at the weight, the ports are
// independent and their reversal potentials choose the sign; with two ports set as
// aeif_cond_alpha's excitatory and inhibitory synapses the model is aeif_cond_alpha (to
// rounding: NEST orders their right-hand sides differently), beta with tau_rise = tau_decay
// is alpha bit for bit, a cell's trajectory does not depend on
// the other cells of its group; NEST's weight, list and instability rules are enforced by
// name; a checkpoint resumes bit for bit. NEST comparisons:
// tests/python/nest_validation/test_nest_aeif_multisynapse.py.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/models/aeif_cond.hpp"
#include "spikex/models/aeif_cond_multisynapse.hpp"
#include "spikex/models/cell_group.hpp"
#include "spikex/models/model_registry.hpp"
#include "spikex/network/network_spec.hpp"

using namespace spikex;
using aeif_cond_multisynapse::synapse_shape;

namespace {

constexpr double h = 0.1;

struct recorder: spike_output {
    std::vector<std::pair<local_index, step_type>> spikes;
    void emit(local_index cell, step_type n) override { spikes.push_back({cell, n}); }
};

using lists = std::map<std::string, std::vector<std::vector<double>>>; // per cell (one list: every cell)

const char* name_of(synapse_shape shape) {
    return shape == synapse_shape::alpha ? "aeif_cond_alpha_multisynapse" : "aeif_cond_beta_multisynapse";
}

population_spec population(synapse_shape shape, gid_type first, std::uint32_t size,
                           const std::map<std::string, double>& params, const lists& per_cell) {
    population_spec pop{name_of(shape), first, size, constant_parameter_map(params), {}};
    for (const auto& [name, values]: per_cell) {
        auto& l = pop.lists[name];
        l.offsets.push_back(0);
        for (std::uint32_t i = 0; i < size; ++i) {
            const auto& v = values[values.size() == 1 ? 0 : i];
            l.values.insert(l.values.end(), v.begin(), v.end());
            l.offsets.push_back(l.values.size());
        }
    }
    return pop;
}

std::vector<gid_type> all_gids(const network_spec& spec) {
    std::vector<gid_type> gids(spec.cells());
    for (gid_type g = 0; g < gids.size(); ++g) gids[g] = g;
    return gids;
}

std::unique_ptr<cell_group> group(synapse_shape shape, const std::map<std::string, double>& params,
                                  const lists& per_cell, std::uint32_t size = 1) {
    network_spec spec;
    spec.dt_ms = h;
    spec.seed = 1;
    spec.populations.push_back(population(shape, 0, size, params, per_cell));
    return aeif_cond_multisynapse::make_group(shape, spec, all_gids(spec));
}

std::string refusal(synapse_shape shape, const std::map<std::string, double>& params, const lists& per_cell,
                    std::uint32_t size = 1) {
    try {
        group(shape, params, per_cell, size);
    } catch (const user_error& e) {
        return e.what();
    }
    return "(accepted)";
}

void one_input(cell_group& g, std::uint32_t port, step_type n, local_index cell, double weight, recorder& out) {
    const local_index targets[] = {cell};
    const double weights[] = {weight};
    g.deliver_port(port, n, targets, weights, 0, 1, out);
}

// Three ports: excitatory fast, inhibitory slow, excitatory slow.
const lists three_alpha = {{"E_rev", {{0.0, -80.0, -20.0}}}, {"tau_syn", {{0.5, 4.0, 8.0}}}};
const lists three_beta = {
    {"E_rev", {{0.0, -80.0, -20.0}}}, {"tau_rise", {{0.5, 1.0, 2.0}}}, {"tau_decay", {{2.0, 6.0, 2.0}}}};

} // namespace

TEST(aeif_multisynapse, nests_defaults_one_port_and_v_m_at_nests_default) {
    for (auto shape: {synapse_shape::alpha, synapse_shape::beta}) {
        population_spec pop = population(shape, 0, 2, {}, {});
        EXPECT_EQ(aeif_cond_multisynapse::receptor_ports(shape, pop), 1u);
        EXPECT_EQ(find_model(name_of(shape)).receptor_ports(pop), 1u);
        EXPECT_EQ(aeif_cond_multisynapse::receptor_ports(
                      shape, population(shape, 0, 2, {}, shape == synapse_shape::alpha ? three_alpha : three_beta)),
                  3u);
        auto g = group(shape, {{"E_L", -65.0}}, {});
        EXPECT_EQ(g->state(0, "V_m"), -70.6); // NEST's rule: V_m does not follow E_L
        EXPECT_EQ(g->state(0, "g_1"), 0.0);
        const auto names = find_model(name_of(shape)).state_names(pop);
        EXPECT_EQ(names, (std::vector<std::string>{"V_m", "w", "g_1"}));
    }
}

TEST(aeif_multisynapse, a_ports_alpha_conductance_peaks_at_the_weight_tau_syn_after_the_input) {
    auto g = group(synapse_shape::alpha, {}, three_alpha);
    recorder out;
    one_input(*g, 3, 0, 0, 6.0, out); // port 3: tau_syn = 8 ms
    g->end_step(0, out);
    auto alpha = [](double w, double tau, double s) { return w * s / tau * std::exp(1.0 - s / tau); };
    double peak = 0.0;
    step_type peak_step = 0;
    for (step_type n = 1; n <= 300; ++n) {
        g->end_step(n, out);
        const double s = n * h; // time since the input took effect
        EXPECT_NEAR(g->state(0, "g_3"), alpha(6.0, 8.0, s), 1e-5) << n;
        if (g->state(0, "g_3") > peak) peak = g->state(0, "g_3"), peak_step = n;
        EXPECT_EQ(g->state(0, "g_1"), 0.0);
        EXPECT_EQ(g->state(0, "g_2"), 0.0);
    }
    EXPECT_EQ(peak_step, 80);
    EXPECT_NEAR(peak, 6.0, 1e-6);
    EXPECT_GT(g->state(0, "V_m"), -70.6); // E_rev = -20 mV: depolarising from rest
}

TEST(aeif_multisynapse, a_ports_beta_conductance_has_its_shape_and_peaks_at_the_weight) {
    auto g = group(synapse_shape::beta, {}, three_beta);
    recorder out;
    one_input(*g, 2, 0, 0, 5.0, out); // port 2: tau_rise 1, tau_decay 6 ms; E_rev = -80 mV
    g->end_step(0, out);
    const double tr = 1.0, td = 6.0;
    const double t_peak = tr * td * std::log(td / tr) / (td - tr);
    const double c = 5.0 / (std::exp(-t_peak / td) - std::exp(-t_peak / tr));
    double peak = 0.0;
    for (step_type n = 1; n <= 400; ++n) {
        g->end_step(n, out);
        const double s = n * h;
        EXPECT_NEAR(g->state(0, "g_2"), c * (std::exp(-s / td) - std::exp(-s / tr)), 1e-5) << n;
        peak = std::max(peak, g->state(0, "g_2"));
    }
    double grid_peak = 0.0; // the peak falls between steps: the formula's largest value on them
    for (step_type n = 1; n <= 400; ++n)
        grid_peak = std::max(grid_peak, c * (std::exp(-n * h / td) - std::exp(-n * h / tr)));
    EXPECT_NEAR(peak, grid_peak, 1e-5);
    EXPECT_NEAR(grid_peak, 5.0, 2e-3);
    EXPECT_LT(g->state(0, "V_m"), -70.6); // E_rev = -80 mV: hyperpolarising
    EXPECT_EQ(g->state(0, "g_1"), 0.0);
    EXPECT_EQ(g->state(0, "g_3"), 0.0);
}

TEST(aeif_multisynapse, the_beta_normalisation_is_nests_with_the_alpha_limit) {
    using aeif_cond_multisynapse::beta_peak_factor;
    EXPECT_EQ(beta_peak_factor(3.0, 3.0), std::exp(1.0) / 3.0);
    EXPECT_NEAR(beta_peak_factor(3.0, 3.0 + 1e-9), std::exp(1.0) / 3.0, 1e-6); // cancellation: NEST's too
    // An input of 1 nS times the factor peaks at 1 nS: g(t) = f (e^(-t/td) - e^(-t/tr)) / (1/tr - 1/td).
    const double tr = 0.5, td = 20.0, f = beta_peak_factor(tr, td);
    const double t_peak = tr * td * std::log(td / tr) / (td - tr);
    EXPECT_NEAR(f * (std::exp(-t_peak / td) - std::exp(-t_peak / tr)) / (1 / tr - 1 / td), 1.0, 1e-14);
}

TEST(aeif_multisynapse, beta_with_equal_time_constants_is_alpha_bit_for_bit) {
    const std::map<std::string, double> params = {{"I_e", 700.0}, {"t_ref", 0.5}};
    auto a = group(synapse_shape::alpha, params, {{"E_rev", {{0.0, -75.0}}}, {"tau_syn", {{1.5, 5.0}}}});
    auto b = group(synapse_shape::beta, params,
                   {{"E_rev", {{0.0, -75.0}}}, {"tau_rise", {{1.5, 5.0}}}, {"tau_decay", {{1.5, 5.0}}}});
    recorder ra, rb;
    for (step_type n = 0; n < 3000; ++n) {
        for (auto* g: {a.get(), b.get()}) {
            auto& out = g == a.get() ? ra : rb;
            if (n % 7 == 0) one_input(*g, 1, n, 0, 3.0, out);
            if (n % 11 == 0) one_input(*g, 2, n, 0, 0.5, out);
            g->end_step(n, out);
        }
        for (const char* v: {"V_m", "w", "g_1", "g_2"}) ASSERT_EQ(a->state(0, v), b->state(0, v)) << v << n;
    }
    EXPECT_GT(ra.spikes.size(), 5u);
    EXPECT_EQ(ra.spikes, rb.spikes);
}

TEST(aeif_multisynapse, two_ports_as_excitatory_and_inhibitory_synapses_are_aeif_cond_alpha) {
    // aeif_cond_alpha: E_ex = 0, E_in = -85, tau_syn_ex = 0.2, tau_syn_in = 2 (its defaults);
    // its weight's sign chooses the synapse, the ports choose here.
    network_spec spec;
    spec.dt_ms = h;
    spec.populations.push_back({"aeif_cond_alpha", 0, 1, constant_parameter_map({{"I_e", 400.0}}), {}});
    auto cond = aeif_cond::make_group(aeif_cond::synapse_shape::alpha, spec, {0});
    auto multi = group(synapse_shape::alpha, {{"I_e", 400.0}}, {{"E_rev", {{0.0, -85.0}}}, {"tau_syn", {{0.2, 2.0}}}});
    recorder rc, rm;
    const local_index target[] = {0};
    for (step_type n = 0; n < 5000; ++n) {
        const double w = n % 5 == 0 ? 30.0 : n % 9 == 0 ? -2.0 : 0.0;
        if (w != 0.0) {
            cond->deliver(n, target, &w, 0, 1, rc);
            one_input(*multi, w > 0 ? 1 : 2, n, 0, std::abs(w), rm);
        }
        if (n % 13 == 3) {
            cond->deliver_current(n, 0, 250.0);
            multi->deliver_current(n, 0, 250.0);
        }
        cond->end_step(n, rc);
        multi->end_step(n, rm);
        // The same equations, each in its NEST right-hand side's order of operations: equal
        // but for rounding and the sub-steps it moves (measured: 7e-6 mV, 2e-7 pA, 6e-7 nS).
        ASSERT_NEAR(cond->state(0, "V_m"), multi->state(0, "V_m"), 1e-4) << n;
        ASSERT_NEAR(cond->state(0, "w"), multi->state(0, "w"), 1e-5) << n;
        ASSERT_NEAR(cond->state(0, "g_ex"), multi->state(0, "g_1"), 1e-5) << n;
        ASSERT_NEAR(cond->state(0, "g_in"), multi->state(0, "g_2"), 1e-5) << n;
    }
    EXPECT_GT(rc.spikes.size(), 20u);
    EXPECT_EQ(rc.spikes, rm.spikes);
}

TEST(aeif_multisynapse, a_cells_trajectory_does_not_depend_on_the_other_cells_of_its_group) {
    // A 2-port cell alone (room for 2 ports) and next to a 10-port population (room for 16).
    for (auto shape: {synapse_shape::alpha, synapse_shape::beta}) {
        const lists two =
            shape == synapse_shape::alpha
                ? lists{{"E_rev", {{0.0, -80.0}}}, {"tau_syn", {{0.5, 3.0}}}}
                : lists{{"E_rev", {{0.0, -80.0}}}, {"tau_rise", {{0.5, 1.0}}}, {"tau_decay", {{2.0, 6.0}}}};
        lists ten;
        for (const auto& [name, values]: two) ten[name] = {std::vector<double>(10, values[0][0])};
        network_spec alone, together;
        alone.dt_ms = together.dt_ms = h;
        alone.populations.push_back(population(shape, 0, 1, {{"I_e", 900.0}}, two));
        together.populations.push_back(population(shape, 0, 1, {{"I_e", 900.0}}, two));
        together.populations.push_back(population(shape, 1, 3, {{"I_e", 300.0}}, ten));
        auto a = aeif_cond_multisynapse::make_group(shape, alone, {0});
        auto b = aeif_cond_multisynapse::make_group(shape, together, {0, 1, 2, 3});
        recorder ra, rb;
        for (step_type n = 0; n < 3000; ++n) {
            if (n % 3 == 0) {
                one_input(*a, n % 12 == 0 ? 2 : 1, n, 0, 2.0, ra);
                one_input(*b, n % 12 == 0 ? 2 : 1, n, 0, 2.0, rb);
                one_input(*b, 10, n, 2, 2.0, rb);
            }
            a->end_step(n, ra);
            b->end_step(n, rb);
            for (const char* v: {"V_m", "w", "g_1", "g_2"}) ASSERT_EQ(a->state(0, v), b->state(0, v)) << v << n;
        }
        EXPECT_GT(ra.spikes.size(), 5u);
        EXPECT_GT(b->state(2, "g_10"), 0.0);
    }
}

TEST(aeif_multisynapse, negative_weights_are_refused_naming_cell_port_and_weight) {
    auto g = group(synapse_shape::alpha, {}, three_alpha, 3);
    recorder out;
    one_input(*g, 2, 5, 1, 0.0, out); // 0 is allowed (NEST: < 0 refused)
    try {
        one_input(*g, 2, 5, 1, -1.5, out);
        FAIL() << "accepted";
    } catch (const user_error& e) {
        EXPECT_EQ(std::string(e.what()).rfind("aeif_cond_alpha_multisynapse cell 1: a spike of weight -1.5 nS through "
                                              "receptor port 2 at t = 0.6 ms: weights must be >= 0",
                                              0),
                  0u)
            << e.what();
    }
    const local_index targets[] = {0};
    const double weights[] = {1.0};
    EXPECT_THROW(g->deliver(0, targets, weights, 0, 1, out), internal_error);          // no port
    EXPECT_THROW(g->deliver_port(4, 0, targets, weights, 0, 1, out), internal_error);  // 3 ports
    EXPECT_THROW(g->deliver_uniform_port(0, 0, targets, 1, 1.0, out), internal_error); // port 0
}

TEST(aeif_multisynapse, bad_lists_are_refused_naming_model_key_value_and_cell) {
    const auto a = synapse_shape::alpha, b = synapse_shape::beta;
    EXPECT_EQ(refusal(a, {}, {{"E_rev", {{0.0, -80.0}}}}),
              "aeif_cond_alpha_multisynapse parameters E_rev and tau_syn (cell 0): 2 and 1 values: must be lists of "
              "the same length, one value per receptor port (a list not given is NEST's default, one port)");
    EXPECT_EQ(refusal(b, {}, {{"E_rev", {{0.0, -80.0}}}, {"tau_rise", {{1.0, 1.0}}}}),
              "aeif_cond_beta_multisynapse parameters E_rev, tau_rise and tau_decay (cell 0): 2, 2 and 1 values: "
              "must be lists of the same length, one value per receptor port (a list not given is NEST's default, "
              "one port)");
    EXPECT_EQ(refusal(a, {}, {{"E_rev", {{}}}, {"tau_syn", {{}}}}),
              "aeif_cond_alpha_multisynapse parameter E_rev = [] (cell 0): must have 1 to 16 values, one per "
              "receptor port");
    EXPECT_EQ(refusal(a, {}, {{"E_rev", {std::vector<double>(17, 0.0)}}, {"tau_syn", {std::vector<double>(17, 2.0)}}}),
              "aeif_cond_alpha_multisynapse parameter E_rev = [0, 0, 0, 0, 0, 0, ... (17 values)] (cell 0): must "
              "have 1 to 16 values, one per receptor port");
    EXPECT_EQ(refusal(a, {}, {{"E_rev", {std::vector<double>(16, 0.0)}}, {"tau_syn", {std::vector<double>(16, 2.0)}}}),
              "(accepted)");
    EXPECT_EQ(refusal(a, {}, {{"E_rev", {{0.0, 0.0}}}, {"tau_syn", {{2.0, 0.0}}}}),
              "aeif_cond_alpha_multisynapse parameter tau_syn = 0: must be > 0 ms (cell 0)");
    EXPECT_EQ(refusal(b, {}, {{"tau_rise", {{-1.0}}}}),
              "aeif_cond_beta_multisynapse parameter tau_rise = -1: must be > 0 ms (cell 0)");
    EXPECT_EQ(refusal(b, {}, {{"E_rev", {{0.0, 0.0}}}, {"tau_rise", {{1.0, 3.0}}}, {"tau_decay", {{1.0, 2.0}}}}),
              "aeif_cond_beta_multisynapse parameter tau_decay = 2: must be >= tau_rise = 3 ms (cell 0, port 2)");
    EXPECT_EQ(refusal(b, {}, {{"tau_rise", {{2.0}}}, {"tau_decay", {{2.0}}}}), "(accepted)");
    // Every cell of a population has its first cell's number of ports.
    EXPECT_EQ(refusal(a, {}, {{"E_rev", {{0.0}, {0.0}, {0.0, -80.0}}}, {"tau_syn", {{1.0}, {1.0}, {1.0, 2.0}}}}, 3),
              "aeif_cond_alpha_multisynapse parameter E_rev = [0, -80] (cell 2): 2 receptor ports: every cell of a "
              "population must have as many as its first cell (1)");
    // The numbers: the family's checks.
    EXPECT_EQ(refusal(b, {{"V_peak", -55.0}}, {}),
              "aeif_cond_beta_multisynapse parameter V_peak = -55: must be >= V_th = -50.4 mV");
    EXPECT_EQ(refusal(a, {{"C_m", 0.0}}, {}), "aeif_cond_alpha_multisynapse parameter C_m = 0: must be > 0 pF");
}

TEST(aeif_multisynapse, a_membrane_potential_below_minus_1000_mv_ends_the_run_naming_cell_and_time) {
    // A port with E_rev = -5000 mV and a strong, fast input to cell 1 at step 0 (acting from step 1).
    auto g = group(synapse_shape::beta, {},
                   {{"E_rev", {{0.0, -5000.0}}}, {"tau_rise", {{1.0, 0.01}}}, {"tau_decay", {{2.0, 0.5}}}}, 2);
    recorder out;
    one_input(*g, 2, 0, 1, 3000.0, out);
    std::string message;
    try {
        for (step_type n = 0; n < 5; ++n) g->end_step(n, out);
    } catch (const simulation_error& e) {
        message = e.what();
    }
    EXPECT_EQ(message.rfind("aeif_cond_beta_multisynapse cell 1 at t = 0.2 ms: the numerical integration failed (V_m "
                            "= -",
                            0),
              0u)
        << message;
}

TEST(aeif_multisynapse, recordables_are_numbered_by_port_and_only_v_m_and_w_are_settable) {
    auto g = group(synapse_shape::alpha, {}, three_alpha);
    g->set_state(0, "V_m", -55.0);
    g->set_state(0, "w", 7.0);
    EXPECT_EQ(g->state(0, "V_m"), -55.0);
    EXPECT_EQ(g->state(0, "w"), 7.0);
    try {
        g->set_state(0, "g_2", 1.0);
        FAIL() << "accepted";
    } catch (const user_error& e) {
        EXPECT_NE(std::string(e.what()).find("state variable \"g_2\" cannot be set"), std::string::npos) << e.what();
    }
    for (const char* bad: {"g_4", "g_0", "g_02", "g", "g_ex"}) {
        try {
            g->state(0, bad);
            FAIL() << bad;
        } catch (const user_error& e) {
            EXPECT_EQ(std::string(e.what()), std::string("aeif_cond_alpha_multisynapse has no state variable \"") +
                                                 bad + "\": allowed are V_m, w, g_1, g_2, g_3");
        }
    }
}

TEST(aeif_multisynapse, a_checkpoint_resumes_bit_for_bit) {
    for (auto shape: {synapse_shape::alpha, synapse_shape::beta}) {
        const lists& three = shape == synapse_shape::alpha ? three_alpha : three_beta;
        const std::map<std::string, double> params = {{"I_e", 700.0}, {"t_ref", 1.0}, {"b", 30.0}};
        auto whole = group(shape, params, three, 3);
        recorder before, after, resumed;
        auto inputs = [](cell_group& g, step_type n, recorder& out) {
            if (n % 4 == 0)
                for (local_index i = 0; i < 3; ++i) one_input(g, 1 + (n / 4 + i) % 3, n, i, 2.0 + n % 7, out);
            if (n % 9 == 1) g.deliver_current(n, 1, 300.0);
            g.end_step(n, out);
        };
        const step_type stop = 1234, end = 5000;
        for (step_type n = 0; n < stop; ++n) inputs(*whole, n, before);
        const auto& names = find_model(name_of(shape)).checkpoint_state;
        ASSERT_EQ(names.size(), 2u + 2 * 16 + 4);
        auto restored = group(shape, params, three, 3);
        for (local_index i = 0; i < 3; ++i) {
            std::vector<double> v(names.size());
            whole->save_cell(i, v.data());
            EXPECT_EQ(v[2 + 2 * 3], 0.0); // dg_4: a port the cell lacks
            restored->load_cell(i, v.data());
        }
        restored->after_load();
        for (step_type n = stop; n < end; ++n) {
            inputs(*whole, n, after);
            inputs(*restored, n, resumed);
            for (local_index i = 0; i < 3; ++i)
                for (const char* v: {"V_m", "w", "g_1", "g_2", "g_3"})
                    ASSERT_EQ(whole->state(i, v), restored->state(i, v));
        }
        EXPECT_GT(after.spikes.size(), 30u);
        EXPECT_EQ(after.spikes, resumed.spikes);
    }
}
