// tsodyks_synapse and tsodyks2_synapse: the weight factors of an irregular spike train
// against the models' recurrences written out here independently (tsodyks_synapse's in the
// form of the paper, with the inactive fraction z as a state of its own), the depressing and
// facilitating regimes, a steady state known in closed form, the parameter checks, and the
// engine: spikes delivered with weight x factor (stored weights unchanged), the same on one
// and two threads, and a checkpoint taken mid-run and resumed on another layout goes on
// bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "spikex/comm/context.hpp"
#include "spikex/core/errors.hpp"
#include "spikex/engine/engine.hpp"
#include "spikex/synapses/synapse_registry.hpp"

using namespace spikex;

namespace {

constexpr double dt = 0.1;

// 60 stamps (steps) with irregular intervals of 1 to `longest` steps (0.1 to 90 ms by default).
std::vector<step_type> irregular_train(std::uint64_t longest = 900) {
    std::vector<step_type> stamps;
    std::uint64_t state = 12345;
    step_type t = 37;
    for (int k = 0; k < 60; ++k) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const auto r = static_cast<step_type>((state >> 33) % longest);
        t += 1 + (k % 7 == 3 ? r / 100 : r); // now and then a short interval
        stamps.push_back(t);
    }
    return stamps;
}

// tsodyks_synapse as in Tsodyks, Uziel & Markram (2000): x recovered, y active, z inactive
// (x + y + z = 1). Between spikes y decays into z with tau_psc and z recovers into x with
// tau_rec: y(h) = y e^(-h/tau_psc), z(h) = A e^(-h/tau_psc) + (z - A) e^(-h/tau_rec) with
// A = y tau_rec / (tau_psc - tau_rec), x = 1 - y - z; u decays with tau_fac. At a spike u
// jumps by U (1 - u) and u x moves from x to y.
struct tsodyks_reference {
    double x, y, z, u;
    step_type last = 0;
    double spike(step_type stamp, const tsodyks_parameters& p) {
        const double h = double(stamp - last) * dt;
        const double a = y * p.tau_rec / (p.tau_psc - p.tau_rec);
        z = a * std::exp(-h / p.tau_psc) + (z - a) * std::exp(-h / p.tau_rec);
        y *= std::exp(-h / p.tau_psc);
        x = 1.0 - y - z;
        u = p.tau_fac > 0 ? u * std::exp(-h / p.tau_fac) : 0.0;
        u += p.U * (1.0 - u);
        const double release = u * x;
        x -= release;
        y += release;
        last = stamp;
        return release;
    }
};

// tsodyks2_synapse (Maass & Markram 2002): the first spike takes the initial u x; before
// each later one the previous release is taken from x, x recovers towards 1 with tau_rec,
// and u decays with tau_fac before its jump U (1 - u).
struct tsodyks2_reference {
    double x, u;
    bool first = true;
    step_type last = 0;
    double spike(step_type stamp, const tsodyks2_parameters& p) {
        if (!first) {
            const double h = double(stamp - last) * dt;
            const double left = x * (1.0 - u);
            x = 1.0 - (1.0 - left) * std::exp(-h / p.tau_rec);
            const double decayed = p.tau_fac > 0 ? u * std::exp(-h / p.tau_fac) : 0.0;
            u = decayed + p.U * (1.0 - decayed);
        }
        first = false;
        last = stamp;
        return u * x;
    }
};

tsodyks_parameters tsodyks_params(const std::map<std::string, double>& given) {
    return parse_tsodyks_parameters(given);
}
tsodyks2_parameters tsodyks2_params(const std::map<std::string, double>& given) {
    return parse_tsodyks2_parameters(given);
}

std::vector<double> tsodyks_factors(const tsodyks_parameters& p, const std::vector<step_type>& stamps) {
    const tsodyks_rule rule(p, dt);
    short_term_state s = rule.initial();
    std::vector<double> out;
    for (auto t: stamps) {
        const double f = tsodyks_spike(s, t, rule);
        EXPECT_EQ(f, s.factor);
        out.push_back(f);
    }
    return out;
}

