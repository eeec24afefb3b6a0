// bernoulli_synapse, quantal_stp_synapse and stochastic_stp_synapse: the keyed draws (what they depend on, and
// nothing else), the transmission fraction and its independence between multapses and
// spikes, the quantal model's u and release statistics against its mean-field recurrence,
// the parameter checks, the connection indices the table keeps for them on any number of
// threads, and the engine: each spike crosses each connection as a reference written out
// here from the draws' definition says, the same on one and two threads and another
// distribution, and a checkpoint taken mid-run and resumed on another layout goes on bit
// for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "spikex/comm/context.hpp"
#include "spikex/connections/connection_table.hpp"
#include "spikex/core/errors.hpp"
#include "spikex/engine/engine.hpp"
#include "spikex/synapses/synapse_registry.hpp"

using namespace spikex;

namespace {

constexpr double dt = 0.1;
constexpr std::uint32_t seed = 7;

std::string refusal(const std::string& synapse, const std::map<std::string, double>& params) {
    try {
        find_synapse(synapse).check(params);
    } catch (const user_error& e) {
        return e.what();
    }
    return "";
}

// Mean and its standard error over a sample.
struct estimate {
    double sum = 0, squares = 0;
    std::size_t count = 0;
    void add(double x) { sum += x, squares += x * x, ++count; }
    double mean() const { return sum / double(count); }
    double variance() const { return (squares - sum * sum / double(count)) / double(count - 1); }
    double error() const { return std::sqrt(variance() / double(count)); }
};

} // namespace

// --- the draws ----------------------------------------------------------------------------

TEST(stochastic_draws, keyed_by_seed_target_purpose_connection_step_and_draw) {
    const double base = connection_uniform(seed, 42, purpose::transmission, 3, 1000, 0);
    EXPECT_EQ(base, connection_uniform(seed, 42, purpose::transmission, 3, 1000, 0));
    EXPECT_NE(base, connection_uniform(seed + 1, 42, purpose::transmission, 3, 1000, 0));
    EXPECT_NE(base, connection_uniform(seed, 43, purpose::transmission, 3, 1000, 0));
    EXPECT_NE(base, connection_uniform(seed, 42, purpose::quantal_release, 3, 1000, 0));
    EXPECT_NE(base, connection_uniform(seed, 42, purpose::transmission, 4, 1000, 0));
    EXPECT_NE(base, connection_uniform(seed, 42, purpose::transmission, 3, 1001, 0));
    EXPECT_NE(base, connection_uniform(seed, 42, purpose::transmission, 3, 1000, 1));
    // Steps 2^32 apart and draws 2 apart (the next block) differ too.
    EXPECT_NE(base, connection_uniform(seed, 42, purpose::transmission, 3, 1000 + (step_type(1) << 32), 0));
    EXPECT_NE(base, connection_uniform(seed, 42, purpose::transmission, 3, 1000, 2));
    // The documented mapping: block (purpose, connection, step mod 2^32, (step / 2^32) 2^24 + k / 2),
    // words x0, x1 for even k and x2, x3 for odd k.
    const step_type step = (step_type(5) << 32) + 77;
    r123::Philox4x32 rng;
    const auto r = rng({{std::uint32_t(purpose::quantal_release), 9u, 77u, (5u << 24) | 3u}}, {{seed, 42u}});
    EXPECT_EQ(connection_uniform(seed, 42, purpose::quantal_release, 9, step, 6), uniform_from_words(r[0], r[1]));
    EXPECT_EQ(connection_uniform(seed, 42, purpose::quantal_release, 9, step, 7), uniform_from_words(r[2], r[3]));
    EXPECT_TRUE(connection_draws_fit((step_type(1) << 40) - 1, 1u << 25));
    EXPECT_FALSE(connection_draws_fit(step_type(1) << 40, 1));
    EXPECT_FALSE(connection_draws_fit(0, (1u << 25) + 1));
}

// --- bernoulli_synapse ------------------------------------------------------------------------

