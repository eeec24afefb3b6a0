// interval_fire against its closed form: firing steps from the drawn intervals, inputs and bursts.
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
#include "spikex/core/random.hpp"
#include "spikex/models/cell_group.hpp"
#include "spikex/models/interval_fire.hpp"
#include "spikex/network/network_spec.hpp"

using namespace spikex;

namespace {

constexpr double dt = 0.025;
constexpr double tau = 5.0, low = 20.0, high = 40.0;

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

network_spec one_population(std::uint32_t seed, std::uint32_t size, std::map<std::string, double> params = {}) {
    network_spec spec;
    spec.dt_ms = dt;
    spec.seed = seed;
    spec.populations.push_back({"interval_fire", 0, size, constant_parameter_map(params), {}});
    return spec;
}

// One synaptic input to local cell `cell` at step `step`.
struct input {
    step_type step;
    local_index cell;
    double weight;
};

// Drives `group` over steps [0, stop) as the engine does: self-events first, then inputs.
recorder run(cell_group& group, step_type stop, const std::vector<input>& inputs = {}) {
    recorder out;
    std::size_t next = 0;
    for (step_type n = 0; n < stop; ++n) {
        group.begin_step(n, out);
        std::vector<local_index> targets;
        std::vector<double> weights;
        while (next < inputs.size() && inputs[next].step == n) {
            targets.push_back(inputs[next].cell);
            weights.push_back(inputs[next].weight);
            ++next;
        }
        if (!targets.empty()) group.deliver(n, targets.data(), weights.data(), 0, targets.size(), out);
    }
    return out;
}

// --- the closed form, written out independently of the model code -------------------

// k-th interval of cell `gid` (before any burst division): block k, words 0 and 1.
double interval(std::uint32_t seed, gid_type gid, std::uint32_t k, double lo = low, double hi = high) {
    auto w = random_block(seed, gid, purpose::intervals, k);
    return lo + (hi - lo) * uniform_from_words(w[0], w[1]);
}

double minf_of(double invl) { return 1.0 / (1.0 - std::exp(-invl / tau)); }

// First step at or after time t (to within dt*1e-9).
step_type step_at(double t) { return static_cast<step_type>(std::ceil(t / dt - 1e-9)); }

// Step of the next self-event of a cell in state m at step n with steady state minf.
step_type fire_step(step_type n, double m, double minf) {
    return step_at(n * dt + tau * std::log((minf - m) / (minf - 1.0)));
}

// Spike steps with no input: each interval starts at the step of the previous spike.
std::vector<step_type> free_running(std::uint32_t seed, gid_type gid, step_type stop, double divide = 1.0) {
    std::vector<step_type> s;
    step_type last = 0;
    for (std::uint32_t k = 0;; ++k) {
        last = step_at(last * dt + interval(seed, gid, k) / divide);
        if (last >= stop) return s;
        s.push_back(last);
    }
}

} // namespace

TEST(interval_fire, first_spike_is_the_first_drawn_interval) {
    for (std::uint32_t seed: {1u, 2u, 77u, 123456u}) {
        auto group = make_cell_group(one_population(seed, 1), {0});
        auto out = run(*group, 2000);
        ASSERT_FALSE(out.spikes.empty()) << "seed " << seed;
        EXPECT_EQ(out.spikes.front().first, 0u);
        EXPECT_EQ(out.spikes.front().second, step_at(interval(seed, 0, 0))) << "seed " << seed;
    }
}

TEST(interval_fire, free_running_train_follows_the_drawn_intervals) {
    const step_type stop = 40000; // 1 s
    auto group = make_cell_group(one_population(5, 1), {0});
    auto got = run(*group, stop).steps_of(0);
    auto expected = free_running(5, 0, stop);
    EXPECT_EQ(got, expected);
    // Every inter-spike interval within [invl_low, invl_high] up to one step of rounding.
    step_type last = 0;
    for (auto s: got) {
        EXPECT_GE((s - last) * dt, low - 1e-9);
        EXPECT_LE((s - last) * dt, high + dt + 1e-9);
        last = s;
    }
    EXPECT_GT(got.size(), 20u);
}

