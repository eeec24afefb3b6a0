// The engine's own check of plastic synapses' starting weights (plasticity.cpp): a range
// check per group, streamed, and the message naming the first weight out of range, whether
// the group keeps one weight per connection or one value for all.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "spikex/comm/context.hpp"
#include "spikex/core/errors.hpp"
#include "spikex/engine/engine.hpp"

using namespace spikex;

namespace {

// Two iaf_psc_alpha cells (gids 0, 1) onto three others (gids 2-4) through stdp_synapse
// with Wmax = 100, source 0 with `weights` (one per target), source 1 with `weight_1` (input
// devices' connections are not synapses: no plastic weights to check).
network_spec network(const std::vector<double>& weights, double weight_1 = 5.0) {
    network_spec spec;
    spec.dt_ms = 0.1;
    spec.seed = 3;
    spec.populations.push_back({"iaf_psc_alpha", 0, 5, constant_parameter_map({}), {}});
    spec.synapses.push_back({"stdp_synapse", {{"Wmax", 100.0}}}); // index 1 (0: static)
    connection_set set;
    set.is_rule = false;
    set.synapse = 1;
    for (std::size_t k = 0; k < weights.size(); ++k) {
        set.arrays.source.push_back(0);
        set.arrays.target.push_back(2 + gid_type(k));
        set.arrays.weight.push_back(weights[k]);
        set.arrays.delay.push_back(10);
        set.arrays.source.push_back(1);
        set.arrays.target.push_back(2 + gid_type(k));
        set.arrays.weight.push_back(weight_1);
        set.arrays.delay.push_back(10);
    }
    spec.connection_sets.push_back(std::move(set));
    return spec;
}

// The message of the build's user_error, or "" when it builds.
std::string refusal(const std::vector<double>& weights, double weight_1 = 5.0, unsigned threads = 1) {
    auto context = make_serial_context();
    engine_options options;
    options.threads = threads;
    engine e(*context, network(weights, weight_1), options);
    try {
        e.build();
    } catch (const user_error& error) {
        return error.what();
    }
    return "";
}

} // namespace

TEST(plastic_weight_checks, the_first_weight_out_of_range_is_named) {
    EXPECT_EQ(refusal({10.0, 20.0, 30.0}), "");
    EXPECT_EQ(refusal({0.0, 100.0, 50.0}), ""); // both ends belong to the range
    EXPECT_EQ(refusal({10.0, 150.0, 170.0}), "stdp_synapse: weight = 150: must be in [0, 100]");
    EXPECT_EQ(refusal({-1.0, 20.0, 30.0}), "stdp_synapse: weight = -1: must be in [0, 100]");
    EXPECT_EQ(refusal({130.0, 130.0, 130.0}), "stdp_synapse: weight = 130: must be in [0, 100]"); // one value
}

// The check runs on the table's threads, each over its share of the groups: with faults in
// both shares, the message is still the first in table order (source 0's group).
TEST(plastic_weight_checks, the_first_fault_in_table_order_is_named_on_two_threads) {
    EXPECT_EQ(refusal({10.0, 20.0, 30.0}, 5.0, 2), "");
    EXPECT_EQ(refusal({10.0, 150.0, 170.0}, 200.0, 2), "stdp_synapse: weight = 150: must be in [0, 100]");
    EXPECT_EQ(refusal({10.0, 20.0, 30.0}, 200.0, 2), "stdp_synapse: weight = 200: must be in [0, 100]");
}