std::vector<double> tsodyks2_factors(const tsodyks2_parameters& p, const std::vector<step_type>& stamps) {
    const tsodyks2_rule rule(p, dt);
    short_term_state s = rule.initial();
    std::vector<double> out;
    for (auto t: stamps) out.push_back(tsodyks2_spike(s, t, rule));
    return out;
}

// Relative agreement to 1e-12: the two forms round differently, nothing else.
void expect_close(const std::vector<double>& mine, const std::vector<double>& theirs) {
    ASSERT_EQ(mine.size(), theirs.size());
    for (std::size_t k = 0; k < mine.size(); ++k) {
        EXPECT_NEAR(mine[k], theirs[k], 1e-12 * std::abs(theirs[k])) << "spike " << k;
    }
}

const std::map<std::string, double> depressing = {{"U", 0.5}, {"tau_psc", 3.0}, {"tau_rec", 450.0}};
const std::map<std::string, double> facilitating = {
    {"U", 0.03}, {"tau_psc", 2.0}, {"tau_rec", 60.0}, {"tau_fac", 700.0}};

} // namespace

TEST(tsodyks, factors_follow_the_recurrence_of_the_paper) {
    const auto stamps = irregular_train();
    for (const auto& given: {depressing, facilitating,
                             std::map<std::string, double>{{"U", 0.2},
                                                           {"tau_fac", 80.0},
                                                           {"x", 0.6},
                                                           {"y", 0.1},
                                                           {"u", 0.3},
                                                           {"tau_rec", 120.0},
                                                           {"tau_psc", 5.0}}}) {
        const tsodyks_parameters p = tsodyks_params(given);
        tsodyks_reference ref{p.x, p.y, 1.0 - p.x - p.y, p.u};
        std::vector<double> theirs;
        for (auto t: stamps) theirs.push_back(ref.spike(t, p));
        expect_close(tsodyks_factors(p, stamps), theirs);
    }
}

TEST(tsodyks, first_spike_propagates_from_time_zero) {
    // NEST's t_lastspike starts at 0: with x + y < 1 the resources recover from t = 0 until
    // the first spike; with the default state (x = 1, y = 0) nothing changes before it.
    const tsodyks_parameters p = tsodyks_params({{"x", 0.5}, {"y", 0.0}, {"u", 0.0}, {"U", 0.4}, {"tau_rec", 100.0}});
    const double h = 300 * dt;
    const double x = 1.0 - 0.5 * std::exp(-h / 100.0);
    EXPECT_NEAR(tsodyks_factors(p, {300})[0], 0.4 * x, 1e-15);
    EXPECT_DOUBLE_EQ(tsodyks_factors(tsodyks_params({}), {300})[0], 0.5); // u = U, x = 1
}

TEST(tsodyks2, factors_follow_the_recurrence) {
    const auto stamps = irregular_train();
    for (const auto& given:
         {std::map<std::string, double>{{"U", 0.5}, {"u", 0.5}, {"tau_rec", 450.0}},
          std::map<std::string, double>{{"U", 0.03}, {"u", 0.03}, {"tau_rec", 60.0}, {"tau_fac", 700.0}},
          std::map<std::string, double>{{"U", 0.2}, {"u", 0.7}, {"x", 0.4}, {"tau_rec", 90.0}, {"tau_fac", 30.0}}}) {
        const tsodyks2_parameters p = tsodyks2_params(given);
        tsodyks2_reference ref{p.x, p.u};
        std::vector<double> theirs;
        for (auto t: stamps) theirs.push_back(ref.spike(t, p));
        const auto mine = tsodyks2_factors(p, stamps);
        EXPECT_EQ(mine[0], p.x * p.u); // the first spike: the initial state as it is
        expect_close(mine, theirs);
    }
}

TEST(tsodyks2, regular_train_reaches_the_closed_form_steady_state) {
    // Without facilitation u = U; x before each spike of a train with interval T settles
    // where x = 1 - (1 - x (1 - U)) e, e = exp(-T / tau_rec): x = (1 - e) / (1 - (1 - U) e).
    const tsodyks2_parameters p = tsodyks2_params({{"U", 0.4}, {"u", 0.4}, {"tau_rec", 200.0}});
    std::vector<step_type> stamps;
    for (int k = 1; k <= 400; ++k) stamps.push_back(250 * k);
    const double e = std::exp(-25.0 / 200.0);
    EXPECT_NEAR(tsodyks2_factors(p, stamps).back(), 0.4 * (1.0 - e) / (1.0 - 0.6 * e), 1e-14);
}

