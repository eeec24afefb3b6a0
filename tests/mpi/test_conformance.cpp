// The conformance suite, C++ side: every method in the exchange registry, with its
// defaults and with every variant it declares, run through the engine on this job's ranks
// (1, 2 and 3 under ctest): the same spikes as allgather (gathered and sorted), spikes
// sent = received, verify_conservation passes, and the registry entry is complete. The
// Python side (tests/python/exchange/test_conformance.py) adds P = 4, dry-run counters,
// the cost formula, the docs page and the exit status of a bad option. Built with the
// sanitizers too, this runs every exchange's buffer handling under ASan/UBSan.
//
// conformance.incomplete_method_fails registers a deliberately incomplete method and
// checks that the suite reports it: the suite can fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <tuple>

#include "mpi_context_fixture.hpp"
#include "spikex/core/errors.hpp"
#include "spikex/engine/engine.hpp"
#include "spikex/exchange/method_registry.hpp"

using namespace spikex;

namespace {

// 240 cells, 30 +- 5 inputs, mixed-sign weights of mean 0 (inputs matter); `fast`: cells
// fire every 0.3-0.9 ms with a 2 ms delay, several spikes per cell per interval.
struct run_result {
    std::vector<spike> spikes;
    std::map<std::string, std::int64_t> counters; // summed over ranks
};

run_result run(const std::string& method, const option_values& exchange, bool fast, bool sort_by_source = true) {
    network_spec spec;
    spec.dt_ms = 0.025;
    spec.seed = 7;
    std::map<std::string, double> params;
    if (fast) params = {{"invl_low_ms", 0.3}, {"invl_high_ms", 0.9}};
    spec.populations.push_back({"interval_fire", 0, 240, constant_parameter_map(params), {}});
    connection_set set;
    set.rule.kind = connection_rule_kind::random;
    set.rule.source_size = set.rule.target_size = 240;
    set.rule.indegree = 30;
    set.rule.indegree_spread = 10;
    set.rule.weight_spread = 0.08;
    set.rule.delay_ms = random_distribution::constant(fast ? 2.0 : 1.0);
    spec.connection_sets.push_back(set);
    spec.recorded.emplace_back(0, 240);
    engine_options options;
    options.method = method;
    options.distribution = "random_shuffle";
    options.exchange = exchange;
    options.sort_by_source = sort_by_source;
    engine e(*test_context, spec, options);
    e.run_until(400);     // 10 ms
    e.run_until(400 + 7); // ends mid-interval: everything must still be delivered
    e.run_until(800);
    run_result r;
    r.spikes = test_context->allgather_vector(e.recorded_spikes());
    std::sort(r.spikes.begin(), r.spikes.end(),
              [](const spike& a, const spike& b) { return std::tie(a.step, a.gid) < std::tie(b.step, b.gid); });
    for (const auto& [name, value]: e.counters()) {
        r.counters[name] = test_context->allreduce_sum(static_cast<std::int64_t>(value));
    }
    return r;
}

bool same(const std::vector<spike>& a, const std::vector<spike>& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const spike& x, const spike& y) {
               return x.gid == y.gid && x.step == y.step;
           });
}

std::string label(const method_entry& entry, const option_values& values, bool sorted) {
    std::ostringstream out;
    out << entry.name;
    for (const auto& [name, value]: values) out << ":" << name << "=" << option_text(value);
    if (!sorted) out << ":connections.sort_by_source=false";
    return out.str();
}

// Spikes sent = received, in the units the method's family counts: (sent, received).
std::pair<std::int64_t, std::int64_t> sent_received(const method_capabilities& can, run_result& r) {
    if (can.broadcast) return {r.counters["spikes_sent"] * test_context->size(), r.counters["spikes_received"]};
    if (can.presynaptic_targets) return {r.counters["entries_sent"], r.counters["entries_received"]};
    if (can.process_grid) return {r.counters["items_sent"], r.counters["spikes_received"]};
    return {r.counters["spikes_sent"], r.counters["spikes_received"]};
}