TEST(bernoulli_synapse, transmission_fraction_is_p_transmit) {
    // 40,000 (connection, spike) pairs per p: the fraction within 5 binomial standard errors.
    for (double p: {0.05, 0.3, 0.5, 0.9}) {
        const bernoulli_rule rule(parse_bernoulli_parameters({{"p_transmit", p}}));
        std::size_t crossed = 0, trials = 0;
        for (std::uint32_t c = 0; c < 200; ++c) {
            for (step_type e = 0; e < 200; ++e)
                crossed += bernoulli_transmits(rule, seed, 17 + c % 5, c, 3 * e), ++trials;
        }
        const double error = std::sqrt(p * (1 - p) / double(trials));
        EXPECT_NEAR(double(crossed) / double(trials), p, 5 * error) << "p_transmit = " << p;
    }
    // The ends: never, always.
    const bernoulli_rule never(parse_bernoulli_parameters({{"p_transmit", 0.0}}));
    const bernoulli_rule always(parse_bernoulli_parameters({}));
    for (step_type e = 0; e < 1000; ++e) {
        EXPECT_FALSE(bernoulli_transmits(never, seed, 1, 0, e));
        EXPECT_TRUE(bernoulli_transmits(always, seed, 1, 0, e));
    }
}

TEST(bernoulli_synapse, multapses_and_successive_spikes_decide_independently) {
    // Two connections of one source onto one target (indices 4 and 5) at the same spikes, and
    // one connection at successive spikes: both crossing has probability p^2.
    const double p = 0.4;
    const bernoulli_rule rule(parse_bernoulli_parameters({{"p_transmit", p}}));
    std::size_t both_multapses = 0, both_successive = 0;
    const std::size_t trials = 40000;
    for (step_type e = 0; e < step_type(trials); ++e) {
        both_multapses += bernoulli_transmits(rule, seed, 8, 4, e) && bernoulli_transmits(rule, seed, 8, 5, e);
        both_successive += bernoulli_transmits(rule, seed, 8, 4, e) && bernoulli_transmits(rule, seed, 8, 4, e + 1);
    }
    const double error = std::sqrt(p * p * (1 - p * p) / double(trials));
    EXPECT_NEAR(double(both_multapses) / double(trials), p * p, 5 * error);
    EXPECT_NEAR(double(both_successive) / double(trials), p * p, 5 * error);
}

TEST(bernoulli_synapse, parameters_are_checked_as_nest_does) {
    EXPECT_EQ(refusal("bernoulli_synapse", {{"p_transmit", 1.5}}),
              "bernoulli_synapse parameter p_transmit = 1.5: must be in [0, 1]");
    EXPECT_EQ(refusal("bernoulli_synapse", {{"p_transmit", -0.1}}),
              "bernoulli_synapse parameter p_transmit = -0.1: must be in [0, 1]");
    EXPECT_NE(refusal("bernoulli_synapse", {{"p", 0.5}}).find("parameter \"p\" is unknown"), std::string::npos);
    EXPECT_EQ(refusal("bernoulli_synapse", {{"p_transmit", 0.0}}), "");
    EXPECT_EQ(find_synapse("bernoulli_synapse").defaults, (std::map<std::string, double>{{"p_transmit", 1.0}}));
    EXPECT_TRUE(std::holds_alternative<bernoulli_rule>(find_synapse("bernoulli_synapse").make_rule({}, dt)));
}

// --- quantal_stp_synapse ----------------------------------------------------------------------

