// glif_cond through the model layer (the registry's group, spikes through deliver_port):
// without synaptic input it is glif_psc's membrane integrated by RKF45 (V_m within the
// integrator's bound, the same spikes, the same threshold components and after-spike
// currents at every level); a port's conductance is an alpha function peaking at the
// weight tau_syn later and pulls V_m towards its E_rev; a cell's trajectory does not
// depend on the room its group keeps for ports; the ports' lists are checked as NEST checks
// them; a diverging conductance ends the run. NEST comparison:
// tests/python/nest_validation/test_nest_glif.py.
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
const char* const glif = "glif_cond";

struct recorder: spike_output {
    std::vector<std::pair<local_index, step_type>> spikes;
    void emit(local_index cell, step_type n) override { spikes.push_back({cell, n}); }
};

using lists = std::map<std::string, std::vector<double>>; // one list for every cell of a population

population_spec population(const std::string& model, gid_type first, std::uint32_t size,
                           const std::map<std::string, double>& params, const lists& l) {
    population_spec pop{model, first, size, constant_parameter_map(params), {}};
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
    spec.populations.push_back(population(model, 0, 1, params, l));
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

void send(cell_group& g, std::uint32_t port, step_type n, double weight, recorder& out, local_index cell = 0) {
    const local_index targets[] = {cell};
    const double weights[] = {weight};
    g.deliver_port(port, n, targets, weights, 0, 1, out);
}

std::map<std::string, double> level(int glif_level) {
    const bool spike = glif_level == 2 || glif_level >= 4, asc = glif_level >= 3, voltage = glif_level == 5;
    return {{"spike_dependent_threshold", spike ? 1.0 : 0.0},
            {"after_spike_currents", asc ? 1.0 : 0.0},
            {"adapting_threshold", voltage ? 1.0 : 0.0}};
}

} // namespace

TEST(glif_cond, ports_come_from_tau_syn_and_e_rev_and_the_recordables_are_nests) {
    const model_entry& e = find_model(glif);
    ASSERT_TRUE(e.receptor_ports);
    const auto defaults = population(glif, 0, 2, {}, {});
    EXPECT_EQ(e.receptor_ports(defaults), 2u); // NEST's default [0.2, 2.0], [0, -85]
    EXPECT_EQ(e.state_names(defaults),
              (std::vector<std::string>{"V_m", "threshold", "threshold_spike", "threshold_voltage", "ASCurrents_sum",
                                        "I", "g_1", "g_2"}));
    EXPECT_NE(e.parameter("g_m"), nullptr);
    EXPECT_EQ(e.parameter("g"), nullptr); // g names the ports' conductances in NEST
    EXPECT_TRUE(e.accepts_current);
}

// With current input only, glif_cond's RKF45 follows glif_psc's exact membrane: V_m within
// the integrator's bound, the same spikes, the same threshold (GLIF1, GLIF2; with
// after-spike currents the models differ as NEST's do: glif_cond's membrane reads the
// currents' sum of the step before, glif_psc's that of the step).
TEST(glif_cond, without_synaptic_input_it_is_glif_psc_at_levels_1_and_2) {
    for (int l = 1; l <= 2; ++l) {
        auto p = level(l);
        p["t_ref"] = 2.0;
        auto cond = group(glif, p);
        auto psc = group("glif_psc", p);
        recorder out_cond, out_psc;
        double largest = 0.0;
        for (step_type n = 0; n < 10000; ++n) {
            const double I = n < 3000 ? 400.0 : n < 6000 ? 250.0 : 600.0;
            cond->deliver_current(n, 0, I);
            psc->deliver_current(n, 0, I);
            cond->end_step(n, out_cond);
            psc->end_step(n, out_psc);
            largest = std::max(largest, std::abs(cond->state(0, "V_m") - psc->state(0, "V_m")));
            for (const char* v: {"threshold", "ASCurrents_sum"})
                ASSERT_NEAR(cond->state(0, v), psc->state(0, v), 1e-6) << "GLIF" << l << " " << v << " step " << n;
        }
        EXPECT_LT(largest, 1e-4) << "GLIF" << l;
        EXPECT_GT(out_cond.spikes.size(), 20u) << "GLIF" << l;
        EXPECT_EQ(out_cond.spikes, out_psc.spikes) << "GLIF" << l;
    }
}

