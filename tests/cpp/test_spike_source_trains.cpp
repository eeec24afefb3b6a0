// The renewal spike sources (models/source_trains.hpp): spike_source_gamma,
// spike_source_poisson_refractory and spike_source_inh_gamma against the laws of NEST's
// processes (docs/models/spike_source_trains.md) — rates, interval CVs, the dead time,
// independent components of a superposition, the sinusoidal modulation, rate steps, the
// window — and their restarts. Tolerances are 5 standard errors of the estimate (fixed
// seeds: the outcome is the same on every run). NEST: tests/python/nest_validation/
// test_nest_spike_source_trains.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
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
    std::map<local_index, std::vector<step_type>> spikes; // per cell, in step order
    void emit(local_index cell, step_type n) override { spikes[cell].push_back(n); }
};

network_spec population(const std::string& model, std::uint32_t size, const std::map<std::string, double>& params,
                        const std::vector<std::pair<std::string, std::vector<double>>>& lists = {},
                        std::uint32_t seed = 3) {
    network_spec spec;
    spec.dt_ms = dt;
    spec.seed = seed;
    population_spec pop{model, 0, size, constant_parameter_map(params), {}};
    for (const auto& [name, values]: lists) { // the same list for every cell
        auto& l = pop.lists[name];
        l.offsets.push_back(0);
        for (std::uint32_t i = 0; i < size; ++i) {
            l.values.insert(l.values.end(), values.begin(), values.end());
            l.offsets.push_back(l.values.size());
        }
    }
    spec.populations.push_back(pop);
    return spec;
}

std::vector<gid_type> all(const network_spec& spec) {
    std::vector<gid_type> gids(spec.cells());
    std::iota(gids.begin(), gids.end(), 0);
    return gids;
}

// Steps [from, to) of a group built for spec (begin_step only: sources take no input).
recorder run(const network_spec& spec, step_type to, step_type from = 0) {
    auto group = make_cell_group(spec, all(spec), 0);
    recorder out;
    for (step_type n = from; n < to; ++n) group->begin_step(n, out);
    return out;
}

struct interval_stats {
    double count = 0, mean = 0, sd = 0;
    step_type min = -1;
    double cv() const { return sd / mean; }
};

// Intervals (steps) between consecutive spikes of each cell, those with both ends in
// [from, to) only.
interval_stats intervals(const recorder& out, step_type from = 0,
                         step_type to = std::numeric_limits<step_type>::max()) {
    std::vector<double> isi;
    step_type low = std::numeric_limits<step_type>::max();
    for (const auto& [cell, steps]: out.spikes) {
        for (std::size_t k = 1; k < steps.size(); ++k) {
            if (steps[k - 1] < from || steps[k] >= to) continue;
            isi.push_back(double(steps[k] - steps[k - 1]));
            low = std::min(low, steps[k] - steps[k - 1]);
        }
    }
    interval_stats s;
    s.count = double(isi.size());
    if (isi.empty()) return s;
    s.mean = std::accumulate(isi.begin(), isi.end(), 0.0) / s.count;
    double ss = 0;
    for (double x: isi) ss += (x - s.mean) * (x - s.mean);
    s.sd = std::sqrt(ss / (s.count - 1));
    s.min = low;
    return s;
}

std::size_t spikes_in(const recorder& out, step_type from, step_type to) {
    std::size_t n = 0;
    for (const auto& [cell, steps]: out.spikes)
        for (auto s: steps) n += s >= from && s < to;
    return n;
}

// Standard error of a sample CV (normal approximation, generous for skewed intervals).
double cv_error(double cv, double n) { return cv * std::sqrt((1.0 + 2.0 * cv * cv) / (2.0 * n)) * 1.5; }

} // namespace