TEST(tsodyks, depression_and_facilitation_regimes) {
    std::vector<step_type> regular;
    for (int k = 1; k <= 12; ++k) regular.push_back(200 * k); // 50 Hz
    for (const auto& f: {tsodyks_factors(tsodyks_params(depressing), regular),
                         tsodyks2_factors(tsodyks2_params({{"U", 0.5}, {"u", 0.5}, {"tau_rec", 450.0}}), regular)}) {
        for (std::size_t k = 1; k < f.size(); ++k) EXPECT_LT(f[k], f[k - 1]) << k;
        EXPECT_LT(f.back(), 0.2 * f.front());
    }
    for (const auto& f:
         {tsodyks_factors(tsodyks_params(facilitating), regular),
          tsodyks2_factors(tsodyks2_params({{"U", 0.03}, {"u", 0.03}, {"tau_rec", 60.0}, {"tau_fac", 700.0}}),
                           regular)}) {
        for (std::size_t k = 1; k < f.size(); ++k) EXPECT_GT(f[k], f[k - 1]) << k;
        EXPECT_GT(f.back(), 3.0 * f.front());
    }
}

namespace {
std::string refusal(const std::string& synapse, const std::map<std::string, double>& params) {
    try {
        find_synapse(synapse).check(params);
    } catch (const user_error& e) {
        return e.what();
    }
    return "";
}
} // namespace

TEST(tsodyks, parameters_are_checked_as_nest_does) {
    EXPECT_EQ(refusal("tsodyks_synapse", {{"U", 1.5}}), "tsodyks_synapse parameter U = 1.5: must be in [0, 1]");
    EXPECT_EQ(refusal("tsodyks_synapse", {{"U", -0.1}}), "tsodyks_synapse parameter U = -0.1: must be in [0, 1]");
    EXPECT_EQ(refusal("tsodyks_synapse", {{"tau_psc", 0.0}}), "tsodyks_synapse parameter tau_psc = 0: must be > 0 ms");
    EXPECT_EQ(refusal("tsodyks_synapse", {{"tau_rec", -1.0}}),
              "tsodyks_synapse parameter tau_rec = -1: must be > 0 ms");
    EXPECT_EQ(refusal("tsodyks_synapse", {{"tau_fac", -1.0}}),
              "tsodyks_synapse parameter tau_fac = -1: must be >= 0 ms");
    EXPECT_EQ(refusal("tsodyks_synapse", {{"u", 2.0}}), "tsodyks_synapse parameter u = 2: must be in [0, 1]");
    EXPECT_EQ(refusal("tsodyks_synapse", {{"x", 0.7}, {"y", 0.4}}),
              "tsodyks_synapse parameter x + y = 1.1: must be <= 1");
    EXPECT_NE(refusal("tsodyks_synapse", {{"tau_psc", 800.0}}).find("tau_psc = 800: must differ from tau_rec"),
              std::string::npos);
    EXPECT_NE(refusal("tsodyks_synapse", {{"tau_plus", 1.0}}).find("parameter \"tau_plus\" is unknown"),
              std::string::npos);
    EXPECT_EQ(refusal("tsodyks_synapse", {{"tau_fac", 0.0}, {"x", 0.5}, {"y", 0.5}}), "");
    EXPECT_EQ(refusal("tsodyks2_synapse", {{"U", 1.01}}), "tsodyks2_synapse parameter U = 1.01: must be in [0, 1]");
    EXPECT_EQ(refusal("tsodyks2_synapse", {{"u", -1.0}}), "tsodyks2_synapse parameter u = -1: must be in [0, 1]");
    EXPECT_EQ(refusal("tsodyks2_synapse", {{"tau_rec", 0.0}}),
              "tsodyks2_synapse parameter tau_rec = 0: must be > 0 ms");
    EXPECT_EQ(refusal("tsodyks2_synapse", {{"tau_fac", -2.0}}),
              "tsodyks2_synapse parameter tau_fac = -2: must be >= 0 ms");
    EXPECT_EQ(refusal("tsodyks2_synapse", {{"x", 1.5}}), "tsodyks2_synapse parameter x = 1.5: must be in [0, 1]");
    EXPECT_EQ(refusal("tsodyks2_synapse", {{"y", 0.5}}).find("parameter \"y\" is unknown") != std::string::npos, true);
}