TEST(glif_cond, a_ports_conductance_peaks_at_the_weight_and_pulls_towards_its_reversal_potential) {
    for (std::uint32_t port: {1u, 2u}) {
        auto g = group(glif, {}, {{"tau_syn", {0.5, 3.0}}, {"E_rev", {0.0, -90.0}}});
        recorder out;
        send(*g, port, 0, 2.0, out);
        double peak = 0.0, lowest = 0.0, highest = -1e9;
        step_type peak_step = -1;
        for (step_type n = 0; n < 300; ++n) {
            g->end_step(n, out);
            const double other = g->state(0, port == 1 ? "g_2" : "g_1");
            EXPECT_EQ(other, 0.0);
            const double G = g->state(0, port == 1 ? "g_1" : "g_2");
            if (G > peak) peak = G, peak_step = n;
            lowest = std::min(lowest, g->state(0, "V_m") + 78.85);
            highest = std::max(highest, g->state(0, "V_m") + 78.85);
        }
        const double tau = port == 1 ? 0.5 : 3.0;
        EXPECT_EQ(peak_step, std::lround(tau / h)) << port;
        EXPECT_NEAR(peak, 2.0, 1e-3) << port;
        if (port == 1) EXPECT_GT(highest, 0.5); // E_rev 0: depolarises
        if (port == 2) EXPECT_LT(lowest, -0.1); // E_rev -90 below E_L: hyperpolarises
    }
}

// A cell with two ports in a group with room for eight (a five-port cell beside it) ends
// exactly where it ends alone (room for two).
TEST(glif_cond, a_cells_trajectory_does_not_depend_on_its_groups_room_for_ports) {
    network_spec spec;
    spec.dt_ms = h;
    spec.seed = 1;
    const lists two = {{"tau_syn", {0.5, 3.0}}, {"E_rev", {0.0, -80.0}}};
    spec.populations.push_back(population(glif, 0, 1, level(5), two));
    spec.populations.push_back(
        population(glif, 1, 1, level(5), {{"tau_syn", {0.5, 3.0, 1.0, 2.0, 4.0}}, {"E_rev", {0, -80, 0, 0, 0}}}));
    auto both = find_model(glif).make(spec, {0, 1}, 0);
    auto alone = group(glif, level(5), two);
    recorder out_both, out_alone;
    for (step_type n = 0; n < 5000; ++n) {
        for (std::uint32_t port: {1u, 2u}) {
            const double w = port == 1 ? (n % 7 == 0 ? 3.0 : 0.0) : (n % 13 == 0 ? 0.5 : 0.0);
            if (w == 0.0) continue;
            send(*both, port, n, w, out_both);
            send(*alone, port, n, w, out_alone);
        }
        both->deliver_current(n, 0, 250.0);
        alone->deliver_current(n, 0, 250.0);
        both->end_step(n, out_both);
        alone->end_step(n, out_alone);
        ASSERT_EQ(both->state(0, "V_m"), alone->state(0, "V_m")) << n;
    }
    std::vector<std::pair<local_index, step_type>> first_cell;
    for (auto s: out_both.spikes)
        if (s.first == 0) first_cell.push_back(s);
    EXPECT_GT(out_alone.spikes.size(), 10u);
    EXPECT_EQ(first_cell, out_alone.spikes);
}

TEST(glif_cond, the_ports_lists_are_checked_as_nest_checks_them) {
    EXPECT_NE(refusal({}, {{"tau_syn", {1.0, 2.0, 3.0}}})
                  .find("E_rev = [0, -85] (cell 0): must have as many values as "
                        "tau_syn (3"),
              std::string::npos);
    EXPECT_EQ(refusal({}, {{"tau_syn", {1.0, 2.0, 3.0}}, {"E_rev", {0.0, -80.0, -70.0}}}), "(accepted)");
    EXPECT_NE(refusal({}, {{"tau_syn", {1.0, 0.0}}}).find("tau_syn"), std::string::npos);
    EXPECT_NE(refusal({{"g_m", -1.0}}).find("g_m = -1: must be > 0 nS"), std::string::npos);
    EXPECT_NE(refusal({{"adapting_threshold", 1.0}, {"after_spike_currents", 1.0}}).find("adapting_threshold"),
              std::string::npos);
}

TEST(glif_cond, a_diverging_conductance_ends_the_run_naming_the_cell) {
    auto g = group(glif, {});
    recorder out;
    send(*g, 1, 0, -1e7, out); // a negative conductance (NEST takes either sign): V_m runs away
    try {
        for (step_type n = 0; n < 100; ++n) g->end_step(n, out);
        FAIL() << "no error";
    } catch (const simulation_error& e) {
        EXPECT_NE(std::string(e.what()).find("glif_cond cell 0 at t = "), std::string::npos) << e.what();
    }
}