TEST(interval_fire, stream_is_keyed_by_gid_not_local_index) {
    // Cells 7 and 3 of a 10-cell population as local cells 0 and 1.
    auto group = make_cell_group(one_population(9, 10), {7, 3});
    auto out = run(*group, 8000);
    EXPECT_EQ(out.steps_of(0), free_running(9, 7, 8000));
    EXPECT_EQ(out.steps_of(1), free_running(9, 3, 8000));
    // The two cells really differ (otherwise the test above proves nothing).
    EXPECT_NE(free_running(9, 7, 8000), free_running(9, 3, 8000));
}

TEST(interval_fire, population_parameters_set_the_interval_range) {
    auto group =
        make_cell_group(one_population(4, 1, {{"invl_low_ms", 5.0}, {"invl_high_ms", 6.0}, {"tau_ms", tau}}), {0});
    auto got = run(*group, 400).steps_of(0);
    std::vector<step_type> expected;
    step_type last = 0;
    for (std::uint32_t k = 0;; ++k) {
        last = step_at(last * dt + interval(4, 0, k, 5.0, 6.0));
        if (last >= 400) break;
        expected.push_back(last);
    }
    EXPECT_EQ(got, expected);
}

TEST(interval_fire, excitatory_input_brings_the_spike_forward_as_the_formula_says) {
    const std::uint32_t seed = 3;
    const step_type n = 200; // input at 5 ms
    const double w = 0.3;
    const double minf0 = minf_of(interval(seed, 0, 0));
    // m(t) = minf + (0 - minf) exp(-t/tau) + w
    const double m = minf0 + (0.0 - minf0) * std::exp(-n * dt / tau) + w;
    ASSERT_LT(m, 1.0);
    const step_type first = fire_step(n, m, minf0);
    ASSERT_LT(first, step_at(interval(seed, 0, 0))) << "the input should matter";

    auto group = make_cell_group(one_population(seed, 1), {0});
    auto got = run(*group, 6000, {{n, 0, w}}).steps_of(0);
    ASSERT_GE(got.size(), 2u);
    EXPECT_EQ(got[0], first);
    // After the spike the next interval (block 1) starts from m = 0 at that step.
    EXPECT_EQ(got[1], step_at(first * dt + interval(seed, 0, 1)));
}

TEST(interval_fire, inhibitory_input_delays_the_spike_as_the_formula_says) {
    const std::uint32_t seed = 3;
    const step_type n = 400; // 10 ms
    const double w = -0.5;
    const double minf0 = minf_of(interval(seed, 0, 0));
    const double m = minf0 - minf0 * std::exp(-n * dt / tau) + w;
    const step_type first = fire_step(n, m, minf0);
    ASSERT_GT(first, step_at(interval(seed, 0, 0)));

    auto group = make_cell_group(one_population(seed, 1), {0});
    auto got = run(*group, 4000, {{n, 0, w}}).steps_of(0);
    ASSERT_FALSE(got.empty());
    EXPECT_EQ(got[0], first);
}

TEST(interval_fire, successive_inputs_integrate_from_the_last_update) {
    const std::uint32_t seed = 12;
    const double minf0 = minf_of(interval(seed, 0, 0));
    // Inputs at 2 ms (+0.2), 6 ms (-0.3), 9 ms (+0.25): m decays towards minf between them.
    const std::vector<input> inputs = {{80, 0, 0.2}, {240, 0, -0.3}, {360, 0, 0.25}};
    double m = 0, t0 = 0;
    for (auto& in: inputs) {
        const double t = in.step * dt;
        m = minf0 + (m - minf0) * std::exp(-(t - t0) / tau) + in.weight;
        t0 = t;
        ASSERT_LT(m, 1.0);
    }
    const step_type first = fire_step(360, m, minf0);

    auto group = make_cell_group(one_population(seed, 1), {0});
    auto got = run(*group, 4000, inputs).steps_of(0);
    ASSERT_FALSE(got.empty());
    EXPECT_EQ(got[0], first);
}