TEST(tsodyks, spike_times_are_nests_tics_in_ms) {
    // NEST: a stamp of n steps is n x 100 tics at dt = 0.1 ms, in ms tics x 0.001.
    const spike_clock clock(0.1);
    for (step_type n: {step_type(1), step_type(3), step_type(7), step_type(12345), step_type(987654)}) {
        EXPECT_EQ(clock.ms(n), 0.001 * double(n * 100)) << n;
    }
    EXPECT_EQ(clock.interval(3, 10), 0.001 * 1000.0 - 0.001 * 300.0);
    // Not (10 - 3) x 0.1: the last bit differs, and NEST's is the one taken.
    EXPECT_NE(clock.interval(3, 10), 7 * 0.1);
    EXPECT_EQ(spike_clock(0.025).ms(40), 0.001 * 1000.0);
    // A step of no whole number of µs (NEST refuses it): stamp x dt.
    EXPECT_EQ(spike_clock(0.0125).ms(7), 7 * 0.0125);
}

TEST(tsodyks, registry_entries_have_nests_defaults_and_any_weight) {
    const synapse_entry& t = find_synapse("tsodyks_synapse");
    EXPECT_EQ(
        t.defaults,
        (std::map<std::string, double>{
            {"U", 0.5}, {"tau_psc", 3.0}, {"tau_fac", 0.0}, {"tau_rec", 800.0}, {"x", 1.0}, {"y", 0.0}, {"u", 0.0}}));
    const synapse_entry& t2 = find_synapse("tsodyks2_synapse");
    EXPECT_EQ(t2.defaults, (std::map<std::string, double>{
                               {"U", 0.5}, {"u", 0.5}, {"x", 1.0}, {"tau_rec", 800.0}, {"tau_fac", 0.0}}));
    for (const auto* e: {&t, &t2}) {
        EXPECT_EQ(e->weight_range({}).first, -std::numeric_limits<double>::infinity());
        EXPECT_EQ(e->weight_range({}).second, std::numeric_limits<double>::infinity());
        ASSERT_TRUE(e->make_rule);
    }
    EXPECT_TRUE(std::holds_alternative<tsodyks_rule>(t.make_rule({}, dt)));
    EXPECT_TRUE(std::holds_alternative<tsodyks2_rule>(t2.make_rule({}, dt)));
}

// --- the engine -------------------------------------------------------------------------