namespace {

const std::map<std::string, double> depressing = {{"U", 0.5}, {"u", 0.5}, {"tau_rec", 120.0}, {"n", 5}, {"a", 5}};
const std::map<std::string, double> facilitating = {{"U", 0.05},        {"u", 0.05}, {"tau_rec", 40.0},
                                                    {"tau_fac", 300.0}, {"n", 4},    {"a", 4}};

// A regular train of `count` stamps `interval` steps apart, then one after a long pause.
std::vector<step_type> train(int count, step_type interval) {
    std::vector<step_type> stamps;
    for (int k = 1; k <= count; ++k) stamps.push_back(100 + interval * k);
    stamps.push_back(stamps.back() + 3000);
    return stamps;
}

// The mean-field recurrence of the quantal model: with u deterministic, E[released] = u E[a]
// and a depleted site recovers with probability 1 - e, e = exp(-h / tau_rec), so x = E[a] / n
// follows tsodyks2_synapse's recurrence (the mean release is n u x). NEST moves nothing at
// the first spike.
// stochastic_stp_synapse (every_spike): u moves at the first spike too, from t = 0.
std::vector<double> mean_released(const quantal_stp_parameters& p, const std::vector<step_type>& stamps,
                                  bool every_spike = false) {
    std::vector<double> out;
    double u = p.u, x = p.a / p.n;
    for (std::size_t k = 0; k < stamps.size(); ++k) {
        if (k > 0) {
            const double h = double(stamps[k] - stamps[k - 1]) * dt;
            x = 1.0 - (1.0 - x * (1.0 - u)) * std::exp(-h / p.tau_rec);
        }
        if (k > 0 || every_spike) {
            const double h = double(stamps[k] - (k > 0 ? stamps[k - 1] : 0)) * dt;
            u = p.U + u * (1.0 - p.U) * (p.tau_fac > 0 ? std::exp(-h / p.tau_fac) : 0.0);
        }
        out.push_back(p.n * u * x);
    }
    return out;
}

} // namespace

TEST(quantal_stp_synapse, u_follows_the_recurrence_and_x_is_the_recovery_probability) {
    for (const auto& given: {depressing, facilitating}) {
        const quantal_stp_parameters p = parse_quantal_stp_parameters(given);
        const quantal_stp_rule rule(p, dt);
        const tsodyks2_rule same_u(
            parse_tsodyks2_parameters({{"U", p.U}, {"u", p.u}, {"tau_rec", p.tau_rec}, {"tau_fac", p.tau_fac}}), dt);
        short_term_state s = rule.initial(), t = same_u.initial();
        const auto stamps = train(12, 150);
        for (std::size_t k = 0; k < stamps.size(); ++k) {
            quantal_stp_arrive(s, stamps[k], rule);
            tsodyks2_spike(t, stamps[k], same_u);
            EXPECT_EQ(s.u, t.u) << k; // the same formula in the same order: the same bits
            if (k == 0) {
                EXPECT_EQ(s.x, 0.0); // the first spike draws no recoveries
            } else {
                EXPECT_NEAR(s.x, 1.0 - std::exp(-double(stamps[k] - stamps[k - 1]) * dt / p.tau_rec), 1e-15);
            }
        }
    }
}

TEST(quantal_stp_synapse, release_statistics_follow_the_mean_field) {
    // 20,000 connections (keys) through one train each: the mean number released at each
    // spike within 5 standard errors of n u x; the first spike's variance is binomial. The
    // third set is stochastic_stp_synapse's (one site, u moving from t = 0).
    const std::map<std::string, double> bbp = {{"U", 0.3}, {"tau_rec", 60.0}, {"tau_fac", 150.0}};
    for (const auto& given: {depressing, facilitating, bbp}) {
        const bool every_spike = &given == &bbp;
        const quantal_stp_parameters p =
            every_spike ? parse_stochastic_stp_parameters(given) : parse_quantal_stp_parameters(given);
        const quantal_stp_rule rule(p, dt, every_spike);
        const auto stamps = train(10, 200);
        const auto expected = mean_released(p, stamps, every_spike);
        std::vector<estimate> released(stamps.size());
        short_term_state group = rule.initial();
        std::vector<short_term_state> groups;
        for (auto stamp: stamps) {
            quantal_stp_arrive(group, stamp, rule);
            groups.push_back(group);
        }
        for (std::uint32_t c = 0; c < 20000; ++c) {
            std::uint32_t available = rule.available;
            for (std::size_t k = 0; k < stamps.size(); ++k) {
                const std::uint32_t r =
                    quantal_stp_release(available, groups[k], rule, seed, 3 + c % 7, c, stamps[k] - 1);
                ASSERT_LE(available, rule.sites);
                released[k].add(r);
            }
        }
        for (std::size_t k = 0; k < stamps.size(); ++k) {
            EXPECT_NEAR(released[k].mean(), expected[k], 5 * released[k].error()) << "spike " << k;
        }
        const double u = every_spike ? p.U : p.u, n = p.n; // stochastic_stp: u0 = 0 moves to U
        EXPECT_NEAR(released[0].variance(), n * u * (1 - u), 0.05 * n * u * (1 - u));
    }
}

