// iaf_psc_alpha against closed forms written out here independently of the model code:
// the alpha PSP, the hpc_benchmark PSP peak, DC-driven firing, refractoriness, the
// propagators (regular and singular), the own Poisson input and the initial state.
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
#include "spikex/core/random.hpp"
#include "spikex/models/cell_group.hpp"
#include "spikex/models/iaf_psc_alpha.hpp"
#include "spikex/network/network_spec.hpp"

using namespace spikex;
namespace iaf = spikex::iaf_psc_alpha;

namespace {

using param_map = std::map<std::string, double>;

// hpc_benchmark's neuron (Jordan et al. 2018).
constexpr double hpc_tau_syn = 0.32582722403722841;
const param_map hpc = {{"E_L", 0.0},
                       {"V_m", 0.0}, // at rest (NEST's default V_m is -70 mV whatever E_L is)
                       {"C_m", 250.0},
                       {"tau_m", 10.0},
                       {"t_ref", 0.5},
                       {"V_th", 20.0},
                       {"V_reset", 0.0},
                       {"tau_syn_ex", hpc_tau_syn},
                       {"tau_syn_in", hpc_tau_syn}};

param_map with(param_map base, const param_map& changes) {
    for (const auto& [k, v]: changes) base[k] = v;
    return base;
}

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

network_spec population(const param_map& params, std::uint32_t size = 1, double dt = 0.1, std::uint32_t seed = 1) {
    network_spec spec;
    spec.dt_ms = dt;
    spec.seed = seed;
    spec.populations.push_back({"iaf_psc_alpha", 0, size, constant_parameter_map(params), {}});
    return spec;
}

// The group through the registry, with its state readable.
std::unique_ptr<iaf::group> make(const network_spec& spec, const std::vector<gid_type>& gids,
                                 local_index first_local = 0) {
    auto g = make_cell_group(spec, gids, first_local);
    auto* typed = dynamic_cast<iaf::group*>(g.get());
    if (!typed) throw std::logic_error("make_cell_group did not make an iaf_psc_alpha group");
    g.release();
    return std::unique_ptr<iaf::group>(typed);
}

struct input {
    step_type step;
    local_index cell; // rank-local
    double weight;
};

// One step as the engine drives it.
void step(iaf::group& g, step_type n, const std::vector<input>& inputs, recorder& out) {
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

// Runs steps [0, stop) and returns V_m of `cell` after every step.
std::vector<double> trace(iaf::group& g, step_type stop, const std::vector<input>& inputs, recorder& out,
                          local_index cell = 0) {
    std::vector<double> v;
    for (step_type n = 0; n < stop; ++n) {
        step(g, n, inputs, out);
        v.push_back(g.V_m(cell));
    }
    return v;
}

// --- closed forms ---------------------------------------------------------------------

// 1 - e^{-x}(1 + x) without cancellation for small x (series x^2/2 - x^3/3 + ...).
double one_minus_exp_times_1px(double x) {
    if (std::abs(x) > 0.5) return 1.0 - std::exp(-x) * (1.0 + x);
    double sum = 0, term = x; // term = (-1)^k x^k / k! with the sign of the series
    for (int k = 2; k < 30; ++k) {
        term *= -x / k;
        sum -= term * (k - 1);
    }
    return sum;
}

// Membrane response (mV, relative to rest) at time t after an input of w pA to a neuron at
// rest: dI jumps by e/tau_s*w, I(t) = d0 t exp(-t/tau_s), V' = -V/tau_m + I/C, so
// V(t) = d0/(C a^2) e^{-t/tau_m} (1 - e^{-a t}(1 + a t)), a = 1/tau_s - 1/tau_m.
double psp(double w, double t, double tau_s, double tau_m = 10.0, double C = 250.0) {
    const double d0 = std::numbers::e / tau_s * w;
    if (t <= 0) return 0.0;
    if (tau_s == tau_m) return d0 / C * std::exp(-t / tau_m) * t * t / 2;
    const double a = 1.0 / tau_s - 1.0 / tau_m;
    return d0 / (C * a * a) * std::exp(-t / tau_m) * one_minus_exp_times_1px(a * t);
}

// The alpha current itself (pA) at time t after the input.
double psc(double w, double t, double tau_s) { return std::numbers::e / tau_s * w * t * std::exp(-t / tau_s); }

void expect_relative(double got, double expected, double rel, const std::string& what) {
    EXPECT_NEAR(got, expected, rel * std::abs(expected) + 1e-300) << what;
}

} // namespace

// --- propagators ------------------------------------------------------------------------

TEST(iaf_psc_alpha, propagators_are_the_exact_solution) {
    const double C = 250.0, tau_m = 10.0;
    for (double tau_s: {hpc_tau_syn, 0.5, 2.0, 8.0, 30.0}) {
        for (double h: {0.025, 0.1, 1.0}) {
            auto [P31, P32] = iaf::alpha_propagators(tau_s, tau_m, C, h);
            // P31: V after h from dI = 1 (I = 0); P32: V after h from I = 1 (dI = 0).
            // NEST's P31 expression (beta*expm1(h/beta) - h) loses digits when h|1/tau_s -
            // 1/tau_m| is small, hence the looser bound for it.
            const double a = 1.0 / tau_s - 1.0 / tau_m;
            const double p31 = 1.0 / (C * a * a) * std::exp(-h / tau_m) * one_minus_exp_times_1px(a * h);
            const double p32 = -1.0 / C * tau_s * tau_m / (tau_m - tau_s) * std::exp(-h / tau_m) * std::expm1(-a * h);
            expect_relative(P31, p31, 1e-8, "P31 tau_s " + std::to_string(tau_s) + " h " + std::to_string(h));
            expect_relative(P32, p32, 1e-12, "P32 tau_s " + std::to_string(tau_s) + " h " + std::to_string(h));
        }
    }
}

TEST(iaf_psc_alpha, propagators_fall_back_to_the_limit_when_tau_syn_equals_tau_m) {
    const double C = 250.0, tau = 10.0, h = 0.1;
    auto [P31, P32] = iaf::alpha_propagators(tau, tau, C, h);
    ASSERT_TRUE(std::isfinite(P31) && std::isfinite(P32));
    expect_relative(P31, h * h / (2 * C) * std::exp(-h / tau), 1e-14, "singular P31");
    expect_relative(P32, h / C * std::exp(-h / tau), 1e-14, "singular P32");
    // Nearly equal: the singular branch for P31 (h below 1e-7 tau^2/|tau - tau_s|), and
    // continuous with the regular formula further away.
    auto [n31, n32] = iaf::alpha_propagators(tau * (1 + 1e-9), tau, C, h);
    auto [r31, r32] = iaf::alpha_propagators(tau * (1 + 1e-4), tau, C, h);
    EXPECT_NEAR(n31, P31, 1e-8 * P31);
    EXPECT_NEAR(n32, P32, 1e-6 * P32);
    EXPECT_NEAR(r31, P31, 1e-4 * P31);
    EXPECT_NEAR(r32, P32, 1e-4 * P32);
    // And the model integrates through it: the PSP of the limit kernel.
    auto g =
        make(population({{"tau_syn_ex", tau}, {"E_L", 0.0}, {"V_m", 0.0}, {"V_reset", -10.0}, {"V_th", 1e3}}), {0});
    recorder out;
    auto v = trace(*g, 60, {{0, 0, 100.0}}, out);
    for (step_type k = 1; k < 60; ++k) {
        expect_relative(v[k], psp(100.0, k * h, tau), 1e-12, "step " + std::to_string(k));
    }
}

TEST(iaf_psc_alpha, propagators_use_nests_expressions) {
    iaf::parameters p = iaf::parse_parameters({});
    p.tau_m = 10.0;
    p.C_m = 250.0;
    p.tau_syn_ex = 0.5;
    p.tau_syn_in = 3.0;
    p.t_ref = 0.5;
    const double h = 0.1;
    auto q = iaf::compute_propagators(p, h);
    EXPECT_EQ(q.P11_ex, std::exp(-h / 0.5));
    EXPECT_EQ(q.P22_ex, q.P11_ex);
    EXPECT_EQ(q.P21_ex, h * q.P11_ex);
    EXPECT_EQ(q.P11_in, std::exp(-h / 3.0));
    // NEST 3.10's wheel computes expm1 by its own series (iaf_propagators.hpp)
    EXPECT_EQ(q.expm1_tau_m, iaf_integration::nest_expm1(-h / 10.0));
    EXPECT_EQ(q.P30, -10.0 / 250.0 * iaf_integration::nest_expm1(-h / 10.0));
    EXPECT_EQ(q.psc_ex, std::numbers::e / 0.5);
    EXPECT_EQ(q.psc_in, std::numbers::e / 3.0);
    EXPECT_EQ(q.refractory_steps, 5);
    p.t_ref = 2.0;
    EXPECT_EQ(iaf::compute_propagators(p, h).refractory_steps, 20);
    p.t_ref = 0.0;
    EXPECT_EQ(iaf::compute_propagators(p, h).refractory_steps, 0);
    // NEST's conversion: nearest 1 us tic, then up to whole steps.
    EXPECT_EQ(iaf::refractory_steps(0.21, 0.1), 3);
    EXPECT_EQ(iaf::refractory_steps(0.25, 0.1), 3);
    EXPECT_EQ(iaf::refractory_steps(0.2004, 0.1), 2);
    EXPECT_EQ(iaf::refractory_steps(0.2006, 0.1), 3);
    EXPECT_EQ(iaf::refractory_steps(3.3, 0.1), 33);
    EXPECT_EQ(iaf::refractory_steps(1.0, 0.025), 40);
    EXPECT_EQ(iaf::refractory_steps(0.1, 1.0 / 30), 3); // dt off the tic grid
}

// --- subthreshold dynamics --------------------------------------------------------------

TEST(iaf_psc_alpha, subthreshold_psp_matches_the_closed_form_at_every_step) {
    const double h = 0.1, w = 45.6096;
    const step_type n0 = 5;
    auto g = make(population(hpc), {0});
    recorder out;
    auto v = trace(*g, 400, {{n0, 0, w}}, out);
    EXPECT_TRUE(out.spikes.empty());
    for (step_type n = 0; n <= n0; ++n) EXPECT_EQ(v[n], 0.0) << "step " << n; // input acts from n0 + 1
    for (step_type n = n0 + 1; n < 400; ++n) {
        expect_relative(v[n], psp(w, (n - n0) * h, hpc_tau_syn), 1e-12, "step " + std::to_string(n));
    }
}

TEST(iaf_psc_alpha, hpc_benchmark_weight_gives_a_0_14_mV_psp_peak) {
    auto g = make(population(hpc), {0});
    recorder out;
    auto v = trace(*g, 100, {{0, 0, 45.6096}}, out);
    auto peak = std::max_element(v.begin(), v.end());
    EXPECT_NEAR(*peak, 0.14, 1e-6);
    EXPECT_EQ(peak - v.begin(), 17); // t_max = 1.70 ms
    // The continuous maximum of the closed form lies between the grid points.
    double best = 0;
    for (int k = 1; k < 300000; ++k) best = std::max(best, psp(45.6096, k * 1e-5, hpc_tau_syn));
    EXPECT_NEAR(best, 0.14, 1e-6);
}

TEST(iaf_psc_alpha, inhibitory_channel_and_superposition) {
    // Different time constants per channel; PSPs add up exactly (the model is linear).
    const double h = 0.1, tau_ex = 0.5, tau_in = 3.0;
    auto params = with(hpc, {{"tau_syn_ex", tau_ex}, {"tau_syn_in", tau_in}, {"V_reset", -100.0}});
    auto g = make(population(params), {0});
    recorder out;
    // Step 10: +30 and -50 and +20 (two excitatory events summed); step 40: -80.
    std::vector<input> inputs = {{10, 0, 30.0}, {10, 0, -50.0}, {10, 0, 20.0}, {40, 0, -80.0}};
    std::vector<double> v;
    for (step_type n = 0; n < 300; ++n) {
        step(*g, n, inputs, out);
        v.push_back(g->V_m(0));
        if (n == 10) {
            EXPECT_EQ(g->weighted_spikes_ex(0), 50.0);
            EXPECT_EQ(g->weighted_spikes_in(0), -50.0);
        }
        if (n == 40) {
            EXPECT_EQ(g->weighted_spikes_ex(0), 0.0);
            EXPECT_EQ(g->weighted_spikes_in(0), -80.0);
        }
        const double t1 = (n - 10) * h, t2 = (n - 40) * h;
        const double I_in = n > 10 ? psc(-50.0, t1, tau_in) + (n > 40 ? psc(-80.0, t2, tau_in) : 0.0) : 0.0;
        EXPECT_NEAR(g->I_syn_in(0), I_in, 1e-12 * 100) << "step " << n;
        EXPECT_NEAR(g->I_syn_ex(0), n > 10 ? psc(50.0, t1, tau_ex) : 0.0, 1e-12 * 100) << "step " << n;
    }
    for (step_type n = 11; n < 300; ++n) {
        const double t1 = (n - 10) * h, t2 = (n - 40) * h;
        const double expected = psp(50.0, t1, tau_ex) + psp(-50.0, t1, tau_in) + psp(-80.0, t2, tau_in);
        EXPECT_NEAR(v[n], expected, 1e-12 * 2.0) << "step " << n;
    }
    EXPECT_LT(v[299], 0.0);
    EXPECT_TRUE(out.spikes.empty());
}

TEST(iaf_psc_alpha, the_inputs_of_a_step_are_summed_before_multiplying_by_e_over_tau) {
    // NEST multiplies the step's summed weight by e/tau_syn: find weights for which the two
    // orders round differently, then require the model to equal the single summed input.
    const double psc_ex = std::numbers::e / hpc_tau_syn;
    double w1 = 0, w2 = 0;
    for (double a = 0.1; a < 3 && w1 == 0; a += 0.1) {
        for (double b = 0.3; b < 3; b += 0.7) {
            if (psc_ex * a + psc_ex * b != psc_ex * (a + b)) {
                w1 = a;
                w2 = b;
                break;
            }
        }
    }
    ASSERT_NE(w1, 0.0) << "no pair of weights with different rounding found";
    auto two = make(population(hpc), {0});
    auto one = make(population(hpc), {0});
    recorder out;
    auto v2 = trace(*two, 50, {{3, 0, w1}, {3, 0, w2}}, out);
    auto v1 = trace(*one, 50, {{3, 0, w1 + w2}}, out);
    EXPECT_EQ(v1, v2);
}

TEST(iaf_psc_alpha, deliver_uses_only_the_given_range_and_rank_local_targets) {
    // Cells with rank-local indices 7, 8, 9; entries 0 and 3 of the arrays are not ours.
    auto g = make(population(hpc, 3), {0, 1, 2}, 7);
    recorder out;
    std::vector<local_index> targets = {8, 9, 7, 8};
    std::vector<double> weights = {1e6, 45.6096, 45.6096, 1e6};
    g->begin_step(0, out);
    g->deliver(0, targets.data(), weights.data(), 1, 3, out);
    g->end_step(0, out);
    EXPECT_EQ(g->weighted_spikes_ex(7), 45.6096);
    EXPECT_EQ(g->weighted_spikes_ex(8), 0.0);
    EXPECT_EQ(g->weighted_spikes_ex(9), 45.6096);
    for (step_type n = 1; n < 18; ++n) step(*g, n, {}, out);
    EXPECT_NEAR(g->V_m(7), 0.14, 1e-6);
    EXPECT_EQ(g->V_m(8), 0.0);
    EXPECT_TRUE(out.spikes.empty());
}

// --- firing and refractoriness -------------------------------------------------------------

namespace {

// Updates needed to go from V0 to theta (relative to E_L) under V_inf = I_e tau_m / C.
step_type updates_to_threshold(double V0, double theta, double V_inf, double tau_m, double h) {
    const double k = tau_m / h * std::log((V_inf - V0) / (V_inf - theta));
    const double frac = k - std::floor(k);
    if (frac < 1e-6 || frac > 1 - 1e-6) throw std::logic_error("threshold time too close to a step");
    return static_cast<step_type>(std::ceil(k));
}

} // namespace

TEST(iaf_psc_alpha, dc_driven_firing_follows_the_closed_form) {
    const double h = 0.1;
    struct setup {
        double I_e, t_ref, V_reset, tau_m;
    };
    for (auto s: {setup{500.0, 2.0, -65.0, 10.0}, setup{400.0, 0.5, -70.0, 10.0}, setup{1000.0, 0.0, -60.0, 5.0},
                  setup{420.0, 3.3, -75.0, 20.0}}) {
        const double E_L = -70.0, V_th = -55.0, C = 250.0;
        auto g =
            make(population({{"I_e", s.I_e}, {"t_ref", s.t_ref}, {"V_reset", s.V_reset}, {"tau_m", s.tau_m}}), {0});
        const double V_inf = s.I_e * s.tau_m / C;
        const step_type first = updates_to_threshold(0.0, V_th - E_L, V_inf, s.tau_m, h) - 1;
        const step_type R = std::llround(s.t_ref / h); // all on the grid
        const step_type period = R + updates_to_threshold(s.V_reset - E_L, V_th - E_L, V_inf, s.tau_m, h);
        recorder out;
        const step_type stop = first + 6 * period + 1;
        std::vector<step_type> expected;
        for (step_type n = first; n < stop; n += period) expected.push_back(n);
        for (step_type n = 0; n < stop; ++n) {
            step(*g, n, {}, out);
            // After a spike at s: clamped at V_reset for R steps (s .. s + R), counter R .. 0.
            for (auto sp: expected) {
                if (n >= sp && n <= sp + R) {
                    EXPECT_EQ(g->V_m(0), s.V_reset) << "step " << n;
                    EXPECT_EQ(g->refractory_count(0), R - (n - sp)) << "step " << n;
                }
            }
        }
        EXPECT_EQ(out.steps_of(0), expected) << "I_e " << s.I_e << " t_ref " << s.t_ref;
        EXPECT_GE(expected.size(), 6u);
    }
}

TEST(iaf_psc_alpha, input_during_refractoriness_shapes_the_current_but_not_v) {
    const double h = 0.1, tau_s = 2.0, tau_m = 10.0, C = 250.0;
    const double E_L = -70.0, V_th = -55.0, V_reset = -60.0;
    const step_type R = 20;
    auto g = make(population({{"V_reset", V_reset}, {"t_ref", 2.0}}), {0});
    // A large input at step 10 makes it fire; a second one arrives while refractory.
    const double w1 = 1500.0, w2 = 600.0; // without w2 it would not fire again
    step_type spike = -1;
    for (step_type k = 1; k < 100 && spike < 0; ++k)
        if (psp(w1, k * h, tau_s) >= V_th - E_L) spike = 10 + k;
    ASSERT_GT(spike, 10);
    const step_type n2 = spike + 3;
    std::vector<input> inputs = {{10, 0, w1}, {n2, 0, w2}};
    recorder out;
    step_type next_spike = -1; // the closed form's next threshold crossing, if any
    for (step_type n = 0; n < spike + R + 200; ++n) {
        step(*g, n, inputs, out);
        const double t1 = (n - 10) * h, t2 = (n - n2) * h;
        const double I = (n > 10 ? psc(w1, t1, tau_s) : 0.0) + (n > n2 ? psc(w2, t2, tau_s) : 0.0);
        EXPECT_NEAR(g->I_syn_ex(0), I, 1e-12 * 2000) << "step " << n;
        if (n > spike && n <= spike + R) {
            EXPECT_EQ(g->V_m(0), V_reset) << "step " << n;
        } else if (n > spike + R && next_spike < 0) {
            // From the reset value at the end of step spike + R, the currents drive V:
            // V = V_r e^{-t/tau_m} + sum_i [PSP_i(T_i + t) - PSP_i(T_i) e^{-t/tau_m}].
            const double t = (n - spike - R) * h, decay = std::exp(-t / tau_m);
            const double T1 = (spike + R - 10) * h, T2 = (spike + R - n2) * h;
            const double V = (V_reset - E_L) * decay + psp(w1, T1 + t, tau_s) - psp(w1, T1, tau_s) * decay +
                             psp(w2, T2 + t, tau_s) - psp(w2, T2, tau_s) * decay;
            if (V >= V_th - E_L) {
                next_spike = n;
                EXPECT_EQ(g->V_m(0), V_reset) << "step " << n;
            } else {
                EXPECT_NEAR(g->V_m(0) - E_L, V, 1e-10) << "step " << n;
            }
        }
    }
    ASSERT_FALSE(out.spikes.empty());
    EXPECT_EQ(out.spikes[0].second, spike);
    // The input during refractoriness matters: it makes the cell fire again.
    ASSERT_GT(next_spike, spike + R);
    ASSERT_EQ(out.spikes.size(), 2u);
    EXPECT_EQ(out.spikes[1].second, next_spike);
    (void)C;
}

TEST(iaf_psc_alpha, threshold_is_inclusive_and_reset_is_immediate) {
    // V_th set to exactly the V_m reached after one update: V >= V_th fires (inclusive).
    auto probe = make(population(with(hpc, {{"I_e", 1000.0}, {"V_th", 1e3}})), {0});
    recorder out;
    step(*probe, 0, {}, out);
    const double v1 = probe->V_m(0);
    auto g = make(population(with(hpc, {{"I_e", 1000.0}, {"V_th", v1}})), {0}, 3);
    step(*g, 0, {}, out);
    ASSERT_EQ(out.spikes.size(), 1u);
    EXPECT_EQ(out.spikes[0], (std::pair<local_index, step_type>{3, 0}));
    EXPECT_EQ(g->V_m(3), 0.0);
    EXPECT_EQ(g->refractory_count(3), 5);
}

TEST(iaf_psc_alpha, populations_use_their_own_parameters_in_any_cell_order) {
    network_spec spec = population(with(hpc, {{"I_e", 0.0}}), 3);
    spec.populations.push_back({"iaf_psc_alpha", 3, 3, constant_parameter_map(with(hpc, {{"I_e", 600.0}}))});
    spec.populations.push_back({"iaf_psc_alpha", 6, 2, constant_parameter_map(with(hpc, {{"I_e", 0.0}}))});
    // Local cells: gids 4, 0, 7, 5, 1 (a shuffled distribution).
    auto g = make(spec, {4, 0, 7, 5, 1});
    recorder out;
    for (step_type n = 0; n < 500; ++n) step(*g, n, {}, out);
    EXPECT_FALSE(out.steps_of(0).empty());
    EXPECT_FALSE(out.steps_of(3).empty());
    EXPECT_EQ(out.steps_of(0), out.steps_of(3));
    EXPECT_TRUE(out.steps_of(1).empty());
    EXPECT_TRUE(out.steps_of(2).empty());
    EXPECT_TRUE(out.steps_of(4).empty());
    // Alone, gid 4 fires at the same steps.
    auto alone = make(spec, {4});
    recorder out2;
    for (step_type n = 0; n < 500; ++n) step(*alone, n, {}, out2);
    EXPECT_EQ(out2.steps_of(0), out.steps_of(0));
}

// --- own Poisson input ---------------------------------------------------------------------

namespace {

// k_n of cell gid, from the documented mapping.
std::uint32_t expected_count(std::uint32_t seed, gid_type gid, step_type n, double mean) {
    return iaf::poisson_table(mean).sample(iaf::poisson_uniform(seed, gid, n));
}

} // namespace

TEST(iaf_psc_alpha, poisson_uniform_uses_half_a_philox_block_per_step) {
    for (step_type n: {step_type(0), step_type(1), step_type(2), step_type(7), step_type(1) << 34}) {
        const auto s = static_cast<std::uint64_t>(n);
        auto w = random_block(3, 11, purpose::external_input, std::uint32_t(s >> 1), std::uint32_t(s >> 33));
        const double u = n % 2 ? uniform_from_words(w[2], w[3]) : uniform_from_words(w[0], w[1]);
        EXPECT_EQ(iaf::poisson_uniform(3, 11, n), u) << "step " << n;
    }
}

TEST(iaf_psc_alpha, poisson_table_has_poisson_moments) {
    random_stream rng(99, 0, purpose::external_input);
    for (double mean: {0.05, 2.0856, 30.0, 400.0}) {
        iaf::poisson_table table(mean);
        EXPECT_NEAR(table.cdf().back(), 1.0, 1e-12);
        EXPECT_NEAR(table.cdf().front(), std::exp(-mean), 1e-15);
        const int draws = 40000;
        double sum = 0, sum2 = 0;
        for (int i = 0; i < draws; ++i) {
            const double k = table.sample(rng.next_uniform());
            sum += k;
            sum2 += k * k;
        }
        const double m = sum / draws, var = sum2 / draws - m * m;
        EXPECT_NEAR(m, mean, 5 * std::sqrt(mean / draws)) << "mean " << mean;
        EXPECT_NEAR(var, mean, 5 * std::sqrt((mean + 2 * mean * mean) / draws)) << "mean " << mean;
    }
    // Inversion: u = 0 gives 0 events, u just below P(0) too, at P(0) one event.
    iaf::poisson_table table(2.0);
    EXPECT_EQ(table.sample(0.0), 0u);
    EXPECT_EQ(table.sample(std::nextafter(std::exp(-2.0), 0.0)), 0u);
    EXPECT_EQ(table.sample(table.cdf()[0]), 1u);
    EXPECT_EQ(iaf::poisson_table(0.0).sample(0.5), 0u);
}

TEST(iaf_psc_alpha, poisson_table_guided_search_equals_the_binary_search) {
    // The guide table only shortens the search: every u gives the count a binary search over
    // the whole table gives, at every entry, next to it and in between.
    for (double mean: {1e-4, 0.3, 2.0856, 13.5, 99.0, 500.0}) {
        const iaf::poisson_table table(mean);
        const auto& cdf = table.cdf();
        auto binary = [&](double u) {
            return static_cast<std::uint32_t>(std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
        };
        std::vector<double> us = {0.0, std::nextafter(1.0, 0.0)};
        for (double c: cdf) {
            if (c < 1.0) us.insert(us.end(), {c, std::nextafter(c, 0.0), std::nextafter(c, 1.0)});
        }
        for (int j = 0; j < 200000; ++j) us.push_back((j + 0.5) / 200000.0);
        for (double u: us)
            if (u < 1.0) ASSERT_EQ(table.sample(u), binary(u)) << "mean " << mean << " u " << u; // u in [0, 1)
    }
}

TEST(iaf_psc_alpha, poisson_input_counts_have_the_right_mean_and_variance) {
    // hpc_benchmark's external drive: 20,856 Hz at h = 0.1 ms, mean 2.0856 per step. Weight
    // 1 pA, so that the excitatory input of a step is the count itself.
    const double rate = 20856.0, mean = rate * 0.1 / 1000.0;
    const std::uint32_t cells = 40;
    const step_type steps = 2500;
    auto g =
        make(population(with(hpc, {{"poisson_rate_hz", rate}, {"poisson_weight", 1.0}, {"V_th", 1e9}}), cells), [] {
            std::vector<gid_type> v(40);
            for (gid_type i = 0; i < 40; ++i) v[i] = i;
            return v;
        }());
    recorder out;
    double sum = 0, sum2 = 0, zeros = 0;
    for (step_type n = 0; n < steps; ++n) {
        step(*g, n, {}, out);
        for (local_index c = 0; c < cells; ++c) {
            const double k = g->weighted_spikes_ex(c);
            ASSERT_EQ(k, double(expected_count(1, c, n, mean))) << "cell " << c << " step " << n;
            EXPECT_EQ(g->weighted_spikes_in(c), 0.0);
            sum += k;
            sum2 += k * k;
            zeros += k == 0;
        }
    }
    const double draws = double(cells) * steps;
    const double m = sum / draws, var = sum2 / draws - m * m;
    EXPECT_NEAR(m, mean, 5 * std::sqrt(mean / draws));
    EXPECT_NEAR(var, mean, 5 * std::sqrt((mean + 2 * mean * mean) / draws));
    const double p0 = std::exp(-mean);
    EXPECT_NEAR(zeros / draws, p0, 5 * std::sqrt(p0 * (1 - p0) / draws));
}

TEST(iaf_psc_alpha, poisson_input_does_not_depend_on_split_order_or_start_step) {
    const double rate = 8000.0, mean = rate * 0.1 / 1000.0, w = -3.5; // inhibitory drive
    auto spec = population(with(hpc, {{"poisson_rate_hz", rate}, {"poisson_weight", w}}), 10, 0.1, 42);
    // One group of all cells; two groups of a split with other rank-local indices; one
    // group in another order; and one cell that starts at an odd step.
    auto whole = make(spec, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
    auto left = make(spec, {0, 1, 2, 3}, 20);
    auto right = make(spec, {4, 5, 6, 7, 8, 9}, 24);
    auto shuffled = make(spec, {9, 4, 0, 7, 2, 5, 1, 8, 3, 6}, 5);
    const std::vector<gid_type> order = {9, 4, 0, 7, 2, 5, 1, 8, 3, 6};
    auto late = make(spec, {6});
    recorder out;
    for (step_type n = 0; n < 300; ++n) {
        step(*whole, n, {}, out);
        step(*left, n, {}, out);
        step(*right, n, {}, out);
        step(*shuffled, n, {}, out);
        if (n >= 101) step(*late, n, {}, out);
        for (gid_type gid = 0; gid < 10; ++gid) {
            const double k = double(expected_count(42, gid, n, mean));
            ASSERT_EQ(whole->weighted_spikes_in(gid), k * w) << "gid " << gid << " step " << n;
            const double split = gid < 4 ? left->weighted_spikes_in(20 + gid) : right->weighted_spikes_in(20 + gid);
            ASSERT_EQ(split, k * w);
            const auto pos = local_index(std::find(order.begin(), order.end(), gid) - order.begin());
            ASSERT_EQ(shuffled->weighted_spikes_in(5 + pos), k * w);
            ASSERT_EQ(whole->weighted_spikes_ex(gid), 0.0);
        }
        if (n >= 101) {
            ASSERT_EQ(late->weighted_spikes_in(0), double(expected_count(42, 6, n, mean)) * w);
        }
        ASSERT_EQ(whole->V_m(3), left->V_m(23)) << "step " << n;
    }
    // Different seeds, different draws; the same seed, the same (checked above).
    int differ = 0;
    for (step_type n = 0; n < 200; ++n) differ += expected_count(42, 3, n, mean) != expected_count(43, 3, n, mean);
    EXPECT_GT(differ, 50);
}

TEST(iaf_psc_alpha, poisson_input_adds_to_the_synaptic_input_of_the_step) {
    const double rate = 20000.0, mean = 2.0, w = 45.6096;
    auto spec = population(with(hpc, {{"poisson_rate_hz", rate}, {"poisson_weight", w}, {"V_th", 1e9}}), 1);
    auto g = make(spec, {0});
    recorder out;
    for (step_type n = 0; n < 40; ++n) {
        step(*g, n, {{n, 0, 10.0}, {n, 0, 0.5}, {n, 0, -7.0}}, out);
        EXPECT_EQ(g->weighted_spikes_ex(0), (10.0 + 0.5) + double(expected_count(1, 0, n, mean)) * w);
        EXPECT_EQ(g->weighted_spikes_in(0), -7.0);
    }
}

// --- initial state --------------------------------------------------------------------------

TEST(iaf_psc_alpha, initial_membrane_potential_is_normal_per_gid) {
    const std::uint32_t cells = 20000;
    auto spec = population(with(hpc, {{"V_m", 5.7}, {"V_m_sd", 7.2}}), cells, 0.1, 7);
    std::vector<gid_type> gids(cells);
    for (gid_type i = 0; i < cells; ++i) gids[i] = i;
    auto g = make(spec, gids);
    double sum = 0, sum2 = 0;
    for (local_index c = 0; c < cells; ++c) {
        const double v = g->V_m(c);
        sum += v;
        sum2 += v * v;
    }
    const double m = sum / cells, sd = std::sqrt(sum2 / cells - m * m);
    EXPECT_NEAR(m, 5.7, 5 * 7.2 / std::sqrt(double(cells)));
    EXPECT_NEAR(sd, 7.2, 5 * 7.2 / std::sqrt(2.0 * cells));
    // Keyed by gid: the same value in another group, and the documented Box-Muller.
    auto part = make(spec, {123, 77}, 9);
    EXPECT_EQ(part->V_m(9), g->V_m(123));
    EXPECT_EQ(part->V_m(10), g->V_m(77));
    auto w = random_block(7, 77, purpose::initial_state, 0);
    const double z = std::sqrt(-2.0 * std::log(1.0 - uniform_from_words(w[0], w[1]))) *
                     std::cos(2.0 * std::numbers::pi * uniform_from_words(w[2], w[3]));
    EXPECT_EQ(part->V_m(10), 5.7 + 7.2 * z);
}

TEST(iaf_psc_alpha, initial_membrane_potential_is_nests_default_whatever_e_l_is) {
    auto e = make(population({{"E_L", -65.0}, {"V_reset", -65.0}}), {0});
    EXPECT_EQ(e->V_m(0), -70.0); // NEST's rule: V_m does not follow E_L
    auto h = make(population({{"E_L", -65.0}, {"V_m", -60.0}}), {0});
    EXPECT_EQ(h->V_m(0), -60.0);
    auto d = make(population({}), {0});
    EXPECT_EQ(d->V_m(0), -70.0);
    // A neuron at rest stays at rest (exactly).
    auto g = make(population({{"E_L", -65.0}, {"V_m", -65.0}, {"V_reset", -65.0}}), {0});
    recorder out;
    for (step_type n = 0; n < 100; ++n) step(*g, n, {}, out);
    EXPECT_EQ(g->V_m(0), -65.0);
}

// --- validation, registry, memory -------------------------------------------------------------

TEST(iaf_psc_alpha, every_invalid_parameter_is_a_user_error_naming_it) {
    const std::vector<std::pair<param_map, std::string>> bad = {
        {{{"C_m", 0.0}}, "C_m"},
        {{{"C_m", -250.0}}, "C_m"},
        {{{"tau_m", 0.0}}, "tau_m"},
        {{{"tau_syn_ex", 0.0}}, "tau_syn_ex"},
        {{{"tau_syn_in", -1.0}}, "tau_syn_in"},
        {{{"t_ref", -0.1}}, "t_ref"},
        {{{"V_reset", -55.0}}, "V_reset"},
        {{{"V_reset", -50.0}}, "V_reset"},
        {{{"V_th", -80.0}}, "V_reset"},
        {{{"V_m_sd", -1.0}}, "V_m_sd"},
        {{{"tau_minus", 0.0}}, "tau_minus"},
        {{{"poisson_rate_hz", -1.0}}, "poisson_rate_hz"},
        {{{"poisson_rate_hz", 6e6}}, "poisson_rate_hz"}, // 600 events per step at 0.1 ms
        {{{"E_L", std::numeric_limits<double>::quiet_NaN()}}, "E_L"},
        {{{"I_e", std::numeric_limits<double>::infinity()}}, "I_e"},
        {{{"t_ref", 1e300}}, "t_ref"},
        {{{"tau", 10.0}}, "tau"},
    };
    for (const auto& [params, name]: bad) {
        try {
            make_cell_group(population(params), {0});
            ADD_FAILURE() << "no error for " << name;
        } catch (const user_error& e) {
            EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("iaf_psc_alpha"), std::string::npos) << e.what();
        }
    }
    // Allowed edge values.
    EXPECT_NO_THROW(make_cell_group(
        population(
            {{"t_ref", 0.0}, {"V_m_sd", 0.0}, {"poisson_rate_hz", 5e6}, {"poisson_weight", -1.0}, {"I_e", -100.0}}),
        {0}));
    EXPECT_NO_THROW(make_cell_group(population({{"tau_syn_ex", 10.0}, {"tau_syn_in", 10.0}}), {0}));
}

TEST(iaf_psc_alpha, registry_names_and_memory) {
    auto names = model_parameter_names("iaf_psc_alpha");
    for (const char* n: {"E_L", "C_m", "tau_m", "t_ref", "V_th", "V_reset", "tau_syn_ex", "tau_syn_in", "I_e", "V_m",
                         "V_m_sd", "tau_minus", "poisson_rate_hz", "poisson_weight"}) {
        EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
    }
    EXPECT_EQ(names.size(), 14u);
    auto small = make_cell_group(population(hpc, 1000), std::vector<gid_type>(10, 0));
    std::vector<gid_type> many(1000);
    for (gid_type i = 0; i < 1000; ++i) many[i] = i;
    auto large = make_cell_group(population(hpc, 1000), many);
    EXPECT_GE(large->bytes(), 1000u * (9 * sizeof(double) + sizeof(std::int32_t)));
    EXPECT_GT(large->bytes(), small->bytes());
}

// --- per-cell parameters, current input, recordable state ---------------------------------

TEST(iaf_psc_alpha, per_cell_parameters_do_not_depend_on_the_split_into_groups) {
    parameter_map params = constant_parameter_map(hpc);
    random_distribution I_e;
    I_e.kind = distribution_kind::normal, I_e.mean = 500.0, I_e.std = 50.0;
    params["I_e"] = {I_e, {}};
    std::vector<double> V_m(24), tau(24);
    for (std::size_t i = 0; i < 24; ++i) {
        V_m[i] = 0.75 * double(i);
        tau[i] = i % 4 == 0 ? 10.0 : hpc_tau_syn; // some at tau_m: the singular propagators
    }
    params["V_m"] = {random_distribution::constant(0.0), V_m};
    params["tau_syn_ex"] = {random_distribution::constant(0.0), tau};
    network_spec spec;
    spec.dt_ms = 0.1;
    spec.seed = 5;
    spec.populations.push_back({"iaf_psc_alpha", 0, 24, params, {}});
    std::vector<gid_type> all(24);
    for (gid_type i = 0; i < 24; ++i) all[i] = i;
    auto whole = iaf::make_group(spec, all);
    auto first = iaf::make_group(spec, std::vector<gid_type>(all.begin(), all.begin() + 10));
    auto second = iaf::make_group(spec, std::vector<gid_type>(all.begin() + 10, all.end()), 10);
    std::vector<input> inputs;
    for (step_type n = 0; n < 300; n += 5)
        for (local_index c = 0; c < 24; c += 3) inputs.push_back({n, c, c % 2 ? 40.0 : -80.0});
    recorder a, b;
    for (step_type n = 0; n < 300; ++n) {
        step(*whole, n, inputs, a);
        std::vector<input> low, high;
        for (const auto& in: inputs) (in.cell < 10 ? low : high).push_back(in);
        step(*first, n, low, b);
        step(*second, n, high, b);
        for (local_index c = 0; c < 24; ++c) ASSERT_EQ(whole->V_m(c), (c < 10 ? *first : *second).V_m(c)) << c;
    }
    ASSERT_GT(a.spikes.size(), 10u);
    std::sort(a.spikes.begin(), a.spikes.end());
    std::sort(b.spikes.begin(), b.spikes.end());
    EXPECT_EQ(a.spikes, b.spikes);
    EXPECT_EQ(whole->parameter_sets(), 24u);
    EXPECT_EQ(iaf::make_group(spec, all)->V_m(3), 2.25);
    // Uniform populations: one set (the hpc_benchmark's two populations share it).
    network_spec two = population(hpc, 10);
    two.populations.push_back({"iaf_psc_alpha", 10, 5, constant_parameter_map(with(hpc, {{"V_m", 3.0}})), {}});
    std::vector<gid_type> fifteen(15);
    for (gid_type i = 0; i < 15; ++i) fifteen[i] = i;
    EXPECT_EQ(iaf::make_group(two, fifteen)->parameter_sets(), 1u);
}

TEST(iaf_psc_alpha, current_input_acts_from_the_next_step_like_i_e) {
    auto with_I_e = make(population(with(hpc, {{"I_e", 600.0}})), {0});
    auto with_current = make(population(hpc, 2), {1}, 1);
    recorder a, b;
    std::vector<double> va, vb;
    for (step_type n = 0; n < 300; ++n) {
        step(*with_I_e, n, {}, a);
        va.push_back(with_I_e->V_m(0));
        with_current->begin_step(n, b);
        with_current->deliver_current(n, 1, 250.0);
        with_current->deliver_current(n, 1, 350.0);
        with_current->end_step(n, b);
        vb.push_back(with_current->V_m(1));
    }
    EXPECT_EQ(vb[0], 0.0);
    for (step_type n = 1; n < 300; ++n) EXPECT_EQ(vb[n], va[n - 1]) << n;
    ASSERT_FALSE(a.spikes.empty());
    EXPECT_EQ(b.spikes.front().second, a.spikes.front().second + 1);
}

TEST(iaf_psc_alpha, state_variables_and_registry_entry) {
    auto g = make(population(hpc), {0});
    recorder out;
    step(*g, 0, {{0, 0, 100.0}, {0, 0, -30.0}}, out);
    step(*g, 1, {}, out);
    EXPECT_EQ(g->state(0, "V_m"), g->V_m(0));
    EXPECT_EQ(g->state(0, "I_syn_ex"), g->I_syn_ex(0));
    EXPECT_GT(g->state(0, "I_syn_ex"), 0.0);
    EXPECT_LT(g->state(0, "I_syn_in"), 0.0);
    try {
        g->state(0, "V_th");
        FAIL() << "no error";
    } catch (const user_error& e) {
        EXPECT_NE(std::string(e.what()).find("iaf_psc_alpha has no state variable \"V_th\": allowed are V_m, "
                                             "I_syn_ex, I_syn_in"),
                  std::string::npos)
            << e.what();
    }
    const model_entry e = iaf_psc_alpha_model();
    EXPECT_TRUE(e.accepts_current);
    EXPECT_EQ(e.state_names(), (std::vector<std::string>{"V_m", "I_syn_ex", "I_syn_in"}));
}
