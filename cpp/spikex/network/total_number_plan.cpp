#include <algorithm>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/core/random.hpp"
#include "spikex/network/discrete_sampling.hpp"
#include "spikex/network/total_number_plan.hpp"

namespace spikex {

std::uint64_t allowed_pairs(const connection_rule& rule, std::uint64_t lo, std::uint64_t hi) {
    std::uint64_t pairs = (hi - lo) * rule.source_size;
    if (!rule.allow_autapses) {
        // Targets that are also sources lose one pair each: intersect the gid ranges.
        const std::uint64_t first = std::max<std::uint64_t>(rule.target_first + lo, rule.source_first);
        const std::uint64_t end =
            std::min<std::uint64_t>(rule.target_first + hi, std::uint64_t(rule.source_first) + rule.source_size);
        if (end > first) pairs -= end - first;
    }
    return pairs;
}

total_number_plan::total_number_plan(const connection_rule& rule, std::uint32_t rule_index, std::uint32_t seed,
                                     std::vector<gid_type> local_targets):
    targets_(std::move(local_targets)), indegree_(targets_.size(), 0) {
    // Offsets of the local targets, ascending.
    std::vector<std::uint32_t> offsets(targets_.size());
    for (std::size_t k = 0; k < targets_.size(); ++k) offsets[k] = targets_[k] - rule.target_first;

    auto split = [&](auto& self, std::uint64_t lo, std::uint64_t hi, std::uint64_t count, std::size_t begin,
                     std::size_t end) -> void {
        if (begin == end || count == 0) return;
        if (hi - lo == 1) {
            indegree_[begin] = count;
            return;
        }
        const std::uint64_t mid = lo + (hi - lo) / 2;
        random_stream rng(seed, rule_index, purpose::rule_plan, static_cast<std::uint32_t>(mid));
        const double u = rng.next_uniform();
        const std::uint64_t all = allowed_pairs(rule, lo, hi), left = allowed_pairs(rule, lo, mid);
        const std::uint64_t to_left = rule.allow_multapses ? binomial_split(count, left, all, u)
                                                           : hypergeometric_from_uniform(all, left, count, u);
        const auto cut = static_cast<std::size_t>(
            std::lower_bound(offsets.begin() + begin, offsets.begin() + end, mid) - offsets.begin());
        self(self, lo, mid, to_left, begin, cut);
        self(self, mid, hi, count - to_left, cut, end);
    };
    split(split, 0, rule.target_size, rule.total_number, 0, offsets.size());
}

std::uint64_t total_number_plan::indegree(gid_type target) const {
    auto it = std::lower_bound(targets_.begin(), targets_.end(), target);
    if (it == targets_.end() || *it != target) {
        throw internal_error(spikex::format("fixed_total_number: gid {} is not a target of this rank", target));
    }
    return indegree_[static_cast<std::size_t>(it - targets_.begin())];
}

std::size_t total_number_plan::bytes() const {
    return targets_.capacity() * sizeof(gid_type) + indegree_.capacity() * sizeof(std::uint64_t);
}

} // namespace spikex