// Everything the suite finds wrong with one method (empty: conforms). Collective.
std::vector<std::string> conformance_failures(const method_entry& entry) {
    std::vector<std::string> failures = entry_problems(entry);
    if (!entry.make) return failures;
    std::vector<option_values> variants = {{}};
    for (const auto& v: entry.variants) variants.push_back(v.values);
    for (bool fast: {true}) { // several spikes per cell per interval: buffers overflow
        const auto reference = run("allgather", {}, fast).spikes;
        if (reference.size() < 1000) failures.push_back("reference run has too few spikes");
        for (const auto& values: variants) {
            for (bool sorted: {true, false}) {
                if (!sorted && !entry.capabilities.target_addressed) continue;
                const std::string name = label(entry, values, sorted) + (fast ? " (fast)" : "");
                try {
                    run_result r = run(entry.name, values, fast, sorted);
                    if (!same(r.spikes, reference)) failures.push_back(name + ": spikes differ from allgather");
                    auto [sent, received] = sent_received(entry.capabilities, r);
                    // (one rank: point-to-point methods deliver everything locally)
                    if (sent != received || (sent == 0 && test_context->size() > 1)) {
                        failures.push_back(name + ": " + std::to_string(sent) + " sent, " + std::to_string(received) +
                                           " received");
                    }
                } catch (const std::exception& e) {
                    failures.push_back(name + ": " + e.what());
                }
            }
        }
    }
    return failures;
}

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& s: items) out += "\n  " + s;
    return out;
}

} // namespace

TEST(conformance, every_registered_method_and_variant) {
    ASSERT_FALSE(exchange_registry().empty());
    for (const auto& entry: exchange_registry()) {
        auto failures = conformance_failures(entry);
        EXPECT_TRUE(failures.empty()) << entry.name << ":" << joined(failures);
    }
}

TEST(conformance, incomplete_method_fails) {
    // Looks like allgather but loses its second spike, declares a variant with an option
    // it does not have, and lacks a counting rule, a cost formula and a docs page.
    method_entry allgather = find_exchange_method("allgather");
    method_entry broken;
    broken.name = "incomplete_example";
    broken.description = "a deliberately incomplete method (tests only)";
    broken.capabilities = allgather.capabilities;
    broken.options = allgather.options;
    broken.variants = {{{{"no_such_option", std::int64_t{1}}}}};
    broken.make = [allgather](const option_reader& o) {
        struct lossy: spike_exchange {
            std::unique_ptr<spike_exchange> inner;
            std::uint64_t seen = 0;
            std::string name() const override { return "incomplete_example"; }
            void setup(const exchange_setup& s) override {
                inner->setup(s);
                comm_ = &s.comm;
                measure_wait_ = false; // the inner method times itself
            }
            void spike_emitted(gid_type gid, step_type step) override {
                if (++seen != 2) inner->spike_emitted(gid, step);
            }
            void exchange_interval(step_type step, step_type due, spike_sink& sink) override {
                inner->synchronize(step, due, sink);
            }
            void verify_conservation() override { inner->verify_conservation(); }
            std::map<std::string, double> counters() const override { return inner->counters(); }
            std::map<std::string, double> memory_bytes() const override { return inner->memory_bytes(); }
        };
        auto e = std::make_unique<lossy>();
        e->inner = allgather.make(o);
        return e;
    };
    register_exchange_method_for_test(broken);
    auto failures = conformance_failures(find_exchange_method("incomplete_example"));
    unregister_exchange_method_for_test("incomplete_example");
    auto has = [&](const std::string& text) {
        return std::any_of(failures.begin(), failures.end(),
                           [&](const std::string& f) { return f.find(text) != std::string::npos; });
    };
    EXPECT_TRUE(has("no dry-run counting rule")) << joined(failures);
    EXPECT_TRUE(has("no cost formula")) << joined(failures);
    EXPECT_TRUE(has("no docs page")) << joined(failures);
    EXPECT_TRUE(has("no_such_option")) << joined(failures);
    EXPECT_TRUE(has("spikes differ from allgather")) << joined(failures);
}

TEST(conformance, options_of_other_methods) {
    // A variant option of another method is refused; a bad value names its key.
    EXPECT_THROW(run("rma", {{"phases", std::int64_t{2}}}, false), user_error);
    EXPECT_THROW(run("persistent", {{"phases", std::int64_t{2}}}, false), user_error);
    EXPECT_THROW(run("allgather", {{"subintervals", std::int64_t{2}}}, false), user_error);
    try {
        run("multisend", {{"subintervals", std::int64_t{3}}}, false);
        ADD_FAILURE() << "subintervals = 3 accepted";
    } catch (const user_error& e) {
        EXPECT_NE(std::string(e.what()).find("exchange.subintervals = 3"), std::string::npos) << e.what();
    }
    EXPECT_THROW(run("allgather", {{"no_such_option", true}}, false), user_error);
    // A plain option of another method is ignored, so one configuration runs every method.
    EXPECT_NO_THROW(run("multisend", {{"allgather_slots", std::int64_t{20}}}, false));
}