TEST(stochastic_stp_synapse, u_moves_at_every_spike_as_the_extension_does) {
    // PyNN's NEST extension: t_lastspike and u start at 0; at each spike u *= exp(-h/tau_fac),
    // u += U (1 - u) (u = U when tau_fac <= 1e-10 ms); one site, available at first.
    for (double tau_fac: {0.0, 80.0}) {
        const quantal_stp_parameters p =
            parse_stochastic_stp_parameters({{"U", 0.2}, {"u", 0.1}, {"tau_rec", 90.0}, {"tau_fac", tau_fac}});
        EXPECT_EQ(p.n, 1.0);
        EXPECT_EQ(p.a, 1.0);
        const quantal_stp_rule rule(p, dt, true);
        short_term_state s = rule.initial();
        double u = 0.1, last = 0.0;
        for (auto stamp: train(8, 130)) {
            const double t = 0.001 * double(stamp * 100); // NEST's ms of the stamp
            if (tau_fac > 0) {
                u *= std::exp(-(t - last) / tau_fac);
                u += 0.2 * (1 - u);
            } else {
                u = 0.2;
            }
            quantal_stp_arrive(s, stamp, rule);
            EXPECT_EQ(s.u, u) << stamp;
            EXPECT_NEAR(s.x, 1.0 - std::exp(-(t - last) / 90.0), 1e-15);
            last = t;
        }
    }
    EXPECT_EQ(find_synapse("stochastic_stp_synapse").defaults,
              (std::map<std::string, double>{{"U", 0.5}, {"u", 0.0}, {"tau_rec", 800.0}, {"tau_fac", 10.0}}));
    EXPECT_EQ(refusal("stochastic_stp_synapse", {{"tau_rec", 0.0}}),
              "stochastic_stp_synapse parameter tau_rec = 0: must be > 0 ms");
    EXPECT_NE(refusal("stochastic_stp_synapse", {{"n", 2.0}}).find("parameter \"n\" is unknown"), std::string::npos);
}

TEST(quantal_stp_synapse, depleted_sites_wait_for_the_second_spike) {
    // a = 0: the first spike finds no site and, as in NEST, draws no recovery; after a long
    // pause every site has recovered (exp(-h/tau_rec) = e^-50).
    const quantal_stp_rule rule(parse_quantal_stp_parameters({{"n", 6}, {"a", 0}, {"U", 1.0}, {"u", 1.0}}), dt);
    short_term_state s = rule.initial();
    std::uint32_t available = 0;
    quantal_stp_arrive(s, 10, rule);
    EXPECT_EQ(quantal_stp_release(available, s, rule, seed, 1, 0, 9), 0u);
    EXPECT_EQ(available, 0u);
    quantal_stp_arrive(s, 10 + 400000, rule);                                       // 40 s = 50 tau_rec
    EXPECT_EQ(quantal_stp_release(available, s, rule, seed, 1, 0, 9 + 400000), 6u); // u = 1: all release
    EXPECT_EQ(available, 0u);
}

