// The threads' shares of a rank's cells (engine/thread_work.hpp): by count in a static
// network, input devices counting nothing, plastic inputs weighing more.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "spikex/engine/thread_work.hpp"
#include "spikex/network/network_spec.hpp"

using namespace spikex;

namespace {

network_spec excitatory_inhibitory(std::uint16_t excitatory_synapse) {
    network_spec spec;
    spec.populations.push_back({"iaf_psc_alpha", 0, 800, {}, {}});   // E: gids 0..799
    spec.populations.push_back({"iaf_psc_alpha", 800, 200, {}, {}}); // I: 800..999
    spec.synapses.push_back({"stdp_pl_synapse_hom", {}});
    connection_set ee;
    ee.synapse = excitatory_synapse;
    ee.rule = {connection_rule_kind::fixed_indegree, 0, 800, 0, 800, 80};
    connection_set ei;
    ei.rule = {connection_rule_kind::fixed_indegree, 0, 800, 800, 200, 80};
    connection_set ii;
    ii.rule = {connection_rule_kind::pairwise_bernoulli, 800, 200, 0, 1000};
    ii.rule.probability = 0.1;
    spec.connection_sets = {ee, ei, ii};
    return spec;
}

std::vector<gid_type> all_gids(std::uint32_t n) {
    std::vector<gid_type> gids(n);
    std::iota(gids.begin(), gids.end(), 0u);
    return gids;
}

} // namespace

TEST(thread_work, a_static_network_is_cut_by_count) {
    const auto work = cell_work(excitatory_inhibitory(0), all_gids(1000));
    EXPECT_EQ(thread_cuts(work, 2), (std::vector<local_index>{0, 500, 1000}));
    EXPECT_EQ(thread_cuts(work, 3), (std::vector<local_index>{0, 333, 666, 1000}));
    EXPECT_EQ(thread_cuts(work, 1), (std::vector<local_index>{0, 1000}));
}

TEST(thread_work, input_devices_count_nothing) {
    network_spec spec;
    spec.populations.push_back({"iaf_psc_alpha", 0, 100, {}, {}});
    spec.populations.push_back({"poisson_generator", 100, 100, {}, {}});
    const auto work = cell_work(spec, all_gids(200));
    EXPECT_EQ(thread_cuts(work, 2), (std::vector<local_index>{0, 50, 200}));
}

TEST(thread_work, plastic_inputs_are_shared_equally) {
    // E cells take 80 plastic inputs each, I cells none: by count thread 0 would hold
    // 500 of the 800 plastic targets.
    const auto work = cell_work(excitatory_inhibitory(1), all_gids(1000));
    EXPECT_DOUBLE_EQ(work[0], 1.0 + 80.0 / plastic_inputs_per_update);
    EXPECT_DOUBLE_EQ(work[900], 1.0);
    const auto cut = thread_cuts(work, 2);
    const double total = std::accumulate(work.begin(), work.end(), 0.0);
    const double first = std::accumulate(work.begin(), work.begin() + cut[1], 0.0);
    EXPECT_LT(cut[1], 500u);
    EXPECT_NEAR(first, total / 2, work[0]); // within one cell's work of half
    // Cells given by a rank's distribution (every other gid) are cut the same way.
    std::vector<gid_type> odd;
    for (gid_type g = 1; g < 1000; g += 2) odd.push_back(g);
    const auto odd_cut = thread_cuts(cell_work(excitatory_inhibitory(1), odd), 2);
    EXPECT_LT(odd_cut[1], 250u);
}