TEST(interval_fire, suprathreshold_input_fires_at_that_very_step) {
    const std::uint32_t seed = 8;
    const step_type n = 100;
    auto group = make_cell_group(one_population(seed, 1), {0});
    auto got = run(*group, 4000, {{n, 0, 1.5}}).steps_of(0);
    ASSERT_GE(got.size(), 2u);
    EXPECT_EQ(got[0], n);
    // m = 0 and a fresh interval (block 1) from that step.
    EXPECT_EQ(got[1], step_at(n * dt + interval(seed, 0, 1)));
}

TEST(interval_fire, input_exactly_at_threshold_does_not_fire_now) {
    // m > 1 fires; m just below 1 moves the self-event to (almost) now, which is handled
    // at the next step: a self-event is always in the future.
    const std::uint32_t seed = 8;
    const step_type n = 100;
    const double minf0 = minf_of(interval(seed, 0, 0));
    const double m_before = minf0 - minf0 * std::exp(-n * dt / tau);
    const double w = (1.0 - 1e-12) - m_before;
    auto group = make_cell_group(one_population(seed, 1), {0});
    auto got = run(*group, 400, {{n, 0, w}}).steps_of(0);
    ASSERT_FALSE(got.empty());
    EXPECT_EQ(got[0], n + 1);
    // Just above threshold: fires at that very step.
    auto group2 = make_cell_group(one_population(seed, 1), {0});
    auto got2 = run(*group2, 400, {{n, 0, w + 1e-6}}).steps_of(0);
    ASSERT_FALSE(got2.empty());
    EXPECT_EQ(got2[0], n);
}

TEST(interval_fire, fixed_interval_on_the_grid_fires_exactly_on_the_grid) {
    // invl_low = invl_high on the grid: t_e/dt is an integer up to rounding (often a hair
    // above it), and the dt*1e-9 tolerance must keep the spike on that step, not the next.
    for (auto [invl, tau_ms]: {std::pair{20.0, 5.0}, {20.0, 2.0}, {35.0, 5.0}, {40.0, 5.0}, {15.0, 10.0}}) {
        auto group = make_cell_group(
            one_population(1, 1, {{"invl_low_ms", invl}, {"invl_high_ms", invl}, {"tau_ms", tau_ms}}), {0});
        const step_type every = std::llround(invl / dt);
        auto got = run(*group, 50 * every + 1).steps_of(0);
        ASSERT_EQ(got.size(), 50u) << "invl " << invl << " tau " << tau_ms;
        for (std::size_t k = 0; k < got.size(); ++k) {
            ASSERT_EQ(got[k], step_type(every * (k + 1))) << "invl " << invl << " tau " << tau_ms << " spike " << k;
        }
    }
}

TEST(interval_fire, deliver_applies_only_the_given_range_in_order) {
    const std::uint32_t seed = 21;
    const step_type n = 40; // 1 ms
    auto group = make_cell_group(one_population(seed, 1), {0});
    recorder out;
    for (step_type s = 0; s < n; ++s) group->begin_step(s, out);
    group->begin_step(n, out);
    // Entries 0 and 3 would make it fire at once; only [1, 3) is delivered.
    std::vector<local_index> targets = {0, 0, 0, 0};
    std::vector<double> weights = {5.0, 0.2, -0.1, 5.0};
    group->deliver(n, targets.data(), weights.data(), 1, 3, out);
    EXPECT_TRUE(out.spikes.empty());
    for (step_type s = n + 1; s < 4000 && out.spikes.empty(); ++s) group->begin_step(s, out);

    const double minf0 = minf_of(interval(seed, 0, 0));
    double m = minf0 - minf0 * std::exp(-n * dt / tau) + 0.2; // first input
    m = m - 0.1;                                              // second, same time: no decay
    ASSERT_EQ(out.spikes.size(), 1u);
    EXPECT_EQ(out.spikes[0].second, fire_step(n, m, minf0));
}

