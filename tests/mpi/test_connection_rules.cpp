// NEST's connection rules through the engine on this job's ranks (1, 2 and 3 under ctest),
// with two threads per rank and the random_shuffle distribution: the same spikes as one
// rank with one thread and the consecutive distribution. Every rule is present, weights
// and delays drawn from distributions, with inputs strong enough to change the spikes.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include "mpi_context_fixture.hpp"
#include "spikex/engine/engine.hpp"

using namespace spikex;

namespace {

connection_set rule_set(connection_rule_kind kind, gid_type source_first, std::uint32_t sources, gid_type target_first,
                        std::uint32_t targets) {
    connection_set set;
    auto& r = set.rule;
    r.kind = kind;
    r.source_first = source_first;
    r.source_size = sources;
    r.target_first = target_first;
    r.target_size = targets;
    r.weight.kind = distribution_kind::normal;
    r.weight.mean = 0.0;
    r.weight.std = 0.08;
    r.delay_ms.kind = distribution_kind::uniform;
    r.delay_ms.low = 1.0;
    r.delay_ms.high = 3.0;
    return set;
}

network_spec every_rule_network() {
    network_spec spec;
    spec.dt_ms = 0.025;
    spec.seed = 11;
    const auto params = constant_parameter_map({{"invl_low_ms", 0.3}, {"invl_high_ms", 0.9}});
    spec.populations.push_back({"interval_fire", 0, 150, params, {}});
    spec.populations.push_back({"interval_fire", 150, 90, params, {}});
    auto in = rule_set(connection_rule_kind::fixed_indegree, 0, 150, 0, 240);
    in.rule.indegree = 10;
    in.rule.allow_multapses = false;
    auto out = rule_set(connection_rule_kind::fixed_outdegree, 150, 90, 0, 240);
    out.rule.outdegree = 12;
    out.rule.allow_autapses = false;
    auto total = rule_set(connection_rule_kind::fixed_total_number, 0, 240, 100, 140);
    total.rule.total_number = 2000;
    auto total_distinct = total;
    total_distinct.rule.allow_multapses = false;
    total_distinct.rule.allow_autapses = false;
    auto bernoulli = rule_set(connection_rule_kind::pairwise_bernoulli, 0, 240, 0, 240);
    bernoulli.rule.probability = 0.03;
    bernoulli.rule.allow_autapses = false;
    auto one = rule_set(connection_rule_kind::one_to_one, 0, 90, 150, 90);
    auto all = rule_set(connection_rule_kind::all_to_all, 140, 20, 130, 20);
    all.rule.allow_autapses = false;
    for (auto* set: {&in, &out, &total, &total_distinct, &bernoulli, &one, &all}) spec.connection_sets.push_back(*set);
    spec.recorded.emplace_back(0, 240);
    return spec;
}

std::vector<spike> run(context& comm, const std::string& distribution, unsigned threads) {
    engine_options options;
    options.distribution = distribution;
    options.threads = threads;
    engine e(comm, every_rule_network(), options);
    e.run_until(400); // 10 ms
    auto spikes = comm.allgather_vector(e.recorded_spikes());
    std::sort(spikes.begin(), spikes.end(),
              [](const spike& a, const spike& b) { return std::tie(a.step, a.gid) < std::tie(b.step, b.gid); });
    return spikes;
}

} // namespace

TEST(connection_rules, every_rule_gives_the_same_spikes_on_any_ranks_threads_and_distribution) {
    auto serial = make_serial_context();
    const auto reference = run(*serial, "consecutive", 1);
    ASSERT_GT(reference.size(), 1000u);
    const auto spikes = run(*test_context, "random_shuffle", 2);
    ASSERT_EQ(spikes.size(), reference.size());
    for (std::size_t k = 0; k < spikes.size(); ++k) {
        ASSERT_TRUE(spikes[k].gid == reference[k].gid && spikes[k].step == reference[k].step) << "spike " << k;
    }
    // The inputs matter: without the connections the spikes differ.
    auto silent = every_rule_network();
    silent.connection_sets.clear();
    engine e(*serial, silent, {});
    e.run_until(400);
    EXPECT_NE(e.recorded_spikes().size(), reference.size());
}
