#include <algorithm>
#include <bit>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/core/random.hpp"
#include "spikex/network/outdegree_plan.hpp"
#include "spikex/network/source_pool.hpp"

namespace spikex {

outdegree_plan::outdegree_plan(const connection_rule& rule, std::uint32_t rule_index, std::uint32_t seed,
                               std::vector<gid_type> local_targets):
    targets_(std::move(local_targets)) {
    // Which target offsets are local: one bit each, and the local targets before each
    // 64-bit word, so that a replayed draw finds its local index in O(1).
    const std::size_t words = (static_cast<std::size_t>(rule.target_size) + 63) / 64;
    std::vector<std::uint64_t> local(words, 0);
    for (gid_type t: targets_) {
        const std::uint32_t o = t - rule.target_first;
        local[o >> 6] |= std::uint64_t{1} << (o & 63);
    }
    std::vector<std::uint32_t> before(words, 0);
    for (std::size_t w = 1; w < words; ++w) {
        before[w] = before[w - 1] + static_cast<std::uint32_t>(std::popcount(local[w - 1]));
    }
    // (local target index, source) in creation order of the sources' draws.
    std::vector<std::pair<std::uint32_t, gid_type>> kept;
    std::vector<std::uint64_t> bitmap;
    std::vector<gid_type> drawn;
    for (std::uint32_t k = 0; k < rule.source_size; ++k) {
        const gid_type s = rule.source_first + k;
        const source_pool pool(rule.target_first, rule.target_size, s, !rule.allow_autapses);
        random_stream rng(seed, s, purpose::connections, rule_index);
        drawn.clear();
        if (rule.allow_multapses) {
            pool.draw_with_replacement(rng, rule.outdegree, drawn);
        } else {
            pool.draw_distinct(rng, rule.outdegree, bitmap, drawn);
        }
        for (gid_type t: drawn) {
            const std::uint32_t o = t - rule.target_first;
            const std::uint64_t word = local[o >> 6], bit = std::uint64_t{1} << (o & 63);
            if (!(word & bit)) continue;
            kept.emplace_back(before[o >> 6] + static_cast<std::uint32_t>(std::popcount(word & (bit - 1))), s);
        }
    }
    // Group by target (stable: sources stay in creation order).
    offsets_.assign(targets_.size() + 1, 0);
    for (const auto& [t, s]: kept) ++offsets_[t + 1];
    for (std::size_t k = 0; k < targets_.size(); ++k) offsets_[k + 1] += offsets_[k];
    sources_.resize(kept.size());
    std::vector<std::uint64_t> fill(offsets_.begin(), offsets_.end() - 1);
    for (const auto& [t, s]: kept) sources_[fill[t]++] = s;
}

std::span<const gid_type> outdegree_plan::sources(gid_type target) const {
    auto it = std::lower_bound(targets_.begin(), targets_.end(), target);
    if (it == targets_.end() || *it != target) {
        throw internal_error(spikex::format("fixed_outdegree: gid {} is not a target of this rank", target));
    }
    const auto k = static_cast<std::size_t>(it - targets_.begin());
    return {sources_.data() + offsets_[k], sources_.data() + offsets_[k + 1]};
}

std::size_t outdegree_plan::bytes() const {
    return targets_.capacity() * sizeof(gid_type) + offsets_.capacity() * sizeof(std::uint64_t) +
           sources_.capacity() * sizeof(gid_type);
}

} // namespace spikex