namespace {

// Two spike_source_array cells (gids 0, 1) with irregular trains; four iaf_psc_delta
// integrators (gids 2-5: no leak, no threshold: V_m is the sum of what was delivered) and
// four iaf_psc_exp cells that fire (gids 6-9).
//   integrator 2: source 0, tsodyks_synapse (depressing), delay 1 ms
//   integrator 3: source 0, tsodyks2_synapse (facilitating), delay 0.7 ms, weight < 0
//   integrator 4: source 1, tsodyks_synapse (facilitating), delays 1 and 2.5 ms, and a static input
//                 with delay 1 ms (several groups of one source reach it: merged delivery)
//   integrator 5: source 1, tsodyks2_synapse (depressing), delay 0.3 ms
//   cells 6-9:    both sources, every type, strong weights
const std::map<std::string, double> tsodyks2_depressing = {{"U", 0.6}, {"u", 0.6}, {"tau_rec", 300.0}};
const std::map<std::string, double> tsodyks2_facilitating = {
    {"U", 0.05}, {"u", 0.05}, {"tau_rec", 40.0}, {"tau_fac", 500.0}};

std::vector<step_type> source_stamps(int source) {
    auto stamps = irregular_train(150);
    if (source == 1) {
        for (std::size_t k = 0; k < stamps.size(); ++k) stamps[k] += 11 + 3 * step_type(k);
    }
    return stamps;
}

network_spec network() {
    network_spec spec;
    spec.dt_ms = dt;
    spec.seed = 5;
    population_spec sources{"spike_source_array", 0, 2, constant_parameter_map({}), {}};
    auto& times = sources.lists["spike_times"];
    times.offsets.push_back(0);
    for (int s = 0; s < 2; ++s) {
        for (auto stamp: source_stamps(s)) times.values.push_back(double(stamp) * dt); // stamp n: time n dt
        times.offsets.push_back(times.values.size());
    }
    spec.populations.push_back(sources);
    spec.populations.push_back(
        {"iaf_psc_delta",
         2,
         4,
         constant_parameter_map({{"E_L", 0.0}, {"V_m", 0.0}, {"V_reset", -1.0}, {"V_th", 1e12}, {"tau_m", 1e300}}),
         {}});
    spec.populations.push_back({"iaf_psc_exp", 6, 4, constant_parameter_map({{"I_e", 360.0}}), {}});
    spec.synapses.push_back(
        {"tsodyks_synapse",
         {{"U", 0.5}, {"tau_psc", 3.0}, {"tau_rec", 450.0}, {"tau_fac", 0.0}, {"x", 1.0}, {"y", 0.0}, {"u", 0.0}}});
    spec.synapses.push_back(
        {"tsodyks_synapse",
         {{"U", 0.03}, {"tau_psc", 2.0}, {"tau_rec", 60.0}, {"tau_fac", 700.0}, {"x", 1.0}, {"y", 0.0}, {"u", 0.0}}});
    spec.synapses.push_back(
        {"tsodyks2_synapse", {{"U", 0.05}, {"u", 0.05}, {"x", 1.0}, {"tau_rec", 40.0}, {"tau_fac", 500.0}}});
    spec.synapses.push_back(
        {"tsodyks2_synapse", {{"U", 0.6}, {"u", 0.6}, {"x", 1.0}, {"tau_rec", 300.0}, {"tau_fac", 0.0}}});
    auto add = [&](std::uint16_t synapse, std::vector<gid_type> s, std::vector<gid_type> t, std::vector<double> w,
                   std::vector<double> d) {
        connection_set set;
        set.is_rule = false;
        set.synapse = synapse;
        set.arrays.source = std::move(s);
        set.arrays.target = std::move(t);
        set.arrays.weight = std::move(w);
        for (double ms: d) set.arrays.delay.push_back(connection_delay_steps(ms, spec.dt_ms));
        spec.connection_sets.push_back(std::move(set));
    };
    add(1, {0}, {2}, {10.0}, {1.0});
    add(3, {0}, {3}, {-40.0}, {0.7});
    add(2, {1, 1}, {4, 4}, {30.0, 20.0}, {1.0, 2.5});
    add(0, {1}, {4}, {0.5}, {1.0});
    add(4, {1}, {5}, {15.0}, {0.3});
    for (gid_type cell = 6; cell < 10; ++cell) {
        add(1, {0}, {cell}, {900.0}, {1.0 + 0.1 * cell});
        add(2, {1}, {cell}, {4000.0}, {0.5});
        add(3, {0}, {cell}, {2500.0}, {1.5});
        add(4, {1}, {cell}, {700.0}, {0.2 * cell});
    }
    spec.recorded.emplace_back(0, 10);
    spec.state_recordings.push_back({"V_m", {{2, 4}}, 1, 0});
    return spec;
}

struct run {
    std::vector<std::pair<gid_type, step_type>> spikes;
    std::map<gid_type, std::vector<double>> v; // per integrator, every step
    std::vector<double> weights;               // after the run, in table order per (source, target)
};

run collect(const engine& e) {
    run r;
    for (const auto& s: e.recorded_spikes()) r.spikes.emplace_back(s.gid, s.step);
    std::sort(r.spikes.begin(), r.spikes.end());
    const auto& samples = e.recorded_state(0);
    for (std::size_t k = 0; k < samples.gids.size(); ++k) {
        for (std::size_t n = 0; n < samples.steps.size(); ++n) {
            r.v[samples.gids[k]].push_back(samples.values[n * samples.gids.size() + k]);
        }
    }
    const auto c = e.connections();
    std::vector<std::tuple<std::int64_t, std::int64_t, double, double>> rows;
    for (std::size_t k = 0; k < c.source.size(); ++k)
        rows.emplace_back(c.source[k], c.target[k], c.delay_ms[k], c.weight[k]);
    std::sort(rows.begin(), rows.end());
    for (const auto& row: rows) r.weights.push_back(std::get<3>(row));
    return r;
}

engine_options layout(unsigned threads, const std::string& distribution) {
    engine_options o;
    o.threads = threads;
    o.distribution = distribution;
    return o;
}

constexpr step_type steps = 6000; // 600 ms: both trains (about 60 x 7.5 ms) end before

run uninterrupted(unsigned threads) {
    auto context = make_serial_context();
    engine e(*context, network(), layout(threads, "round_robin"));
    e.build();
    e.init();
    e.run_until(steps);
    return collect(e);
}

} // namespace