TEST(quantal_stp_synapse, parameters_are_checked_as_nest_does) {
    EXPECT_EQ(refusal("quantal_stp_synapse", {{"U", 1.5}}), "quantal_stp_synapse parameter U = 1.5: must be in [0, 1]");
    EXPECT_EQ(refusal("quantal_stp_synapse", {{"u", -0.1}}),
              "quantal_stp_synapse parameter u = -0.1: must be in [0, 1]");
    EXPECT_EQ(refusal("quantal_stp_synapse", {{"tau_rec", 0.0}}),
              "quantal_stp_synapse parameter tau_rec = 0: must be > 0 ms");
    EXPECT_EQ(refusal("quantal_stp_synapse", {{"tau_fac", -1.0}}),
              "quantal_stp_synapse parameter tau_fac = -1: must be >= 0 ms");
    EXPECT_EQ(refusal("quantal_stp_synapse", {{"n", 0.0}}),
              "quantal_stp_synapse parameter n = 0: must be an integer in [1, 33554432]");
    EXPECT_EQ(refusal("quantal_stp_synapse", {{"n", 2.5}}),
              "quantal_stp_synapse parameter n = 2.5: must be an integer in [1, 33554432]");
    EXPECT_EQ(refusal("quantal_stp_synapse", {{"a", -1.0}}),
              "quantal_stp_synapse parameter a = -1: must be an integer in [0, 33554432]");
    EXPECT_EQ(refusal("quantal_stp_synapse", {{"n", 3.0}, {"a", 4.0}}),
              "quantal_stp_synapse parameter a = 4: must be <= n = 3 (available sites of n)");
    EXPECT_EQ(refusal("quantal_stp_synapse", {{"n", 3.0}, {"a", 3.0}, {"tau_fac", 0.0}}), "");
    // NEST's defaults (GetDefaults): a is 1 whatever n is.
    EXPECT_EQ(find_synapse("quantal_stp_synapse").defaults,
              (std::map<std::string, double>{
                  {"U", 0.5}, {"u", 0.5}, {"tau_rec", 800.0}, {"tau_fac", 0.0}, {"n", 1.0}, {"a", 1.0}}));
}

// --- connection indices -------------------------------------------------------------------

TEST(stochastic_indices, the_table_keeps_creation_indices_on_any_number_of_threads) {
    // 12 targets, inputs from 5 sources with several delays and three synapse types (1 and 3
    // indexed), multapses included: every indexed connection's index is its position among
    // its target's inputs in creation order, whatever the thread split.
    std::vector<built_connection> conns;
    std::map<std::tuple<local_index, gid_type, std::uint32_t, std::uint16_t>, std::vector<std::uint32_t>> expected;
    std::vector<std::uint32_t> so_far(12, 0);
    std::uint64_t state = 99;
    for (int k = 0; k < 400; ++k) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const auto target = static_cast<local_index>((state >> 33) % 12);
        const auto source = static_cast<gid_type>((state >> 40) % 5);
        const auto delay = static_cast<std::uint32_t>(1 + (state >> 50) % 3);
        const auto synapse = static_cast<std::uint16_t>((state >> 56) % 4);
        conns.push_back({source, target, 1.0 + k, delay, synapse});
        const std::uint32_t index = so_far[target]++;
        if (synapse == 1 || synapse == 3) expected[{target, source, delay, synapse}].push_back(index);
    }
    for (unsigned threads: {1u, 2u, 3u}) {
        table_shape shape{5, {}, {0, 1, 0, 1}};
        if (threads > 1) {
            for (unsigned t = 0; t <= threads; ++t) shape.thread_first.push_back(12 * t / threads);
        }
        connection_producer produce = [&](const connection_visitor& visit, target_range targets, bool) {
            for (const auto& c: conns) {
                if (!targets.holds(c.target)) continue;
                visit(c);
            }
        };
        connection_table table(produce, shape, true);
        const auto indices = table.take_input_indices();
        std::map<std::tuple<local_index, gid_type, std::uint32_t, std::uint16_t>, std::vector<std::uint32_t>> seen;
        std::size_t at = 0;
        for (std::uint32_t g = 0; g < table.group_count(); ++g) {
            const delay_group& group = table.group(g);
            if (group.synapse != 1 && group.synapse != 3) continue;
            for (auto c = group.begin; c < table.group_end_connection(g); ++c) {
                seen[{table.target(c), table.sources()[group.source_run], group.delay, group.synapse}].push_back(
                    indices.at(at++));
            }
        }
        EXPECT_EQ(at, indices.size()) << threads << " threads";
        EXPECT_EQ(seen, expected) << threads << " threads"; // in creation order within each
    }
}

