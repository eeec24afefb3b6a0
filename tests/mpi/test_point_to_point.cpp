// The multisend family through the engine, on several ranks: every variant records the
// same spikes as allgather (gathered and sorted), and conservation holds. Also built with
// the sanitizers, this runs the exchanges' buffer handling (request pool, persistent
// buffers, rma origin buffers and rings) under ASan/UBSan.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>

#include "mpi_context_fixture.hpp"
#include "spikex/core/errors.hpp"
#include "spikex/engine/engine.hpp"

using namespace spikex;

namespace {

// 240 cells, 30 +- 5 inputs, weights of mean 0 (inputs matter); `fast`: cells fire every
// 0.3-0.9 ms with a 2 ms delay, several spikes per cell per interval.
std::vector<spike> run(const std::string& method, exchange_options exchange, bool fast, std::uint32_t seed = 7) {
    network_spec spec;
    spec.dt_ms = 0.025;
    spec.seed = seed;
    std::map<std::string, double> params;
    if (fast) params = {{"invl_low_ms", 0.3}, {"invl_high_ms", 0.9}};
    spec.populations.push_back({"interval_fire", 0, 240, params});
    connection_set set;
    set.rule = {connection_rule_kind::random, 0, 240, 0, 240, 30, 10, 0.0, 0.08, fast ? 2.0 : 1.0};
    spec.connection_sets.push_back(set);
    spec.recorded.emplace_back(0, 240);
    engine_options options;
    options.method = method;
    options.distribution = "random_shuffle";
    options.exchange = exchange;
    engine e(*test_context, spec, options);
    e.run_until(1000);     // 25 ms
    e.run_until(1000 + 7); // ends mid-interval: everything must still be delivered
    e.run_until(1600);
    auto all = test_context->allgather_vector(e.recorded_spikes());
    std::sort(all.begin(), all.end(),
              [](const spike& a, const spike& b) { return std::tie(a.step, a.gid) < std::tie(b.step, b.gid); });
    auto counters = e.counters();
    std::int64_t sent = test_context->allreduce_sum(static_cast<std::int64_t>(counters["spikes_sent"]));
    std::int64_t received = test_context->allreduce_sum(static_cast<std::int64_t>(counters["spikes_received"]));
    if (method != "allgather") EXPECT_EQ(sent, received) << method;
    return all;
}

bool same(const std::vector<spike>& a, const std::vector<spike>& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const spike& x, const spike& y) {
               return x.gid == y.gid && x.step == y.step;
           });
}

} // namespace

TEST(point_to_point, every_variant_records_the_allgather_spikes) {
    for (bool fast: {false, true}) {
        const auto reference = run("allgather", {}, fast);
        ASSERT_GT(reference.size(), 100u);
        struct variant {
            std::string method;
            int subintervals, phases, pending, slots;
        };
        for (const auto& v: {variant{"multisend", 1, 1, 1024, 2}, variant{"multisend", 2, 1, 1024, 2},
                             variant{"multisend", 1, 2, 1024, 2}, variant{"multisend", 2, 2, 1, 2},
                             variant{"persistent", 1, 1, 1024, 2}, variant{"persistent", 2, 1, 1024, 2},
                             variant{"rma", 1, 1, 1024, 1}, variant{"rma", 2, 1, 1024, 2}}) {
            exchange_options o;
            o.subintervals = v.subintervals;
            o.phases = v.phases;
            o.max_pending_sends = v.pending;
            o.rma_slot_spikes = v.slots;
            EXPECT_TRUE(same(run(v.method, o, fast), reference))
                << v.method << " subintervals " << v.subintervals << " phases " << v.phases << " fast " << fast;
        }
    }
}

TEST(point_to_point, unsupported_combinations_are_user_errors) {
    exchange_options o;
    o.phases = 2;
    EXPECT_THROW(run("rma", o, false), user_error);
    EXPECT_THROW(run("persistent", o, false), user_error);
    o.phases = 1;
    o.subintervals = 3;
    EXPECT_THROW(run("multisend", o, false), user_error);
}