TEST(tsodyks_engine, spikes_are_delivered_with_weight_times_factor) {
    const run r = uninterrupted(1);
    // Integrator 2: each arrival (emission stamp - 1 + 10 steps) raises V by 10 x factor.
    struct expected_input {
        gid_type cell;
        int source;
        double weight;
        step_type delay;
        std::vector<double> factors;
    };
    const auto s0 = source_stamps(0), s1 = source_stamps(1);
    std::vector<expected_input> inputs = {
        {2, 0, 10.0, 10, tsodyks_factors(tsodyks_params(depressing), s0)},
        {3, 0, -40.0, 7, tsodyks2_factors(tsodyks2_params(tsodyks2_facilitating), s0)},
        {4, 1, 30.0, 10, tsodyks_factors(tsodyks_params(facilitating), s1)},
        {4, 1, 20.0, 25, tsodyks_factors(tsodyks_params(facilitating), s1)},
        {4, 1, 0.5, 10, std::vector<double>(s1.size(), 1.0)},
        {5, 1, 15.0, 3, tsodyks2_factors(tsodyks2_params(tsodyks2_depressing), s1)},
    };
    std::map<gid_type, std::vector<double>> jumps;
    for (const auto& [cell, v]: r.v) {
        jumps[cell].assign(v.size(), 0.0);
        for (std::size_t n = 1; n < v.size(); ++n) jumps[cell][n] = v[n] - v[n - 1];
    }
    std::map<gid_type, std::vector<double>> want;
    for (const auto& [cell, v]: r.v) want[cell].assign(v.size(), 0.0);
    for (const auto& in: inputs) {
        const auto& stamps = in.source == 0 ? s0 : s1;
        for (std::size_t k = 0; k < stamps.size(); ++k) {
            want[in.cell][static_cast<std::size_t>(stamps[k] - 1 + in.delay)] += in.weight * in.factors[k];
        }
    }
    for (const auto& [cell, v]: r.v) {
        double scale = 0;
        for (double x: v) scale = std::max(scale, std::abs(x));
        for (std::size_t n = 1; n < v.size(); ++n) {
            ASSERT_NEAR(jumps[cell][n], want[cell][n], 1e-13 * scale) << "cell " << cell << " step " << n;
        }
    }
    // The factors moved (not 1), and the stored weights did not.
    EXPECT_LT(std::abs(r.v.at(2).back()), 10.0 * 0.5 * 60);
    const auto fresh = [] {
        auto context = make_serial_context();
        engine e(*context, network(), layout(1, "round_robin"));
        e.build();
        e.init();
        return collect(e);
    }();
    EXPECT_EQ(r.weights, fresh.weights);
    // The firing cells fire, and depend on the factors (checked through the layouts below).
    std::size_t fired = 0;
    for (const auto& [gid, step]: r.spikes) fired += gid >= 6;
    EXPECT_GT(fired, 20u);
}

TEST(tsodyks_engine, same_on_two_threads_and_another_distribution) {
    const run one = uninterrupted(1);
    auto context = make_serial_context();
    engine e(*context, network(), layout(2, "consecutive"));
    e.build();
    e.init();
    e.run_until(steps);
    const run two = collect(e);
    EXPECT_EQ(one.spikes, two.spikes);
    EXPECT_EQ(one.v, two.v);
}