TEST(interval_fire, inputs_after_a_spike_in_the_same_step_act_on_the_new_interval) {
    const std::uint32_t seed = 21;
    const step_type n = 40;
    const double minf0 = minf_of(interval(seed, 0, 0));
    ASSERT_LT(minf0 - minf0 * std::exp(-n * dt / tau) + 0.6, 1.0); // the first input alone stays below
    // +0.6, +0.6 crosses threshold: spike at n, m = 0; then +0.3 on the fresh interval.
    auto group = make_cell_group(one_population(seed, 1), {0});
    auto got = run(*group, 4000, {{n, 0, 0.6}, {n, 0, 0.6}, {n, 0, 0.3}}).steps_of(0);
    ASSERT_GE(got.size(), 2u);
    EXPECT_EQ(got[0], n);
    EXPECT_EQ(got[1], fire_step(n, 0.3, minf_of(interval(seed, 0, 1))));
}

TEST(interval_fire, self_event_is_handled_before_input_of_the_same_step) {
    // Determinism rule: at the step of the due self-event the cell fires first (m = 0,
    // interval 1), then takes the input. The other order would cross threshold on input.
    const std::uint32_t seed = 30;
    const step_type s0 = step_at(interval(seed, 0, 0));
    const double w = 0.4;
    auto group = make_cell_group(one_population(seed, 1), {0});
    auto got = run(*group, s0 + 4000, {{s0, 0, w}}).steps_of(0);
    ASSERT_GE(got.size(), 2u);
    EXPECT_EQ(got[0], s0);
    EXPECT_EQ(got[1], fire_step(s0, w, minf_of(interval(seed, 0, 1))));
}

TEST(interval_fire, input_to_one_cell_leaves_the_others_alone) {
    auto group = make_cell_group(one_population(2, 3), {0, 1, 2});
    auto out = run(*group, 8000, {{100, 1, 1.5}});
    EXPECT_EQ(out.steps_of(0), free_running(2, 0, 8000));
    EXPECT_EQ(out.steps_of(2), free_running(2, 2, 8000));
    ASSERT_FALSE(out.steps_of(1).empty());
    EXPECT_EQ(out.steps_of(1).front(), 100);
}

TEST(interval_fire, a_group_that_always_bursts_divides_every_interval) {
    // burst_groups = 1: the only group bursts at all times.
    const double factor = 4.0;
    auto group = make_cell_group(
        one_population(6, 1, {{"burst_groups", 1}, {"burst_factor", factor}, {"burst_period_ms", 50.0}}), {0});
    auto got = run(*group, 8000).steps_of(0);
    EXPECT_EQ(got, free_running(6, 0, 8000, factor));
    EXPECT_GE(got.size(), 19u); // 5..10 ms intervals over 200 ms (unbursting: at most 10 spikes)
}

namespace {

// Closed form with bursts: cell `gid` of a population of `size` with `groups` groups of
// period `period_steps` steps; bursting is decided at the step of the draw. Inputs are
// suprathreshold kicks only (they fire the cell at their step).
std::vector<step_type> bursting_train(std::uint32_t seed, gid_type gid, std::uint32_t size, int groups,
                                      step_type period_steps, double factor, step_type stop,
                                      const std::vector<step_type>& kicks) {
    const int group = int(std::uint64_t(gid) * groups / size);
    auto divide = [&](step_type n) { return (n / period_steps) % groups == group ? factor : 1.0; };
    std::vector<step_type> s;
    step_type last = 0;
    std::size_t next_kick = 0;
    for (std::uint32_t k = 0;;) {
        step_type due = step_at(last * dt + interval(seed, gid, k++) / divide(last));
        // A kick before the due step fires the cell at the kick instead (and draws anew).
        bool kicked = next_kick < kicks.size() && kicks[next_kick] < due;
        if (kicked) due = kicks[next_kick++];
        if (due >= stop) return s;
        s.push_back(due);
        last = due;
        // A kick at the due step: the self-event fires first, then the kick fires again.
        if (!kicked && next_kick < kicks.size() && kicks[next_kick] == due) {
            ++next_kick;
            s.push_back(due);
            ++k;
        }
    }
}

} // namespace

