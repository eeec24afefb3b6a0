// The threads' shares of a rank's cells (thread_work.hpp).
#include "spikex/engine/thread_work.hpp"

#include <algorithm>
#include <utility>

#include "spikex/models/input_device.hpp"

namespace spikex {
namespace {

// A rule's mean inputs per target cell.
double expected_inputs_per_target(const connection_rule& r) {
    switch (r.kind) {
    case connection_rule_kind::random:
    case connection_rule_kind::adjacent:
    case connection_rule_kind::fixed_indegree:
        return r.indegree;
    case connection_rule_kind::fixed_outdegree:
        return r.target_size == 0 ? 0.0 : double(r.outdegree) * r.source_size / r.target_size;
    case connection_rule_kind::fixed_total_number:
        return r.target_size == 0 ? 0.0 : double(r.total_number) / r.target_size;
    case connection_rule_kind::pairwise_bernoulli:
        return r.probability * r.source_size;
    case connection_rule_kind::one_to_one:
        return 1.0;
    case connection_rule_kind::all_to_all:
        return r.source_size;
    }
    return 0.0;
}

} // namespace

std::vector<double> cell_work(const network_spec& spec, const std::vector<gid_type>& local_gids) {
    const std::size_t local = local_gids.size();
    std::vector<std::pair<gid_type, gid_type>> devices; // [first, end) gids
    for (const auto& pop: spec.populations)
        if (is_input_device(pop.model)) devices.push_back({pop.first, pop.first + pop.size});
    std::vector<double> work(local, 0.0);
    for (std::size_t i = 0; i < local; ++i) {
        bool device = false;
        for (auto [first, end]: devices) device = device || (local_gids[i] >= first && local_gids[i] < end);
        work[i] = device ? 0.0 : 1.0;
    }
    const bool ascending = std::is_sorted(local_gids.begin(), local_gids.end());
    for (const auto& set: spec.connection_sets) {
        if (set.synapse == 0) continue;
        if (set.is_rule) {
            const double inputs = expected_inputs_per_target(set.rule) / plastic_inputs_per_update;
            for (std::size_t i = 0; i < local; ++i) {
                const gid_type g = local_gids[i];
                if (g >= set.rule.target_first && g - set.rule.target_first < set.rule.target_size) work[i] += inputs;
            }
        } else if (ascending) { // explicit connections: each one counted at its target
            for (gid_type g: set.arrays.target) {
                const auto at = std::lower_bound(local_gids.begin(), local_gids.end(), g);
                if (at != local_gids.end() && *at == g)
                    work[at - local_gids.begin()] += 1.0 / plastic_inputs_per_update;
            }
        }
    }
    return work;
}

std::vector<local_index> thread_cuts(const std::vector<double>& work, unsigned threads) {
    const auto local = static_cast<local_index>(work.size());
    std::vector<double> before(work.size() + 1, 0.0); // work of the cells before local i
    for (std::size_t i = 0; i < work.size(); ++i) before[i + 1] = before[i] + work[i];
    const double total = before.back();
    std::vector<local_index> cut(threads + 1, 0);
    for (unsigned t = 1; t <= threads; ++t) {
        if (t == threads || total == 0.0) {
            cut[t] = static_cast<local_index>(std::uint64_t(local) * t / threads);
            continue;
        }
        const double share = total * t / threads; // the first cell past this much work
        cut[t] = static_cast<local_index>(std::upper_bound(before.begin(), before.end(), share) - before.begin() - 1);
    }
    return cut;
}

} // namespace spikex