TEST(tsodyks_engine, checkpoint_resumes_bit_for_bit) {
    const run whole = uninterrupted(1);
    for (step_type at: {step_type(1234), step_type(2999)}) {
        auto context = make_serial_context();
        engine first(*context, network(), layout(1, "round_robin"));
        first.build();
        first.init();
        first.run_until(at);
        const engine_state rows = first.export_state();
        ASSERT_EQ(rows.reals.at("plastic/pre/x").size(), rows.ints.at("plastic/pre/source").size());
        engine second(*context, network(), layout(2, "random_shuffle"));
        second.build();
        second.import_state(rows);
        second.init();
        second.run_until(steps);
        const run resumed = collect(second);
        EXPECT_EQ(resumed.spikes, whole.spikes) << "saved at step " << at;
        // The samples before `at` came back from the checkpoint, the rest were computed again.
        EXPECT_EQ(resumed.v, whole.v) << "saved at step " << at;
    }
    // A checkpoint without the short-term state (as spikex wrote them before) is refused.
    auto context = make_serial_context();
    engine first(*context, network(), layout(1, "round_robin"));
    first.build();
    first.init();
    first.run_until(2999);
    engine_state rows = first.export_state();
    for (const char* name: {"plastic/pre/x", "plastic/pre/y", "plastic/pre/u"}) rows.reals.erase(name);
    engine second(*context, network(), layout(1, "round_robin"));
    second.build();
    EXPECT_THROW(second.import_state(rows), user_error);
}

// import_state in pieces (engine.hpp): the cells one at a time, last first, and the plastic
// weights one target at a time resume as the whole columns do; a target given twice is refused.
TEST(tsodyks_engine, checkpoint_restores_in_pieces) {
    const run whole = uninterrupted(1);
    auto context = make_serial_context();
    engine first(*context, network(), layout(1, "round_robin"));
    first.build();
    first.init();
    first.run_until(1234);
    const engine_state rows = first.export_state();
    const auto& targets = rows.ints.at("plastic/weight/target");
    const auto& counts = rows.ints.at("plastic/weight/count");
    const auto& digests = rows.ints.at("plastic/weight/key_digest");
    const auto& weights = rows.reals.at("plastic/weight/value");
    ASSERT_GT(targets.size(), 1u);
    auto import_cells = [&](engine& e) {
        for (const auto& [name, gids]: rows.ints) {
            if (!name.starts_with("cells/") || !name.ends_with("/gid")) continue;
            const std::string model = name.substr(6, name.size() - 10);
            const std::span<const double> values(rows.reals.at("cells/" + model + "/values"));
            const std::size_t width = values.size() / gids.size();
            for (std::size_t r = gids.size(); r-- > 0;) {
                e.import_cells(model, std::span(gids).subspan(r, 1), values.subspan(r * width, width));
            }
        }
    };
    auto import_target = [&](engine& e, std::size_t r) {
        std::size_t at = 0;
        for (std::size_t k = 0; k < r; ++k) at += counts[k];
        e.import_weights(std::span(targets).subspan(r, 1), std::span(counts).subspan(r, 1),
                         std::span(digests).subspan(r, 1), std::span(weights).subspan(at, counts[r]), {});
    };

    engine second(*context, network(), layout(2, "random_shuffle"));
    second.build();
    second.import_begin(1234);
    import_cells(second);
    for (std::size_t r = 0; r < targets.size(); ++r) import_target(second, r);
    second.import_finish(rows);
    second.init();
    second.run_until(steps);
    const run resumed = collect(second);
    EXPECT_EQ(resumed.spikes, whole.spikes);
    EXPECT_EQ(resumed.v, whole.v);

    engine third(*context, network(), layout(1, "consecutive"));
    third.build();
    third.import_begin(1234);
    import_cells(third);
    for (std::size_t r = 0; r < targets.size(); ++r) import_target(third, r);
    import_target(third, 0);
    try {
        third.import_finish(rows);
        ADD_FAILURE() << "a target's weights given twice were taken";
    } catch (const user_error& e) {
        EXPECT_NE(std::string(e.what()).find("plastic inputs of gid"), std::string::npos) << e.what();
    }
}