// --- the engine -------------------------------------------------------------------------

namespace {

// 60 irregular stamps (steps) of a spike source: intervals of 1 to 150 steps.
std::vector<step_type> source_stamps(int source) {
    std::vector<step_type> stamps;
    std::uint64_t state = 12345 + 77 * std::uint64_t(source);
    step_type t = 37 + 11 * source;
    for (int k = 0; k < 60; ++k) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        t += 1 + static_cast<step_type>((state >> 33) % 150);
        stamps.push_back(t);
    }
    return stamps;
}

const std::map<std::string, double> bernoulli_low = {{"p_transmit", 0.4}};
const std::map<std::string, double> bernoulli_high = {{"p_transmit", 0.7}};
const std::map<std::string, double> quantal_depressing = {{"U", 0.3},       {"u", 0.3}, {"tau_rec", 80.0},
                                                          {"tau_fac", 0.0}, {"n", 4.0}, {"a", 4.0}};
const std::map<std::string, double> quantal_facilitating = {{"U", 0.1},         {"u", 0.1}, {"tau_rec", 50.0},
                                                            {"tau_fac", 300.0}, {"n", 3.0}, {"a", 1.0}};
const std::map<std::string, double> bbp = {{"U", 0.4}, {"u", 0.0}, {"tau_rec", 60.0}, {"tau_fac", 40.0}};

// One explicit connection, as the reference sees it.
struct input {
    gid_type source, target;
    double weight, delay_ms;
    std::uint16_t synapse; // 1, 2: bernoulli low, high; 3, 4: quantal depressing, facilitating; 5: stochastic_stp
};

// Two spike_source_array cells (gids 0, 1); four iaf_psc_delta integrators (gids 2-5: no
// leak, no threshold: V_m is the sum of what was delivered) and four iaf_psc_exp cells that
// fire (gids 6-9).
//   integrator 2: a static input from source 1, then three bernoulli multapses from source 0
//   integrator 3: two quantal (depressing) multapses from source 0
//   integrator 4: from source 1 bernoulli (1 ms), quantal (facilitating, 2.5 ms) and static
//                 (1 ms): several groups of one source reach it (merged delivery)
//   integrator 5: quantal (facilitating) from source 1, inhibitory; stochastic_stp from source 0
//   cells 6-9:    both sources, every type, strong weights
std::vector<std::vector<input>> connection_sets() {
    std::vector<std::vector<input>> sets = {
        {{1, 2, 0.5, 1.0, 0}},
        {{0, 2, 10.0, 1.0, 1}, {0, 2, 10.0, 1.0, 1}, {0, 2, 7.0, 1.0, 1}},
        {{0, 3, 5.0, 0.7, 3}, {0, 3, 2.0, 0.7, 3}},
        {{1, 4, 3.0, 1.0, 2}},
        {{1, 4, 4.0, 2.5, 4}},
        {{1, 4, 0.25, 1.0, 0}},
        {{1, 5, -6.0, 0.3, 4}},
        {{0, 5, 2.0, 1.2, 5}, {0, 5, 2.5, 1.2, 5}},
    };
    for (gid_type cell = 6; cell < 10; ++cell) {
        sets.push_back({{0, cell, 300.0, 1.0 + 0.1 * cell, 1}});
        sets.push_back({{1, cell, 250.0, 0.5, 4}});
        sets.push_back({{0, cell, 150.0, 1.5, 3}});
        sets.push_back({{1, cell, 400.0, 0.2 * cell, 2}});
        sets.push_back({{0, cell, 200.0, 0.7, 5}});
    }
    return sets;
}