TEST(spike_source_gamma, one_process_has_the_rate_and_the_cv_of_nests_phase_process) {
    const double rate = 50.0, k = 4.0, p = rate * k * dt / 1000.0; // 0.02
    const auto out = run(population("spike_source_gamma", 10, {{"rate", rate}, {"gamma_shape", k}}), 2'000'000);
    const auto s = intervals(out);
    ASSERT_GT(s.count, 90'000);
    // Intervals: the sum of k geometric numbers of steps, mean k/p, CV sqrt((1 - p)/k).
    const double mean = k / p, cv = std::sqrt((1.0 - p) / k);
    EXPECT_NEAR(s.mean, mean, 5 * mean * cv / std::sqrt(s.count));
    EXPECT_NEAR(s.cv(), cv, 5 * cv_error(cv, s.count));
    EXPECT_NEAR(s.cv(), 1.0 / std::sqrt(k), 0.02); // the gamma process's CV as p -> 0
    EXPECT_GE(s.min, step_type(k));                // one phase change per step at most
}

TEST(spike_source_gamma, components_of_a_superposition_are_independent) {
    // 5 processes of order 3 at 10 Hz: 50 Hz in all. Counts in 2 s windows have the Fano
    // factor of one component (its CV^2 ~ 1/3), not 5 times it (copies) nor 1 (Poisson).
    const double rate = 10.0, k = 3.0, n_proc = 5.0, p = rate * k * dt / 1000.0;
    const auto out =
        run(population("spike_source_gamma", 20, {{"rate", rate}, {"gamma_shape", k}, {"n_proc", n_proc}}), 1'000'000);
    const step_type window = 20'000, skip = 10'000; // after a second: near equilibrium
    std::vector<double> counts;
    for (const auto& [cell, steps]: out.spikes)
        for (step_type w = skip; w + window <= 1'000'000; w += window)
            counts.push_back(double(
                std::count_if(steps.begin(), steps.end(), [&](step_type s) { return s >= w && s < w + window; })));
    const double mean = std::accumulate(counts.begin(), counts.end(), 0.0) / double(counts.size());
    double var = 0;
    for (double c: counts) var += (c - mean) * (c - mean);
    var /= double(counts.size() - 1);
    const double expected = n_proc * rate * window * dt / 1000.0; // 100
    EXPECT_NEAR(mean, expected, 5 * std::sqrt(expected / 3.0 / double(counts.size())));
    EXPECT_NEAR(var / mean, (1.0 - p) / k, 0.1) << "Fano factor of the superposition";
}

TEST(spike_source_gamma, a_single_process_starts_in_its_last_phase) {
    // NEST's initial state for n_proc = 1: the last phase, so the first spike comes after one
    // geometric phase (mean 1/p steps), not after gamma_shape of them.
    const double rate = 20.0, k = 5.0, p = rate * k * dt / 1000.0; // 0.01
    const auto out = run(population("spike_source_gamma", 2000, {{"rate", rate}, {"gamma_shape", k}}), 5000);
    double sum = 0, n = 0;
    for (const auto& [cell, steps]: out.spikes) sum += double(steps.front()), n += 1;
    ASSERT_GT(n, 1900);          // P(no spike in 5000 steps) is tiny
    const double mean = 1.0 / p; // the first active step is 1: first spike at 0 + G
    EXPECT_NEAR(sum / n, mean, 5 * mean / std::sqrt(n));
}

TEST(spike_source_gamma, a_rate_beyond_one_phase_change_per_step_is_refused) {
    try {
        run(population("spike_source_gamma", 1, {{"rate", 3000.0}, {"gamma_shape", 4.0}}), 1);
        FAIL() << "no error";
    } catch (const user_error& e) {
        EXPECT_STREQ(e.what(),
                     "spike_source_gamma parameter rate = 3000: must be <= 1000 / (gamma_shape · dt) = 2500 Hz "
                     "(at most one phase change per step)");
    }
    EXPECT_THROW(run(population("spike_source_gamma", 1, {{"gamma_shape", 2.5}}), 1), user_error);
    EXPECT_THROW(run(population("spike_source_gamma", 1, {{"start", 5.0}, {"stop", 2.0}}), 1), user_error);
}

TEST(spike_source_poisson_refractory, intervals_are_the_dead_time_plus_a_geometric_wait) {
    const double rate = 100.0, dead = 5.0;
    const double hazard = dt / (1000.0 / rate - dead); // 0.02
    const auto out =
        run(population("spike_source_poisson_refractory", 10, {{"rate", rate}, {"dead_time", dead}}), 1'000'000);
    const auto s = intervals(out);
    ASSERT_GT(s.count, 90'000);
    const double d = 50, mean = d + 1.0 / hazard, sd = std::sqrt(1.0 - hazard) / hazard;
    EXPECT_EQ(s.min, 51); // D + 1 steps, and that often
    EXPECT_NEAR(s.mean, mean, 5 * sd / std::sqrt(s.count));
    EXPECT_NEAR(s.cv(), sd / mean, 5 * cv_error(sd / mean, s.count));
}

TEST(spike_source_poisson_refractory, a_dead_time_off_the_grid_is_cut_to_whole_steps) {
    // NEST: D = floor(dead_time / dt) = 25 steps; intervals >= 26 steps.
    const auto out =
        run(population("spike_source_poisson_refractory", 10, {{"rate", 100.0}, {"dead_time", 2.55}}), 200'000);
    EXPECT_EQ(intervals(out).min, 26);
}

TEST(spike_source_poisson_refractory, the_sinusoidal_modulation_shapes_the_rate) {
    // No dead time: each step spikes with probability p (1 + a sin(2 pi f t)), independently.
    const double rate = 50.0, f = 10.0, a = 0.8, p = dt * rate / 1000.0;
    const step_type steps = 2'000'000;
    const auto out = run(population("spike_source_poisson_refractory", 10,
                                    {{"rate", rate}, {"frequency", f}, {"relative_amplitude", a}}),
                         steps);
    const int bins = 8;
    const step_type period = 1000; // 100 ms
    std::vector<double> counts(bins, 0.0), expected(bins, 0.0);
    for (const auto& [cell, spikes]: out.spikes)
        for (auto s: spikes) counts[(s % period) * bins / period] += 1;
    for (step_type s = 1; s < steps; ++s) // active from step 1
        expected[(s % period) * bins / period] += 10 * p * (1.0 + a * std::sin(2 * M_PI * f * double(s) * dt / 1000.0));
    for (int b = 0; b < bins; ++b) EXPECT_NEAR(counts[b], expected[b], 5 * std::sqrt(expected[b])) << "bin " << b;
    EXPECT_GT(counts[2] / counts[6], 4.0); // sin > 0 in the first half period
}

TEST(spike_source_poisson_refractory, a_superposition_has_n_proc_times_the_rate) {
    const auto out =
        run(population("spike_source_poisson_refractory", 10, {{"rate", 20.0}, {"dead_time", 2.0}, {"n_proc", 4.0}}),
            500'000);
    const double expected = 10 * 4 * 20.0 * 50.0; // cells x n_proc x rate x 50 s
    // Events sharing a step merge: about R dt / 2000 = 0.4 % of them at R = 80 Hz.
    EXPECT_NEAR(double(spikes_in(out, 0, 500'000)), expected * (1 - 0.004), 5 * std::sqrt(expected));
}

TEST(spike_source_poisson_refractory, relations_are_checked_as_nest_does) {
    try {
        run(population("spike_source_poisson_refractory", 1, {{"rate", 100.0}, {"dead_time", 10.0}}), 1);
        FAIL() << "no error";
    } catch (const user_error& e) {
        EXPECT_STREQ(e.what(),
                     "spike_source_poisson_refractory parameter dead_time = 10: must be < 1000 / rate = 10 ms");
    }
    // A spike probability per step above 1: 1000/rate - dead_time = 0.12 ms < dt (1 + 0.5).
    EXPECT_THROW(
        run(population("spike_source_poisson_refractory", 1,
                       {{"rate", 100.0}, {"dead_time", 9.88}, {"frequency", 3.0}, {"relative_amplitude", 0.5}}),
            1),
        user_error);
    EXPECT_NO_THROW(run(population("spike_source_poisson_refractory", 1, {{"rate", 100.0}, {"dead_time", 9.88}}), 1));
}

TEST(spike_source_trains, the_window_is_nests_device_window) {
    // NEST acts in steps s with (origin + start)/dt < s <= (origin + stop)/dt: 151..250.
    const std::map<std::string, double> window = {{"start", 10.0}, {"stop", 20.0}, {"origin", 5.0}};
    auto with = [&](std::map<std::string, double> p) {
        p.insert(window.begin(), window.end());
        return p;
    };
    for (const auto& spec:
         {population("spike_source_poisson_refractory", 30, with({{"rate", 5000.0}})),
          population("spike_source_gamma", 30, with({{"rate", 2500.0}, {"gamma_shape", 2.0}})),
          population("spike_source_inh_gamma", 30, with({}), {{"rate_times", {0.0}}, {"rate_values", {9000.0}}})}) {
        const auto out = run(spec, 400);
        step_type low = 1 << 30, high = -1;
        for (const auto& [cell, steps]: out.spikes)
            low = std::min(low, steps.front()), high = std::max(high, steps.back());
        EXPECT_EQ(low, 151) << spec.populations[0].model;
        EXPECT_EQ(high, 250) << spec.populations[0].model;
    }
}

TEST(spike_source_trains, a_cell_spikes_at_most_once_per_step) {
    // 200 processes at 100 Hz: 2 events per step on average, one spike per step.
    const auto out = run(population("spike_source_poisson_refractory", 3, {{"rate", 100.0}, {"n_proc", 200.0}}), 2000);
    for (const auto& [cell, steps]: out.spikes) {
        EXPECT_TRUE(std::adjacent_find(steps.begin(), steps.end()) == steps.end());
        EXPECT_GT(steps.size(), 1700u); // P(no event in a step) = e^-2
    }
}

TEST(spike_source_inh_gamma, the_rate_follows_its_steps_and_intervals_are_gamma) {
    // 10 Hz from 0, 40 Hz from 50 s, 0 from 100 s; gamma_shape 3.
    const double k = 3.0;
    const auto spec = population("spike_source_inh_gamma", 20, {{"gamma_shape", k}},
                                 {{"rate_times", {0.0, 50'000.0, 100'000.0}}, {"rate_values", {10.0, 40.0, 0.0}}});
    const auto out = run(spec, 1'200'000);
    const double first = 20 * 10.0 * 50.0, second = 20 * 40.0 * 50.0;
    EXPECT_NEAR(double(spikes_in(out, 0, 499'999)), first, 5 * std::sqrt(first / k) + 20);
    EXPECT_NEAR(double(spikes_in(out, 499'999, 999'999)), second, 5 * std::sqrt(second / k) + 20);
    EXPECT_EQ(spikes_in(out, 999'999, 1'200'000), 0u);
    // Within the 40 Hz segment: gamma intervals, mean 25 ms, CV 1/sqrt(3) (steps of 0.1 ms
    // add a variance of about 1/6 step^2: negligible).
    const auto s = intervals(out, 500'000, 999'999);
    const double cv = 1.0 / std::sqrt(k);
    EXPECT_NEAR(s.mean * dt, 25.0, 5 * 25.0 * cv / std::sqrt(s.count));
    EXPECT_NEAR(s.cv(), cv, 5 * cv_error(cv, s.count));
}

TEST(spike_source_inh_gamma, a_rate_time_holds_from_the_steps_nest_stamps_it) {
    // Rate 0, then 5000 Hz from 20 ms: NEST stamps the first spikes 20 ms, emitted in step 199.
    const auto out =
        run(population("spike_source_inh_gamma", 20, {}, {{"rate_times", {0.0, 20.0}}, {"rate_values", {0.0, 5000.0}}}),
            400);
    step_type low = 1 << 30;
    for (const auto& [cell, steps]: out.spikes) low = std::min(low, steps.front());
    EXPECT_EQ(low, 199);
}

TEST(spike_source_inh_gamma, bad_lists_name_the_parameter_and_the_cell) {
    auto error = [](const std::vector<double>& times, const std::vector<double>& values, double offgrid = 0.0) {
        try {
            run(population("spike_source_inh_gamma", 1, {{"allow_offgrid_times", offgrid}},
                           {{"rate_times", times}, {"rate_values", values}}),
                1);
        } catch (const user_error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(error({1.0, 2.0}, {5.0}),
              "spike_source_inh_gamma (cell 0): 2 rate_times and 1 rate_values: give one value per time");
    EXPECT_EQ(error({1.05}, {5.0}), "spike_source_inh_gamma parameter rate_times = 1.05 (cell 0): must be a multiple "
                                    "of dt = 0.1 ms (or set allow_offgrid_times = 1)");
    EXPECT_EQ(error({1.05}, {5.0}, 1.0), "no error");
    EXPECT_EQ(
        error({2.0, 2.0}, {5.0, 6.0}),
        "spike_source_inh_gamma parameter rate_times = 2 (cell 0): must be strictly increasing, on distinct steps");
    EXPECT_EQ(error({2.0}, {-1.0}), "spike_source_inh_gamma parameter rate_values = -1 (cell 0): must be a finite "
                                    "rate >= 0 Hz");
}

// A group built anew and started at step m draws its trains from the start: the same spikes
// from m on as an uninterrupted group (the restart after a checkpoint of a superposition,
// and after a parameter change).
TEST(spike_source_trains, a_group_started_late_emits_the_same_spikes_from_then_on) {
    for (const auto& spec:
         {population("spike_source_gamma", 8, {{"rate", 80.0}, {"gamma_shape", 3.0}, {"n_proc", 4.0}}),
          population(
              "spike_source_poisson_refractory", 8,
              {{"rate", 60.0}, {"dead_time", 3.0}, {"n_proc", 3.0}, {"frequency", 7.0}, {"relative_amplitude", 0.5}}),
          population("spike_source_inh_gamma", 8, {{"gamma_shape", 2.5}},
                     {{"rate_times", {0.0, 300.0}}, {"rate_values", {80.0, 20.0}}})}) {
        const auto whole = run(spec, 20'000);
        const auto late = run(spec, 20'000, 7'777);
        std::size_t compared = 0;
        for (const auto& [cell, steps]: whole.spikes) {
            std::vector<step_type> after;
            for (auto s: steps)
                if (s >= 7'777) after.push_back(s);
            const auto it = late.spikes.find(cell);
            EXPECT_EQ(after, it == late.spikes.end() ? std::vector<step_type>{} : it->second);
            compared += after.size();
        }
        EXPECT_GT(compared, 150u) << spec.populations[0].model;
    }
}

// A one-process cell's saved state goes back into a group of the same parameters; a group
// with other parameters ignores it and emits the train of its own parameters.
TEST(spike_source_trains, a_saved_state_loads_only_into_the_same_parameters) {
    const auto before = population("spike_source_gamma", 4, {{"rate", 40.0}, {"gamma_shape", 2.0}});
    const auto after = population("spike_source_gamma", 4, {{"rate", 90.0}, {"gamma_shape", 2.0}});
    auto old_group = make_cell_group(before, all(before), 0);
    recorder ignored;
    for (step_type n = 0; n < 5000; ++n) old_group->begin_step(n, ignored);
    const auto& names = find_model("spike_source_gamma").checkpoint_state;
    ASSERT_EQ(names.size(), 4u);
    std::vector<std::vector<double>> saved(4, std::vector<double>(names.size()));
    for (gid_type g = 0; g < 4; ++g) {
        old_group->save_cell(g, saved[g].data());
        EXPECT_EQ(saved[g][0], 1.0); // one process: its state is saved
    }
    auto load_into = [&](const network_spec& spec) {
        auto group = make_cell_group(spec, all(spec), 0);
        for (gid_type g = 0; g < 4; ++g) group->load_cell(g, saved[g].data());
        group->after_load();
        recorder out;
        for (step_type n = 5000; n < 30'000; ++n) group->begin_step(n, out);
        return out.spikes;
    };
    recorder same;
    for (step_type n = 5000; n < 30'000; ++n) old_group->begin_step(n, same);
    EXPECT_EQ(load_into(before), same.spikes);
    EXPECT_EQ(load_into(after), run(after, 30'000, 5000).spikes);
}

// The state is restored, not drawn again: loaded into a group of another seed (the same
// parameters), a cell's next spike is the saved one.
TEST(spike_source_trains, a_one_process_state_is_restored_not_redrawn) {
    for (const char* model: {"spike_source_gamma", "spike_source_poisson_refractory", "spike_source_inh_gamma"}) {
        const std::map<std::string, double> params = {{"rate", 30.0}};
        const std::vector<std::pair<std::string, std::vector<double>>> lists = {{"rate_times", {0.0}},
                                                                                {"rate_values", {30.0}}};
        const bool inh = std::string(model) == "spike_source_inh_gamma";
        const auto a =
            population(model, 1, inh ? std::map<std::string, double>{} : params, inh ? lists : decltype(lists){}, 3);
        const auto b =
            population(model, 1, inh ? std::map<std::string, double>{} : params, inh ? lists : decltype(lists){}, 4);
        auto from = make_cell_group(a, all(a), 0);
        recorder ignored;
        for (step_type n = 0; n < 1000; ++n) from->begin_step(n, ignored);
        std::vector<double> v(find_model(model).checkpoint_state.size());
        from->save_cell(0, v.data());
        auto into = make_cell_group(b, all(b), 0);
        into->load_cell(0, v.data());
        into->after_load();
        recorder restored, original;
        for (step_type n = 1000; n < 1'000'000 && restored.spikes[0].empty(); ++n) into->begin_step(n, restored);
        for (step_type n = 1000; n < 1'000'000 && original.spikes[0].empty(); ++n) from->begin_step(n, original);
        ASSERT_FALSE(original.spikes[0].empty() || restored.spikes[0].empty()) << model;
        EXPECT_EQ(restored.spikes[0].front(), original.spikes[0].front()) << model;
        auto own = make_cell_group(b, all(b), 0); // b's own train from 1000: another next spike
        recorder drawn;
        for (step_type n = 1000; n < 1'000'000 && drawn.spikes[0].empty(); ++n) own->begin_step(n, drawn);
        ASSERT_FALSE(drawn.spikes[0].empty()) << model;
        EXPECT_NE(drawn.spikes[0].front(), original.spikes[0].front()) << model;
    }
}