TEST(interval_fire, burst_groups_divide_intervals_drawn_while_bursting) {
    // 4 cells, 2 groups: gids 0,1 burst in [0,50) ms mod 100, gids 2,3 in [50,100).
    const double factor = 5.0;
    const step_type period = 2000, stop = 16000; // 50 ms, 400 ms
    auto spec = one_population(14, 4, {{"burst_groups", 2}, {"burst_factor", factor}, {"burst_period_ms", 50.0}});
    auto group = make_cell_group(spec, {0, 1, 2, 3});
    auto out = run(*group, stop);
    for (gid_type g = 0; g < 4; ++g) {
        EXPECT_EQ(out.steps_of(g), bursting_train(14, g, 4, 2, period, factor, stop, {})) << "gid " << g;
    }
    // Group 0 bursts from t = 0: its first interval is divided, group 1's is not.
    EXPECT_EQ(out.steps_of(0).front(), step_at(interval(14, 0, 0) / factor));
    EXPECT_EQ(out.steps_of(2).front(), step_at(interval(14, 2, 0)));
}

TEST(interval_fire, burst_state_is_taken_at_the_draw_step_including_window_edges) {
    // Kicks force spikes (and so draws) exactly at and just before window boundaries:
    // 49.975 ms and 99.975 ms are inside a window, 50 ms and 100 ms at the start of the next.
    const double factor = 5.0;
    const step_type period = 2000, stop = 24000;
    const std::vector<step_type> kicks = {1999, 4000, 5999, 8000, 10000, 12000, 13999, 16000, 20000};
    std::vector<input> inputs;
    for (auto k: kicks) inputs.push_back({k, 0, 2.0});
    for (int groups: {1, 2, 3}) {
        auto spec =
            one_population(31, 1, {{"burst_groups", groups}, {"burst_factor", factor}, {"burst_period_ms", 50.0}});
        auto group = make_cell_group(spec, {0});
        auto got = run(*group, stop, inputs).steps_of(0);
        EXPECT_EQ(got, bursting_train(31, 0, 1, groups, period, factor, stop, kicks)) << "groups " << groups;
    }
}

TEST(interval_fire, bad_parameters_and_models_are_user_errors) {
    EXPECT_THROW(make_cell_group(one_population(1, 1, {{"tau", 5.0}}), {0}), user_error);
    EXPECT_THROW(make_cell_group(one_population(1, 1, {{"tau_ms", 0.0}}), {0}), user_error);
    EXPECT_THROW(make_cell_group(one_population(1, 1, {{"invl_low_ms", -1.0}}), {0}), user_error);
    EXPECT_THROW(make_cell_group(one_population(1, 1, {{"invl_low_ms", 30.0}, {"invl_high_ms", 20.0}}), {0}),
                 user_error);
    EXPECT_THROW(make_cell_group(one_population(1, 1, {{"burst_groups", -1}}), {0}), user_error);
    EXPECT_THROW(make_cell_group(one_population(1, 1, {{"burst_factor", 0.0}}), {0}), user_error);
    EXPECT_THROW(make_cell_group(one_population(1, 1, {{"burst_period_ms", 0.0}}), {0}), user_error);
    auto spec = one_population(1, 1);
    spec.populations[0].model = "no_such_model";
    EXPECT_THROW(make_cell_group(spec, {0}), user_error);
    EXPECT_NO_THROW(
        make_cell_group(one_population(1, 1, {{"tau_ms", 10.0}, {"invl_low_ms", 10.0}, {"invl_high_ms", 10.0}}), {0}));
}