network_spec network() {
    network_spec spec;
    spec.dt_ms = dt;
    spec.seed = seed;
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
    spec.synapses.push_back({"bernoulli_synapse", bernoulli_low});
    spec.synapses.push_back({"bernoulli_synapse", bernoulli_high});
    spec.synapses.push_back({"quantal_stp_synapse", quantal_depressing});
    spec.synapses.push_back({"quantal_stp_synapse", quantal_facilitating});
    spec.synapses.push_back({"stochastic_stp_synapse", bbp});
    for (const auto& set: connection_sets()) {
        connection_set c;
        c.is_rule = false;
        c.synapse = set.front().synapse;
        for (const auto& in: set) {
            c.arrays.source.push_back(in.source);
            c.arrays.target.push_back(in.target);
            c.arrays.weight.push_back(in.weight);
            c.arrays.delay.push_back(connection_delay_steps(in.delay_ms, spec.dt_ms));
        }
        spec.connection_sets.push_back(std::move(c));
    }
    spec.recorded.emplace_back(0, 10);
    spec.state_recordings.push_back({"V_m", {{2, 4}}, 1, 0});
    return spec;
}

// What reaches each integrator at each step, from the draws' definition: connection k of a
// target (its k-th input in creation order) crosses the spike emitted at step e (its stamp
// - 1) as the header of core/random.hpp keys it, with NEST's quantal loop.
std::map<gid_type, std::map<step_type, double>> reference_inputs() {
    std::map<gid_type, std::map<step_type, double>> arriving;
    std::map<gid_type, std::uint32_t> inputs_so_far;
    for (const auto& set: connection_sets()) {
        for (const auto& in: set) {
            const std::uint32_t index = inputs_so_far[in.target]++;
            if (in.target > 5) continue;
            const step_type delay = std::llround(in.delay_ms / dt);
            const auto stamps = source_stamps(int(in.source));
            const bool quantal = in.synapse >= 3, one_site = in.synapse == 5;
            const auto& params = in.synapse == 0   ? std::map<std::string, double>{}
                                 : in.synapse == 1 ? bernoulli_low
                                 : in.synapse == 2 ? bernoulli_high
                                 : in.synapse == 3 ? quantal_depressing
                                 : in.synapse == 4 ? quantal_facilitating
                                                   : bbp;
            double u = quantal ? params.at("u") : 0.0;
            int available = !quantal ? 0 : one_site ? 1 : int(params.at("a"));
            for (std::size_t k = 0; k < stamps.size(); ++k) {
                const step_type emitted = stamps[k] - 1;
                double times = 1.0;
                if (in.synapse == 1 || in.synapse == 2) {
                    times = connection_uniform(seed, in.target, purpose::transmission, index, emitted, 0) <
                                    params.at("p_transmit")
                                ? 1.0
                                : 0.0;
                } else if (quantal) {
                    const int n = one_site ? 1 : int(params.at("n"));
                    if (one_site) { // stochastic_stp_synapse: u from t = 0, at every spike
                        const double h = double(stamps[k] - (k > 0 ? stamps[k - 1] : 0)) * dt;
                        u *= std::exp(-h / params.at("tau_fac"));
                        u += params.at("U") * (1 - u);
                    }
                    if (k > 0) {
                        const double h = double(stamps[k] - stamps[k - 1]) * dt;
                        const double tau_fac = params.at("tau_fac");
                        if (!one_site)
                            u = params.at("U") +
                                u * (1 - params.at("U")) * (tau_fac > 0 ? std::exp(-h / tau_fac) : 0.0);
                        const double recover = 1.0 - std::exp(-h / params.at("tau_rec"));
                        int recovered = 0;
                        for (int site = 0; site < n - available; ++site) {
                            recovered += connection_uniform(seed, in.target, purpose::site_recovery, index, emitted,
                                                            std::uint32_t(site)) < recover;
                        }
                        available += recovered;
                    }
                    int released = 0;
                    for (int site = 0; site < available; ++site) {
                        released += connection_uniform(seed, in.target, purpose::quantal_release, index, emitted,
                                                       std::uint32_t(site)) < u;
                    }
                    available -= released;
                    times = released;
                }
                arriving[in.target][emitted + delay] += times * in.weight;
            }
        }
    }
    return arriving;
}

