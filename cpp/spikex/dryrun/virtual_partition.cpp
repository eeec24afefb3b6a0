#include <algorithm>
#include <bit>
#include <limits>
#include <map>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/dryrun/virtual_partition.hpp"
#include "spikex/network/connectivity.hpp"

namespace spikex {

std::vector<int> dryrun_sample(int ranks, int limit) {
    std::vector<int> out;
    if (ranks <= limit || limit < 2) {
        out.resize(ranks);
        for (int r = 0; r < ranks; ++r) out[r] = r;
        return out;
    }
    for (int i = 0; i < limit; ++i) {
        out.push_back(static_cast<int>((static_cast<std::int64_t>(i) * (ranks - 1)) / (limit - 1)));
    }
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

namespace {

constexpr std::uint64_t pair_of(std::uint32_t high, std::uint32_t low) {
    return (static_cast<std::uint64_t>(high) << 32) | low;
}

} // namespace

virtual_partition::virtual_partition(const network_spec& spec, distribution_scheme scheme, int ranks,
                                     std::vector<int> sampled, bool sorted):
    cells_(scheme, spec.cells(), ranks, spec.seed), sorted_(sorted) {
    if (ranks < 1) throw user_error(spikex::format("--np = {}: must be >= 1", ranks));
    const std::uint32_t n = spec.cells();
    if (sampled.empty()) sampled = dryrun_sample(ranks, ranks);
    sampled_ = std::move(sampled);
    all_ = static_cast<int>(sampled_.size()) == ranks;
    sample_index_.assign(ranks, -1);
    for (std::size_t k = 0; k < sampled_.size(); ++k) {
        if (sampled_[k] < 0 || sampled_[k] >= ranks) throw user_error("dry run: sampled rank out of range");
        sample_index_[sampled_[k]] = static_cast<int>(k);
    }

    // One pass over every target: (source, delay and synapse type) per connection of a
    // sampled rank, and (source, target rank) per connection from a cell of a sampled rank
    // (sampled mode). The low word is delay << synapse_bits | kind, the kind numbering the
    // distinct (synapse type, receptor port) pairs: sorted, a source's connections fall
    // into the engine's delay groups.
    std::vector<std::vector<std::uint64_t>> incoming(sampled_.size());
    std::vector<std::uint64_t> outgoing;
    step_type d_min = std::numeric_limits<step_type>::max();
    std::map<std::pair<std::uint16_t, std::uint16_t>, std::uint32_t> kinds;
    for (const auto& set: spec.connection_sets) kinds.emplace(std::pair{set.synapse, set.receptor}, 0);
    std::uint32_t kind_count = 0;
    for (auto& [pair, number]: kinds) number = kind_count++;
    const unsigned synapse_bits = std::bit_width(std::max<std::uint32_t>(kind_count, 1) - 1);
    std::uint32_t synapse = 0;
    auto add = [&](gid_type source, gid_type target, step_type delay) {
        ++drawn_;
        d_min = std::min(d_min, delay);
        const int t = cells_.rank_of(target);
        const int k = sample_index_[t];
        if (k >= 0) {
            if ((static_cast<std::uint64_t>(delay) >> (32 - synapse_bits)) != 0) {
                throw user_error(spikex::format(
                    "dry run: a delay of {} steps is too long to count with {} synapse types", delay, kind_count));
            }
            incoming[k].push_back(pair_of(source, (static_cast<std::uint32_t>(delay) << synapse_bits) | synapse));
        }
        if (!all_ && sample_index_[cells_.rank_of(source)] >= 0) {
            outgoing.push_back(pair_of(source, static_cast<std::uint32_t>(t)));
        }
    };
    std::uint32_t rule_index = 0;
    rule_scratch scratch;
    std::vector<incoming_connection> drawn;
    std::vector<gid_type> targets;
    for (const auto& set: spec.connection_sets) {
        synapse = kinds.at({set.synapse, set.receptor});
        if (set.is_rule) {
            // Every target of the rule, as if one rank held them all (the draws do not
            // depend on the ranks). fixed_outdegree keeps all of the rule's connections
            // meanwhile (4 bytes each).
            const auto& rule = set.rule;
            targets.resize(rule.target_size);
            for (std::uint32_t k = 0; k < rule.target_size; ++k) targets[k] = rule.target_first + k;
            const rule_drawer drawer(rule, rule_index, spec.seed, spec.dt_ms, targets);
            for (gid_type g: targets) {
                drawn.clear();
                drawer.draw(g, drawn, scratch);
                for (const auto& c: drawn) add(c.source, g, c.delay);
            }
            ++rule_index;
        } else {
            const auto& a = set.arrays;
            if (a.released) {
                throw user_error("dry run of a built network: its connections are in the connection table, no "
                                 "longer in the network's description; make the dry run before simulate or build");
            }
            for (std::size_t k = 0; k < a.size(); ++k) add(a.source[k], a.target[k], a.delay_at(k));
        }
    }
    min_delay_ = drawn_ ? d_min : std::max<step_type>(1, delay_steps(1.0, spec.dt_ms));

    // Receive side of each sampled rank: source runs, delay groups.
    receive_.resize(sampled_.size());
    receiver_offsets_.assign(static_cast<std::size_t>(n) + 1, 0);
    for (std::size_t k = 0; k < sampled_.size(); ++k) {
        auto& pairs = incoming[k];
        std::sort(pairs.begin(), pairs.end());
        auto& side = receive_[k];
        side.total_connections = pairs.size();
        side.min_delay = pairs.empty() ? 0 : std::numeric_limits<step_type>::max();
        for (std::size_t i = 0; i < pairs.size(); ++i) {
            const auto source = static_cast<gid_type>(pairs[i] >> 32);
            const auto delay = static_cast<step_type>((pairs[i] & 0xffffffffu) >> synapse_bits);
            side.min_delay = std::min(side.min_delay, delay);
            side.max_delay = std::max(side.max_delay, delay);
            const bool new_source = i == 0 || (pairs[i - 1] >> 32) != source;
            if (new_source) {
                side.sources.push_back(source);
                side.connections.push_back(0);
                side.groups.push_back(0);
                ++receiver_offsets_[source + 1];
            } else if (pairs[i - 1] != pairs[i]) {
                side.mixed_delays = true; // the same source in a second delay group
            }
            if (i == 0 || pairs[i - 1] != pairs[i]) {
                ++side.delay_groups;
                ++side.groups.back();
            }
            ++side.connections.back();
        }
        std::vector<std::uint64_t>().swap(pairs);
    }
    for (std::uint32_t g = 0; g < n; ++g) receiver_offsets_[g + 1] += receiver_offsets_[g];
    receiver_index_.resize(receiver_offsets_[n]);
    receiver_conns_.resize(receiver_offsets_[n]);
    receiver_groups_.resize(receiver_offsets_[n]);
    {
        std::vector<std::uint64_t> fill(receiver_offsets_.begin(), receiver_offsets_.end() - 1);
        for (std::size_t k = 0; k < sampled_.size(); ++k) {
            const auto& side = receive_[k];
            for (std::size_t i = 0; i < side.sources.size(); ++i) {
                auto at = fill[side.sources[i]]++;
                receiver_index_[at] = static_cast<std::uint32_t>(k);
                receiver_conns_[at] = side.connections[i];
                receiver_groups_[at] = side.groups[i];
            }
        }
    }

    // Send side: with every rank sampled it is the receive side seen from the source.
    if (all_) {
        target_offsets_ = receiver_offsets_;
        target_ranks_.assign(receiver_index_.begin(), receiver_index_.end());
        target_conns_ = receiver_conns_;
        return;
    }
    std::sort(outgoing.begin(), outgoing.end());
    target_offsets_.assign(static_cast<std::size_t>(n) + 1, 0);
    for (std::size_t i = 0; i < outgoing.size(); ++i) {
        if (i == 0 || outgoing[i - 1] != outgoing[i]) {
            ++target_offsets_[(outgoing[i] >> 32) + 1];
            target_ranks_.push_back(static_cast<int>(outgoing[i] & 0xffffffffu));
            target_conns_.push_back(0);
        }
        ++target_conns_.back();
    }
    for (std::uint32_t g = 0; g < n; ++g) target_offsets_[g + 1] += target_offsets_[g];
}

} // namespace spikex