TEST(interval_fire, each_population_uses_its_own_parameters_and_burst_groups) {
    // Population 0: gids 0..2, defaults. Population 1: gids 3..6, 5..6 ms intervals,
    // 2 burst groups of its own cells (gids 3,4 burst first; 5,6 in the second window).
    network_spec spec = one_population(17, 3);
    spec.populations.push_back({"interval_fire",
                                3,
                                4,
                                constant_parameter_map({{"invl_low_ms", 5.0},
                                                        {"invl_high_ms", 6.0},
                                                        {"burst_groups", 2},
                                                        {"burst_factor", 2.0},
                                                        {"burst_period_ms", 50.0}}),
                                {}});
    auto group = make_cell_group(spec, {4, 1, 6});
    auto out = run(*group, 800);                          // 20 ms: inside the first burst window
    EXPECT_EQ(out.steps_of(1), free_running(17, 1, 800)); // default cell: no spike before 20 ms
    EXPECT_TRUE(out.steps_of(1).empty());
    auto expected = [&](gid_type gid, double divide) {
        std::vector<step_type> s;
        step_type last = 0;
        for (std::uint32_t k = 0;; ++k) {
            last = step_at(last * dt + interval(17, gid, k, 5.0, 6.0) / divide);
            if (last >= 800) return s;
            s.push_back(last);
        }
    };
    EXPECT_EQ(out.steps_of(0), expected(4, 2.0)); // group 0 of population 1: bursting
    EXPECT_EQ(out.steps_of(2), expected(6, 1.0)); // group 1: not yet
}

TEST(interval_fire, time_to_fire_stays_finite_and_exact_for_long_intervals) {
    // Closed form, without minf: tau ln((minf - m)/(minf - 1)) = invl + tau ln((1 - m) + m exp(-invl/tau)).
    for (double tau_ms: {1.0, 5.0, 20.0}) {
        for (double invl: {10.0, 50.0, 150.0, 184.0, 200.0, 500.0, 1000.0, 1e4, 1e5, 1e6}) {
            const double minf = interval_fire::steady_state(invl, tau_ms);
            const double log_excess = interval_fire::log_excess(invl, tau_ms);
            ASSERT_TRUE(std::isfinite(log_excess)) << invl << " " << tau_ms;
            for (double m: {0.0, 0.3, 0.9, 0.999999, -2.0}) {
                const double expected = invl + tau_ms * std::log((1.0 - m) + m * std::exp(-invl / tau_ms));
                const double got = interval_fire::time_to_fire(m, minf, log_excess, tau_ms);
                ASSERT_TRUE(std::isfinite(got)) << "invl " << invl << " tau " << tau_ms << " m " << m;
                EXPECT_NEAR(got, expected, 1e-9 * std::max(1.0, expected))
                    << "invl " << invl << " tau " << tau_ms << " m " << m;
            }
            EXPECT_EQ(interval_fire::time_to_fire(1.0, minf, log_excess, tau_ms), 0.0);
        }
    }
}

TEST(interval_fire, long_fixed_intervals_fire_once_per_interval) {
    // Issue 52: past invl/tau ~ 37 minf rounded to 1 and every step fired.
    for (double invl: {184.0, 500.0, 1000.0, 1e4, 1e5}) {
        auto group = make_cell_group(one_population(1, 1, {{"invl_low_ms", invl}, {"invl_high_ms", invl}}), {0});
        const step_type every = std::llround(invl / dt);
        auto got = run(*group, 2 * every + 1).steps_of(0);
        ASSERT_EQ(got.size(), 2u) << "invl " << invl;
        EXPECT_EQ(got[0], every) << "invl " << invl;
        EXPECT_EQ(got[1], 2 * every) << "invl " << invl;
    }
}

TEST(interval_fire, long_drawn_intervals_do_not_fire_early) {
    // 1000 cells, intervals of 500-1000 ms: none fires in the first 100 ms, each once by 1 s.
    auto group = make_cell_group(one_population(3, 1000, {{"invl_low_ms", 500.0}, {"invl_high_ms", 1000.0}}), [] {
        std::vector<gid_type> g(1000);
        for (gid_type i = 0; i < 1000; ++i) g[i] = i;
        return g;
    }());
    auto out = run(*group, step_type(1000.0 / dt) + 1);
    EXPECT_EQ(out.spikes.size(), 1000u);
    for (auto [cell, step]: out.spikes) {
        EXPECT_EQ(step, step_at(interval(3, cell, 0, 500.0, 1000.0))) << "cell " << cell;
    }
}