struct run {
    std::vector<std::pair<gid_type, step_type>> spikes;
    std::map<gid_type, std::vector<double>> v; // per integrator, every step
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
    return r;
}

engine_options layout(unsigned threads, const std::string& distribution) {
    engine_options o;
    o.threads = threads;
    o.distribution = distribution;
    return o;
}

constexpr step_type steps = 6000; // 600 ms: both trains (about 60 x 7.5 ms) end before

run uninterrupted(unsigned threads, const std::string& distribution = "round_robin") {
    auto context = make_serial_context();
    engine e(*context, network(), layout(threads, distribution));
    e.build();
    e.init();
    e.run_until(steps);
    return collect(e);
}

} // namespace

TEST(stochastic_engine, spikes_cross_as_the_keyed_draws_say) {
    const run r = uninterrupted(1);
    const auto arriving = reference_inputs();
    std::size_t crossed = 0, missed = 0;
    for (const auto& [cell, v]: r.v) {
        const auto& want = arriving.at(cell);
        for (std::size_t n = 1; n < v.size(); ++n) {
            const auto it = want.find(step_type(n));
            const double expected = it == want.end() ? 0.0 : it->second;
            ASSERT_NEAR(v[n] - v[n - 1], expected, 1e-12) << "cell " << cell << " step " << n;
            if (it != want.end()) (expected != 0.0 ? crossed : missed) += 1;
        }
    }
    // Both outcomes occur (the draws matter), and the firing cells fire.
    EXPECT_GT(crossed, 50u);
    EXPECT_GT(missed, 20u);
    std::size_t fired = 0;
    for (const auto& [gid, step]: r.spikes) fired += gid >= 6;
    EXPECT_GT(fired, 20u);
}

TEST(stochastic_engine, same_on_two_threads_and_other_distributions) {
    const run one = uninterrupted(1);
    for (const auto& [threads, distribution]:
         {std::pair{2u, std::string("consecutive")}, std::pair{3u, std::string("random_shuffle")}}) {
        const run other = uninterrupted(threads, distribution);
        EXPECT_EQ(one.spikes, other.spikes) << threads << " threads, " << distribution;
        EXPECT_EQ(one.v, other.v) << threads << " threads, " << distribution;
    }
}

TEST(stochastic_engine, checkpoint_resumes_bit_for_bit) {
    const run whole = uninterrupted(1);
    for (step_type at: {step_type(1234), step_type(2999)}) {
        auto context = make_serial_context();
        engine first(*context, network(), layout(1, "round_robin"));
        first.build();
        first.init();
        first.run_until(at);
        const engine_state rows = first.export_state();
        ASSERT_EQ(rows.ints.at("plastic/weight/sites").size(), rows.reals.at("plastic/weight/value").size());
        engine second(*context, network(), layout(2, "random_shuffle"));
        second.build();
        second.import_state(rows);
        second.init();
        second.run_until(steps);
        const run resumed = collect(second);
        EXPECT_EQ(resumed.spikes, whole.spikes) << "saved at step " << at;
        EXPECT_EQ(resumed.v, whole.v) << "saved at step " << at;
    }
    // Without the available sites (or with one out of range) a checkpoint is refused.
    auto context = make_serial_context();
    engine first(*context, network(), layout(1, "round_robin"));
    first.build();
    first.init();
    first.run_until(2999);
    const engine_state saved = first.export_state();
    for (int damage = 0; damage < 2; ++damage) {
        engine_state rows = saved;
        if (damage == 0) {
            rows.ints.erase("plastic/weight/sites");
        } else {
            auto& sites = rows.ints.at("plastic/weight/sites");
            *std::find_if(sites.begin(), sites.end(), [](std::int64_t a) { return a >= 0; }) = 9;
        }
        engine second(*context, network(), layout(1, "round_robin"));
        second.build();
        EXPECT_THROW(second.import_state(rows), user_error) << damage;
    }
}
